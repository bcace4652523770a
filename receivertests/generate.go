package receivertests

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/malipo/terraform-provider-malipo/internal/valuegen"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// variant is one generated event body: the example event of a type with some fields changed, and
// what was changed, for the failure message.
type variant struct {
	what  string
	event map[string]any
	// design is what a drawn or extreme body changed of the example (valuegen.Design, keyed by each
	// field's path), what shrinking works on; nil for the others, each of which changes one thing.
	design *valuegen.Design
}

// randomVariants is how many bodies with drawn values the generated check sends per event type.
const randomVariants = 8

// generatedFieldName is the undeclared field the generated bodies add at each level of an event, as
// the document allows ("new fields can appear in any event and in its object").
const generatedFieldName = "x_malipo_generated"

// reencodedCharacters are what Go's encoder escapes and JavaScript's does not: <, > and &, and the line
// separators U+2028 and U+2029. They are the raw-body checks' business (rawbody.go); a generated body
// must verify with a receiver that re-encodes the way the sender does, so no drawn text holds them.
const reencodedCharacters = "<>&\u2028\u2029"

// drawing is what the generated bodies are drawn with.
var drawing = valuegen.Options{Avoid: reencodedCharacters}

// eventFields walks the request body schema of the webhook for event type t (valuegen.Walk): the
// generated payloads are built from its fields, never from a list of field names in code.
func eventFields(spec *openapi.Spec, t string) ([]*valuegen.Field, error) {
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
	return valuegen.Walk(mt.Schema, drawing), nil
}

// variants returns, for event type t, the bodies the generated check sends: each enum value of each
// field the example carries, each optional field absent and present (one at a time, then all at once),
// undeclared fields at every level, every field the generator bounds at its smallest and at its
// largest, and randomVariants bodies whose values are drawn from the seed. The same seed and document
// give the same bodies (ids and times aside, which each delivery gets fresh). Every body is one the
// document allows; the check validates each before it sends it, and reports one the document refuses
// as a defect of the grader.
func (g *grader) variants(t string) ([]variant, error) {
	fields, ok := g.fields[t]
	if !ok {
		return nil, fmt.Errorf("event type %s is not selected", t)
	}
	v := &variantSet{base: g.payloads[t], rng: rand.New(rand.NewPCG(g.seed, typeSalt(t)))}
	optional := v.addEnumsAndOptionals(fields)
	v.add("every optional field absent", func(ev map[string]any) {
		for _, f := range optional {
			del(ev, f.Path)
		}
	})
	v.add("every optional field present", func(ev map[string]any) {
		for _, f := range optional {
			if _, ok := get(ev, f.Path); !ok && f.Simplest != nil {
				set(ev, f.Path, f.Simplest)
			}
		}
	})
	v.addUndeclared(fields)
	v.addExtremes(fields)
	for i := range randomVariants {
		v.addDrawn(fields, i)
	}
	return v.out, nil
}

// variantSet is the bodies of one event type as variants makes them, each a change of base.
type variantSet struct {
	base map[string]any
	rng  *rand.Rand
	out  []variant
}

// add appends the base body with change applied.
func (v *variantSet) add(what string, change func(ev map[string]any)) {
	ev := clone(v.base)
	change(ev)
	v.out = append(v.out, variant{what: what, event: ev})
}

// generated reports whether the bodies draw f's value: a field of its own, not an object, and not
// the event's type, which names the webhook.
func generated(f *valuegen.Field) bool { return !f.Object && f.PathName() != "type" }

// addEnumsAndOptionals adds each other enum value of each field the example carries, and each optional
// field without it (when the example has it) or with its simplest value (when not); it returns the
// optional fields.
func (v *variantSet) addEnumsAndOptionals(fields []*valuegen.Field) (optional []*valuegen.Field) {
	for _, f := range fields {
		if !generated(f) {
			continue
		}
		cur, present := get(v.base, f.Path)
		if present {
			for _, e := range f.Enum() {
				if fmt.Sprint(e) != fmt.Sprint(cur) {
					v.add(fmt.Sprintf("%s = %v", f.PathName(), e), func(ev map[string]any) { set(ev, f.Path, e) })
				}
			}
		}
		if f.Required {
			continue
		}
		optional = append(optional, f)
		if present {
			v.add("without "+f.PathName(), func(ev map[string]any) { del(ev, f.Path) })
		} else if f.Simplest != nil {
			v.add(fmt.Sprintf("with %s = %v", f.PathName(), f.Simplest), func(ev map[string]any) { set(ev, f.Path, f.Simplest) })
		}
	}
	return optional
}

// addUndeclared adds undeclared fields where the document allows them ("new fields can appear in any
// event and in its object"): at every level no branch closes with additionalProperties: false.
func (v *variantSet) addUndeclared(fields []*valuegen.Field) {
	var open []*valuegen.Field
	for _, f := range fields {
		if f.Object && !f.Closed {
			open = append(open, f)
		}
	}
	if len(open) == 0 {
		return
	}
	names := make([]string, len(open))
	for i, f := range open {
		names[i] = cmp.Or(f.PathName(), "the event")
	}
	v.add("undeclared fields in "+strings.Join(names, ", "), func(ev map[string]any) {
		for _, f := range open {
			if obj, ok := get(ev, f.Path); ok {
				if m, ok := obj.(map[string]any); ok {
					m[generatedFieldName] = map[string]any{"n": v.rng.IntN(1 << 10), "s": drawing.RandomText(v.rng, 12), "a": []any{drawing.RandomText(v.rng, 4)}}
				}
			}
		}
	})
}

// addExtremes adds every field the generator bounds at its smallest, then at its largest: the bounds
// are where a receiver's types break (an amount in an int32, a narration in a VARCHAR(100)).
func (v *variantSet) addExtremes(fields []*valuegen.Field) {
	for _, largest := range []bool{false, true} {
		d := valuegen.NewDesign()
		var names []string
		for _, f := range fields {
			smallest, biggest, ok := f.Extremes()
			if !generated(f) || !ok {
				continue
			}
			if largest {
				smallest = biggest
			}
			d.Values[f.PathName()] = smallest
			names = append(names, f.PathName())
		}
		what := "smallest"
		if largest {
			what = "largest"
		}
		v.out = append(v.out, variant{what: fmt.Sprintf("every field the document bounds at its %s (%s)", what, strings.Join(names, ", ")),
			event: bodyOf(v.base, fields, d), design: &d})
	}
}

// addDrawn adds drawn body i: each optional field left out or not, each field's value drawn, where the
// generator can draw one, from the seed.
func (v *variantSet) addDrawn(fields []*valuegen.Field, i int) {
	d := valuegen.NewDesign()
	for _, f := range fields {
		if !generated(f) {
			continue
		}
		_, present := get(v.base, f.Path)
		if !f.Required && v.rng.IntN(2) == 0 {
			if present {
				d.Absent[f.PathName()] = true
			}
			continue
		}
		value, ok := f.Random(v.rng)
		if !ok {
			if present || f.Required || f.Simplest == nil {
				continue
			}
			value.V = f.Simplest
		}
		d.Values[f.PathName()] = value
	}
	v.out = append(v.out, variant{what: fmt.Sprintf("drawn body %d (%s)", i+1, describe(v.base, fields, d)), event: bodyOf(v.base, fields, d), design: &d})
}

// bodyOf is the example event base with design d applied: its fields left out, its values set.
func bodyOf(base map[string]any, fields []*valuegen.Field, d valuegen.Design) map[string]any {
	ev := clone(base)
	for _, f := range fields {
		if d.Absent[f.PathName()] {
			del(ev, f.Path)
		} else if v, ok := d.Values[f.PathName()]; ok {
			set(ev, f.Path, v.V)
		}
	}
	return ev
}

// describe says what design d changes of the example event base, in the fields' order: "no
// narration, amount = 1.5". A value equal to the example's is no change.
func describe(base map[string]any, fields []*valuegen.Field, d valuegen.Design) string {
	var out []string
	for _, f := range fields {
		if stamped[f.PathName()] {
			continue
		}
		cur, present := get(base, f.Path)
		if d.Absent[f.PathName()] {
			if present {
				out = append(out, "no "+f.PathName())
			}
		} else if v, ok := d.Values[f.PathName()]; ok && (!present || !sameJSON(v.V, cur)) {
			out = append(out, fmt.Sprintf("%s = %s", f.PathName(), short(v.V)))
		}
	}
	if len(out) == 0 {
		return "the example unchanged"
	}
	return strings.Join(out, ", ")
}

// sameJSON reports whether a and b encode to the same JSON: a drawn json.Number and the example's
// decoded number compare by their text.
func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// typeSalt makes each event type's draws independent of which other types are selected.
func typeSalt(t string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(t))
	return h.Sum64()
}

// short is a drawn value as a failure message shows it.
func short(v any) string {
	s := fmt.Sprint(v)
	if r := []rune(s); len(r) > 24 {
		return strconv.Quote(string(r[:24])) + fmt.Sprintf("… (%d characters)", len(r))
	}
	if _, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return s
}

// clone deep-copies a decoded JSON value.
func clone(ev map[string]any) map[string]any {
	return cloneValue(ev).(map[string]any)
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneValue(e)
		}
		return m
	case []any:
		return slices.Clone(x)
	default:
		return v
	}
}

// get returns the value at path in ev.
func get(ev map[string]any, path []string) (any, bool) { return openapi.ValueAt(ev, path) }

// set puts v at path in ev, making the objects on the way.
func set(ev map[string]any, path []string, v any) {
	m := ev
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// del removes the value at path from ev.
func del(ev map[string]any, path []string) {
	if parent, ok := get(ev, path[:len(path)-1]); ok {
		if m, ok := parent.(map[string]any); ok {
			delete(m, path[len(path)-1])
		}
	}
}

// maxReportedVariants is how many refused generated bodies a check describes one by one.
const maxReportedVariants = 5

// generatedChecks is one check per selected event type, sending its generated bodies.
func (g *grader) generatedChecks() []*check {
	var out []*check
	for _, t := range g.types {
		out = append(out, &check{id: "receiver.accepts.generated/" + t, category: CategoryAccepts, covers: []string{t}, rule: ruleSchema,
			doc: fmt.Sprintf("correctly signed %s deliveries generated from its schema (each enum value, each optional field absent and present, undeclared fields, %d bodies with values drawn from the seed: amounts at the bounds, text in every script) are each acknowledged", t, randomVariants),
			run: func(c *checkRun) { c.generated(t) }})
	}
	return out
}

// generated sends every generated body of type t, as many at once as the run's concurrency allows,
// and fails for each refused, describing the first maxReportedVariants.
func (c *checkRun) generated(t string) {
	seed := fmt.Sprintf("seed %d: --seed %d sends the same bodies", c.g.seed, c.g.seed)
	vs, err := c.g.variants(t)
	if err != nil {
		c.fail(fmt.Sprintf("cannot generate %s bodies from the document (%s): %v", t, seed, err), -1)
		return
	}
	var ds []delivery
	var whats []string
	var sentOf []int // the variant of each delivery
	for vi, v := range vs {
		ev := clone(v.event)
		stamp(ev, c.now())
		d := newDelivery(ev, c.now(), c.g.cfg.Secret)
		if viol := c.g.spec.ValidateWebhook(t, d.header, d.body); len(viol) > 0 {
			c.fail(fmt.Sprintf("the grader generated a %s body the document does not allow, %s (%s; %v): a defect of the grader, not of the receiver", t, v.what, seed, viol), -1)
			continue
		}
		ds, whats, sentOf = append(ds, d), append(whats, v.what), append(sentOf, vi)
	}
	refused, firstUnreported, tried := 0, -1, false
	for i, s := range c.sendAll(ds) {
		if !s.ok || s.a.acknowledged() {
			continue
		}
		refused++
		if refused <= maxReportedVariants || s.a.timeout {
			msg := fmt.Sprintf("a correctly signed %s delivery generated from the document, %s, got %s (%s); %s", t, whats[i], s.a, seed, c.fixFor(s.a))
			at := s.at
			if !tried && vs[sentOf[i]].design != nil {
				tried = true // the first refused body of a design is shrunk; the others are reported as sent
				if small, ok := c.shrink(t, vs[sentOf[i]], s.a); ok {
					msg, at = msg+"; "+small.String(), small.at
				}
			}
			c.fail(msg, at)
		} else if firstUnreported < 0 {
			firstUnreported = s.at
		}
	}
	if refused > maxReportedVariants {
		c.fail(fmt.Sprintf("%d more of the %d generated %s deliveries were not acknowledged, the first of them here (%s)", refused-maxReportedVariants, len(ds), t, seed), firstUnreported)
	}
}

// fixFor is what to do about a correctly signed delivery answered a: too late, not at all, or not 2xx.
func (c *checkRun) fixFor(a answer) string {
	switch {
	case a.timeout:
		return c.timeoutFix()
	case a.err != nil:
		return "the receiver must answer every delivery"
	}
	return c.acceptFix()
}
