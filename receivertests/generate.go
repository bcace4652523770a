package receivertests

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// variant is one generated event body: the example event of a type with some fields changed, and
// what was changed, for the failure message.
type variant struct {
	what  string
	event map[string]any
}

// randomVariants is how many bodies with drawn values the generated check sends per event type.
const randomVariants = 8

// generatedFieldName is the undeclared field the generated bodies add at each level of an event, as
// the document allows ("new fields can appear in any event and in its object").
const generatedFieldName = "x_malipo_generated"

// variants returns, for event type t, the bodies the generated check sends: each enum value of each
// field the example carries, each optional field absent and present (one at a time, then all at once),
// undeclared fields at every level, and randomVariants bodies whose values are drawn from the seed.
// The same seed and document give the same bodies (ids and times aside, which each delivery gets
// fresh). Every body is one the document allows; the check validates each before it sends it, and
// reports one the document refuses as a defect of the grader.
func (g *grader) variants(t string) ([]variant, error) {
	fields, err := eventFields(g.spec, t)
	if err != nil {
		return nil, err
	}
	base := g.payloads[t]
	rng := rand.New(rand.NewPCG(g.seed, typeSalt(t)))
	var out []variant
	add := func(what string, change func(ev map[string]any)) {
		ev := clone(base)
		change(ev)
		out = append(out, variant{what: what, event: ev})
	}
	var optional []field
	for _, f := range fields {
		if f.name() == "type" || f.object {
			continue
		}
		cur, present := get(base, f.path)
		if present {
			for _, v := range f.enum {
				if fmt.Sprint(v) != fmt.Sprint(cur) {
					add(fmt.Sprintf("%s = %v", f.name(), v), func(ev map[string]any) { set(ev, f.path, v) })
				}
			}
		}
		if f.required {
			continue
		}
		optional = append(optional, f)
		if present {
			add("without "+f.name(), func(ev map[string]any) { del(ev, f.path) })
		} else if v, ok := f.sample(); ok {
			add(fmt.Sprintf("with %s = %v", f.name(), v), func(ev map[string]any) { set(ev, f.path, v) })
		}
	}
	add("every optional field absent", func(ev map[string]any) {
		for _, f := range optional {
			del(ev, f.path)
		}
	})
	add("every optional field present", func(ev map[string]any) {
		for _, f := range optional {
			if _, ok := get(ev, f.path); !ok {
				if v, ok := f.sample(); ok {
					set(ev, f.path, v)
				}
			}
		}
	})
	// Undeclared fields where the document allows them ("new fields can appear in any event and in
	// its object"): at every level no branch closes with additionalProperties: false.
	var open []field
	for _, f := range fields {
		if f.object && !f.closed {
			open = append(open, f)
		}
	}
	if len(open) > 0 {
		names := make([]string, len(open))
		for i, f := range open {
			names[i] = cmp.Or(f.name(), "the event")
		}
		add("undeclared fields in "+strings.Join(names, ", "), func(ev map[string]any) {
			for _, f := range open {
				if obj, ok := get(ev, f.path); ok {
					if m, ok := obj.(map[string]any); ok {
						m[generatedFieldName] = map[string]any{"n": rng.IntN(1 << 10), "s": drawText(rng, 12), "a": []any{drawText(rng, 4)}}
					}
				}
			}
		})
	}
	// Every field the generators know at its smallest, then at its largest: the bounds are where a
	// receiver's types break (an amount in an int32, a narration in a VARCHAR(100)).
	for _, b := range []bound{lowest, highest} {
		ev := clone(base)
		var names []string
		for _, f := range fields {
			if f.object || f.name() == "type" || len(f.enum) > 0 {
				continue
			}
			if v, ok := f.draw(rng, b); ok {
				set(ev, f.path, v)
				names = append(names, f.name())
			}
		}
		what := map[bound]string{lowest: "smallest", highest: "largest"}[b]
		out = append(out, variant{what: fmt.Sprintf("every field the document bounds at its %s (%s)", what, strings.Join(names, ", ")), event: ev})
	}
	for i := range randomVariants {
		ev := clone(base)
		var drawn []string
		for _, f := range fields {
			if f.object || f.name() == "type" {
				continue
			}
			if !f.required && rng.IntN(2) == 0 {
				if _, ok := get(ev, f.path); ok {
					del(ev, f.path)
					drawn = append(drawn, "no "+f.name())
				}
				continue
			}
			v, ok := f.draw(rng, anyValue)
			if !ok {
				if _, present := get(ev, f.path); present || f.required {
					continue
				}
				if v, ok = f.sample(); !ok {
					continue
				}
			}
			set(ev, f.path, v)
			drawn = append(drawn, fmt.Sprintf("%s = %s", f.name(), short(v)))
		}
		out = append(out, variant{what: fmt.Sprintf("drawn body %d (%s)", i+1, strings.Join(drawn, ", ")), event: ev})
	}
	return out, nil
}

// typeSalt makes each event type's draws independent of which other types are selected.
func typeSalt(t string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(t))
	return h.Sum64()
}

// sample is the value an optional field gets when it is added: its first example, else its first
// enum value.
func (f field) sample() (any, bool) {
	if len(f.examples) > 0 {
		return f.examples[0], true
	}
	if len(f.enum) > 0 {
		return f.enum[0], true
	}
	return nil, false
}

// bound says which values draw picks: any (drawn), or the document's smallest or largest.
type bound int

const (
	anyValue bound = iota
	lowest
	highest
)

// draw picks a value for f: an enum field one of its values; a number or integer in the range its
// schema gives, on its multipleOf step; a string by the component it refers to (MerchantReference,
// PhoneNumber: their patterns' alphabets) or, for free text, any characters; at its length bounds.
// False for a field it has no generator for (ids, times, URLs: their example stays). Every value is
// one the document allows.
func (f field) draw(rng *rand.Rand, b bound) (any, bool) {
	pick := func(lo, hi int) int {
		switch b {
		case lowest:
			return lo
		case highest:
			return hi
		}
		return lo + rng.IntN(hi-lo+1)
	}
	if len(f.enum) > 0 {
		return f.enum[pick(0, len(f.enum)-1)], true
	}
	switch {
	case f.integer && f.ranged:
		lo, hi := int64(f.lo), int64(f.hi)
		n := map[bound]int64{lowest: lo, highest: hi}[b]
		if b == anyValue {
			n = lo + rng.Int64N(hi-lo+1)
		}
		return json.Number(strconv.FormatInt(n, 10)), true
	case f.number && f.ranged && f.step > 0:
		// Whole steps, divided rather than multiplied so that 150.55 is written 150.55.
		per := math.Round(1 / f.step)
		lo, hi := int64(math.Ceil(f.lo*per)), int64(math.Floor(f.hi*per))
		n := map[bound]int64{lowest: lo, highest: hi}[b]
		if b == anyValue {
			n = lo + rng.Int64N(hi-lo+1)
		}
		return float64(n) / per, true
	}
	switch f.component {
	case "MerchantReference": // ^[A-Za-z0-9][A-Za-z0-9_.:-]*$
		const first = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		const rest = first + "_.:-"
		n := pick(max(f.minLen, 1), max(f.maxLen, 1))
		out := []byte{first[rng.IntN(len(first))]}
		for len(out) < n {
			out = append(out, rest[rng.IntN(len(rest))])
		}
		return string(out), true
	case "PhoneNumber": // ^[1-9][0-9]{7,14}$
		n := pick(8, 15)
		out := []byte{byte('1' + rng.IntN(9))}
		for len(out) < n {
			out = append(out, byte('0'+rng.IntN(10)))
		}
		return string(out), true
	}
	if f.text {
		return drawText(rng, pick(max(f.minLen, 1), f.maxLen)), true
	}
	return nil, false
}

// textAlphabet is what drawn text is made of: ASCII, Latin letters precomposed and with a combining
// mark, right-to-left scripts, CJK, and characters outside the BMP. It leaves out <, > and & and the
// line separators U+2028 and U+2029, which Go's encoder escapes and JavaScript's does not: those are
// the raw-body checks' business, and a generated body must verify with a receiver that re-encodes the
// way the sender does.
var textAlphabet = []rune("abcXYZ019 -_.,:;'\"\\/()#@!?éèçñøßÆŒ" + "e\u0301a\u0308" + "مرحباשלום" + "日本語中文" + "😀𝄞𐍈🇿🇲")

// drawText is n characters (code points, as maxLength counts them) of textAlphabet.
func drawText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteRune(textAlphabet[rng.IntN(len(textAlphabet))])
	}
	return b.String()
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
	for _, v := range vs {
		ev := clone(v.event)
		ev["id"], ev["created_at"] = newEventID(), c.now().UTC().Format(time.RFC3339)
		d := newDelivery(ev, c.now(), c.g.cfg.Secret)
		if viol := c.g.spec.ValidateWebhook(t, d.header, d.body); len(viol) > 0 {
			c.fail(fmt.Sprintf("the grader generated a %s body the document does not allow, %s (%s; %v): a defect of the grader, not of the receiver", t, v.what, seed, viol), -1)
			continue
		}
		ds, whats = append(ds, d), append(whats, v.what)
	}
	refused, firstUnreported := 0, -1
	for i, s := range c.sendAll(ds) {
		if !s.ok || s.a.acknowledged() {
			continue
		}
		refused++
		if refused <= maxReportedVariants || s.a.timeout {
			c.fail(fmt.Sprintf("a correctly signed %s delivery generated from the document, %s, got %s (%s); %s", t, whats[i], s.a, seed, c.fixFor(s.a)), s.at)
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
