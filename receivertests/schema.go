package receivertests

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// field is what the document says of one property of an event body, merged over the allOf branches
// that declare it (the webhook's own schema, PaymentEvent or PayoutEvent, Payment or Payout): the
// generated payloads are built from these, never from a list of field names in code.
type field struct {
	// path is where the property is in the event, e.g. [data object failure_reason].
	path []string
	// required: some branch lists it as required.
	required bool
	// enum is the values every branch that has an enum allows: Payment's status allows four, the
	// payment.success webhook's own schema one, so a payment.success event's status is success.
	enum []any
	// examples are the branches' examples, the value an optional field gets when it is added.
	examples []any
	// component is the schema the property refers to (e.g. Narration), which picks a generator.
	component string
	// text: a string with a maxLength and no pattern, enum or format, so any character may appear.
	text bool
	// object: it has properties of its own (the event itself, whose path is empty; data; data.object).
	object bool
	// closed: an object some branch gives additionalProperties: false, where no undeclared field may
	// be sent.
	closed bool
	// integerMax is the maximum of an integer field, as a JSON integer; empty for other fields.
	integerMax string
	// integer and number: the field's JSON type, when it is one of these; lo and hi its bounds
	// (an exclusive minimum moved up by one step), step its multipleOf (zero: none), ranged whether
	// it has both bounds.
	integer, number bool
	lo, hi, step    float64
	ranged          bool
	// minLen and maxLen bound a string's length in characters; maxLen is zero when unbounded.
	minLen, maxLen int
}

func (f field) name() string { return strings.Join(f.path, ".") }

// eventFields walks the request body schema of the webhook for event type t.
func eventFields(spec *openapi.Spec, t string) ([]field, error) {
	op, ok := spec.Webhook(t)
	if !ok {
		return nil, fmt.Errorf("event type %s is not declared under webhooks", t)
	}
	rb := openapi.OperationModel(op).RequestBody
	if rb == nil || rb.Content == nil {
		return nil, fmt.Errorf("webhook %s documents no request body", t)
	}
	mt, ok := rb.Content.Get("application/json")
	if !ok || mt == nil || mt.Schema == nil {
		return nil, fmt.Errorf("webhook %s documents no application/json schema", t)
	}
	out := []field{{object: true}}
	out[0].closed = walkObject([]*base.SchemaProxy{mt.Schema}, nil, &out)
	return out, nil
}

// branches returns the schema behind p and every allOf branch under it, with the component name the
// first reference on the way names.
func branches(p *base.SchemaProxy) (schemas []*base.Schema, component string) {
	if p == nil {
		return nil, ""
	}
	if p.IsReference() {
		ref := p.GetReference()
		component = ref[strings.LastIndex(ref, "/")+1:]
	}
	s := p.Schema()
	if s == nil {
		return nil, component
	}
	schemas = append(schemas, s)
	for _, sub := range s.AllOf {
		more, c := branches(sub)
		schemas = append(schemas, more...)
		if component == "" {
			component = c
		}
	}
	return schemas, component
}

// walkObject appends the fields of the object the proxies describe together (an allOf's branches),
// at path, and recurses into the properties that are objects. It reports whether the object is
// closed to undeclared fields.
func walkObject(proxies []*base.SchemaProxy, path []string, out *[]field) (closed bool) {
	var schemas []*base.Schema
	for _, p := range proxies {
		s, _ := branches(p)
		schemas = append(schemas, s...)
	}
	for _, s := range schemas {
		if ap := s.AdditionalProperties; ap != nil && ap.IsB() && !ap.B {
			closed = true
		}
	}
	var names []string
	props := map[string][]*base.SchemaProxy{}
	required := map[string]bool{}
	for _, s := range schemas {
		for _, r := range s.Required {
			required[r] = true
		}
		if s.Properties == nil {
			continue
		}
		for name, p := range s.Properties.FromOldest() {
			if _, seen := props[name]; !seen {
				names = append(names, name)
			}
			props[name] = append(props[name], p)
		}
	}
	for _, name := range names {
		f := field{path: append(slices.Clone(path), name), required: required[name]}
		var all []*base.Schema
		for _, p := range props[name] {
			s, c := branches(p)
			all = append(all, s...)
			if f.component == "" {
				f.component = c
			}
		}
		text, enumerated := false, false
		for _, s := range all {
			if len(s.Enum) > 0 {
				var values []any
				for _, n := range s.Enum {
					if v, err := decodeValue(n); err == nil {
						values = append(values, v)
					}
				}
				if !enumerated {
					f.enum, enumerated = values, true
				} else {
					f.enum = slices.DeleteFunc(f.enum, func(v any) bool { return !containsValue(values, v) })
				}
			}
			for _, n := range s.Examples {
				if v, err := decodeValue(n); err == nil {
					f.examples = append(f.examples, v)
				}
			}
			if s.Properties != nil && s.Properties.Len() > 0 {
				f.object = true
			}
			if s.MaxLength != nil && slices.Contains(s.Type, "string") {
				text = true
			}
			if slices.Contains(s.Type, "integer") && s.Maximum != nil {
				f.integerMax = strconv.FormatFloat(*s.Maximum, 'f', 0, 64)
			}
			f.readBounds(s)
		}
		for _, s := range all {
			if s.Pattern != "" || s.Format != "" || len(s.Enum) > 0 {
				text = false
			}
		}
		f.text = text
		*out = append(*out, f)
		if f.object {
			at := len(*out) - 1
			(*out)[at].closed = walkObject(props[name], f.path, out)
		}
	}
	return closed
}

// readBounds takes what s says of the field's type, range, step and length.
func (f *field) readBounds(s *base.Schema) {
	f.integer = f.integer || slices.Contains(s.Type, "integer")
	f.number = f.number || slices.Contains(s.Type, "number")
	if s.MultipleOf != nil {
		f.step = *s.MultipleOf
	}
	hasLo, hasHi := f.ranged, f.ranged
	if s.Minimum != nil {
		f.lo, hasLo = *s.Minimum, true
	}
	if ex := s.ExclusiveMinimum; ex != nil && ex.IsB() {
		f.lo, hasLo = ex.B+max(f.step, 1e-9), true
		if f.integer {
			f.lo = ex.B + 1
		}
	}
	if s.Maximum != nil {
		f.hi, hasHi = *s.Maximum, true
	}
	f.ranged = hasLo && hasHi
	if s.MinLength != nil {
		f.minLen = int(*s.MinLength)
	}
	if s.MaxLength != nil {
		f.maxLen = int(*s.MaxLength)
	}
}

// decodeValue turns a YAML node of the document (an enum value, an example) into its JSON value.
func decodeValue(n any) (any, error) {
	type decoder interface{ Decode(any) error }
	d, ok := n.(decoder)
	if !ok {
		return nil, fmt.Errorf("not a YAML node: %T", n)
	}
	var v any
	err := d.Decode(&v)
	return v, err
}

func containsValue(vs []any, v any) bool {
	return slices.ContainsFunc(vs, func(x any) bool { return fmt.Sprint(x) == fmt.Sprint(v) })
}
