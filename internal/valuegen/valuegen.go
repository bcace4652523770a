// Package valuegen draws JSON values from the document's schemas, for the contract suite's generated
// checks and the receiver grader: it walks an object schema into its fields (Walk, Properties), gives
// each field its boundary cases, random draws (numbers as exact decimals on their grid, strings from
// the document's patterns), values that break one keyword (Invalids), and shrinks a failing design
// (Shrinker).
package valuegen

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// Value is one value a field can take, with what it exercises, for reports.
type Value struct {
	V     any // a JSON value: string, json.Number, bool, []any; nil only for "absent"
	Label string
}

// Options say what the generator may draw.
type Options struct {
	// Avoid holds characters no drawn string contains: text is drawn without them, and a case or draw
	// that holds one (a pattern's string, a URL) is left out.
	Avoid string
}

// Field is one property of an object schema as the generator sees it: what the schemas that declare
// it say (merged over their allOf branches), its boundary cases and its simplest value.
type Field struct {
	// Name is the property's name; Path is where it is from the walked schema's root (the root itself,
	// an object, has an empty one).
	Name string
	Path []string
	// Required: some schema of the object lists it as required.
	Required bool
	// Object: it has properties of its own; Closed: some branch gives it additionalProperties: false,
	// so no undeclared property may be added.
	Object, Closed bool
	// Cases are the boundary values, in the order the first bodies take them (SetCases).
	Cases []Value
	// Simplest is the value shrinking tries first: the document's example, else the first case.
	Simplest any

	c       constraints
	pattern *Pattern
	opts    Options
}

// constraints are the keywords of a field's schemas the generator reads; where several schemas set
// one, the last wins, except enum (the values every schema allows) and type (any schema's).
type constraints struct {
	types                        []string
	enum                         []any
	enumerated                   bool
	examples                     []any
	format, pattern              string
	minLength, maxLength         *int64
	minimum, maximum, multipleOf *float64
	exclusiveMinimum             *float64
	itemEnum                     []any
	uniqueItems                  bool
}

// newField reads a field from the schemas that declare it and computes its cases.
func newField(name string, path []string, required bool, schemas []*base.Schema, opts Options) *Field {
	f := &Field{Name: name, Path: path, Required: required, opts: opts}
	for _, s := range schemas {
		f.c.read(s)
		if s.Properties != nil && s.Properties.Len() > 0 {
			f.Object = true
		}
	}
	if f.c.pattern != "" {
		f.pattern, _ = NewPattern(f.c.pattern)
	}
	f.SetCases(f.boundaries())
	return f
}

// read merges what s says into c.
func (c *constraints) read(s *base.Schema) {
	for _, t := range s.Type {
		if !slices.Contains(c.types, t) {
			c.types = append(c.types, t)
		}
	}
	if len(s.Enum) > 0 {
		values := decodeAll(s.Enum)
		if c.enumerated {
			values = slices.DeleteFunc(c.enum, func(v any) bool { return !slices.ContainsFunc(values, func(w any) bool { return sameJSON(v, w) }) })
		}
		c.enum, c.enumerated = values, true
	}
	examples := slices.Clone(s.Examples)
	if s.Example != nil {
		examples = append(examples, s.Example)
	}
	c.examples = append(c.examples, decodeAll(examples)...)
	c.format = cmpOr(s.Format, c.format)
	c.pattern = cmpOr(s.Pattern, c.pattern)
	c.minLength = cmpOrPtr(s.MinLength, c.minLength)
	c.maxLength = cmpOrPtr(s.MaxLength, c.maxLength)
	c.minimum = cmpOrPtr(s.Minimum, c.minimum)
	c.maximum = cmpOrPtr(s.Maximum, c.maximum)
	c.multipleOf = cmpOrPtr(s.MultipleOf, c.multipleOf)
	if ex := s.ExclusiveMinimum; ex != nil && ex.IsB() {
		c.exclusiveMinimum = &ex.B
	}
	if s.Items != nil && s.Items.IsA() {
		if item := s.Items.A.Schema(); item != nil && len(item.Enum) > 0 {
			c.itemEnum = decodeAll(item.Enum)
		}
	}
	if s.UniqueItems != nil {
		c.uniqueItems = *s.UniqueItems
	}
}

func cmpOr(s, otherwise string) string {
	if s != "" {
		return s
	}
	return otherwise
}

func cmpOrPtr[T any](p, otherwise *T) *T {
	if p != nil {
		return p
	}
	return otherwise
}

// decodeAll decodes the document's nodes that decode (enum values, examples), as the JSON values the
// generator sends.
func decodeAll(nodes []*yaml.Node) []any {
	var out []any
	for _, n := range nodes {
		var v any
		if n != nil && n.Decode(&v) == nil && v != nil {
			out = append(out, wireValue(v))
		}
	}
	return out
}

// wireValue turns a decoded YAML value into the JSON value the generator sends (numbers as
// json.Number, so that they go on the wire as written).
func wireValue(v any) any {
	switch x := v.(type) {
	case int:
		return json.Number(strconv.Itoa(x))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case uint64:
		return json.Number(strconv.FormatUint(x, 10))
	case float64:
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = wireValue(e)
		}
		return out
	}
	return v
}

// sameJSON compares two decoded JSON values by their JSON text.
func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}

// SetCases makes cases the field's boundary values, dropping those that hold a character to avoid,
// and its simplest value the document's example, else the first case.
func (f *Field) SetCases(cases []Value) {
	f.Cases = slices.DeleteFunc(slices.Clone(cases), func(v Value) bool { return !f.drawable(v.V) })
	f.Simplest = f.Example()
	if f.Simplest == nil && len(f.Cases) > 0 {
		f.Simplest = f.Cases[0].V
	}
}

// drawable reports whether v holds no character of Options.Avoid.
func (f *Field) drawable(v any) bool {
	s, ok := v.(string)
	return !ok || f.opts.Avoid == "" || !strings.ContainsAny(s, f.opts.Avoid)
}

// Example is the field's first example in the document, as JSON, or nil.
func (f *Field) Example() any {
	if len(f.c.examples) == 0 {
		return nil
	}
	return f.c.examples[0]
}

// Enum is the values the field's schemas allow when they list them (every schema's list, so that a
// webhook that narrows Payment's statuses to one gives that one), else nil.
func (f *Field) Enum() []any { return f.c.enum }

// Is reports whether a schema of the field gives it JSON type typ.
func (f *Field) Is(typ string) bool { return slices.Contains(f.c.types, typ) }

// HasPattern reports whether the field's strings follow a pattern of the document.
func (f *Field) HasPattern() bool { return f.pattern != nil }

// FreeText reports whether the field is text any character may appear in: a string with no enum,
// pattern or format.
func (f *Field) FreeText() bool {
	return f.Is("string") && !f.c.enumerated && f.pattern == nil && f.c.format == ""
}

// IsURL reports whether the field holds a URL (format uri, or a pattern that spells the scheme). Its
// pattern is not the whole rule (the URL must also parse with a host), so the generator sends URLs it
// can vouch for: one with every character a query may hold, and the empty string where allowed.
func (f *Field) IsURL() bool {
	return f.c.format == "uri" || strings.Contains(f.c.pattern, "https?://")
}

// LengthBounds are a string's minLength and maxLength (max -1: none).
func (f *Field) LengthBounds() (lo, hi int) {
	hi = -1
	if f.c.minLength != nil {
		lo = int(*f.c.minLength)
	}
	if f.c.maxLength != nil {
		hi = int(*f.c.maxLength)
	}
	return lo, hi
}

// AllowsText reports whether the schema allows text v: its length in characters and its pattern.
func (f *Field) AllowsText(v string) bool {
	lo, hi := f.LengthBounds()
	n := utf8.RuneCountInString(v)
	if n < lo || (hi >= 0 && n > hi) {
		return false
	}
	return f.pattern == nil || f.pattern.Match(v)
}

// PathName is the field's path joined with dots (data.object.amount).
func (f *Field) PathName() string { return strings.Join(f.Path, ".") }
