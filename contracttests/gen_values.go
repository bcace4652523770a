package contracttests

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// Generated values: what a request body's property may hold, read from its schema. Each property of a
// body gets boundary cases (the ends of its length and range, each enum value, the whole alphabet of
// its pattern, text in other scripts), a way to draw more at random, and a simplest value for
// shrinking; invalid values break it in ways no single derived mutation does.

// genValue is one value a property can take, with what it exercises, for reports.
type genValue struct {
	v     any // a JSON value: string, json.Number, bool, []any; nil only for "absent"
	label string
}

// fieldRole says where a property's value comes from.
type fieldRole int

const (
	// roleGenerated: from its schema.
	roleGenerated fieldRole = iota
	// roleRun: the run decides it (reference data, the run's receiver, an object of the target's):
	// bodyInputs gives it.
	roleRun
	// roleTestValue: a customer or payee number, whose value picks the outcome (x-malipo-test-values):
	// each test value of its kind, then numbers its pattern allows, which succeed.
	roleTestValue
	// roleUnique: the merchant reference, which must be unique among the merchant's objects.
	roleUnique
	// roleURL: a URL the target keeps but does not call (a payment's redirect_url). Its pattern is not
	// the whole rule (the URL must also parse with a host), so the generator sends URLs it can vouch for:
	// the empty string where allowed, and a URL with every character a query may hold.
	roleURL
)

// vouchedURL is a URL every rule of WebhookURL allows, with each character its query may hold.
const vouchedURL = "https://merchant.example.org/return/ok?order=1042&q=a~b!$'()*+,;=:@-._%20%C3%A9"

// hookQuery is what half of the generated bodies append to the run's receiver URL: a query of every
// character the URL pattern allows there, which the target must keep as sent.
const hookQuery = "?order=1042&q=a~b!$'()*+,;=:@-._%20%C3%A9"

// runFields are the properties whose value the run decides (see bodyInputs), in every body: a
// generated country id or bank id names nothing on the target, a generated URL nothing of the run's.
var runFields = map[string]bool{"countryId": true, "bank_id": true, "webhook_url": true, "url": true, "endpoint_id": true}

// testValueFields maps the properties that choose an outcome to their kind of test value.
var testValueFields = map[string]openapi.TestValueKind{
	"phone_number":      openapi.TestValuePayments,
	"momo_phone_number": openapi.TestValueMobilePayouts,
	"account_number":    openapi.TestValueBankPayouts,
}

// genField is one property of a request body as the generator sees it.
type genField struct {
	name string
	// in is where a parameter goes ("path", "query"); empty for a body property.
	in       string
	required bool
	role     fieldRole
	schema   *base.Schema
	// location is the property's schema in the document (the component its $ref names), which a
	// refused invalid value's Rule points at.
	location string
	// cases are the boundary values, in the order the first requests take them.
	cases []genValue
	// simplest is the value shrinking tries first: the document's example, else the first case.
	simplest any
	// pattern writes strings its pattern allows; nil without one.
	pattern *patternGen
}

// genFields reads the properties of a request body's schema.
func genFields(sch *base.Schema, loc string, tv openapi.TestValues) []*genField {
	required := map[string]bool{}
	for _, r := range sch.Required {
		required[r] = true
	}
	var out []*genField
	for name, proxy := range sch.Properties.FromOldest() {
		prop := proxy.Schema()
		if prop == nil {
			continue
		}
		f := &genField{name: name, required: required[name], schema: prop, location: propertyLocation(sch, loc, name)}
		switch {
		case runFields[name]:
			f.role = roleRun
		case name == "reference":
			f.role = roleUnique
		case testValueFields[name] != "":
			f.role = roleTestValue
		case prop.Format == "uri" || strings.Contains(prop.Pattern, "https?://"):
			f.role = roleURL
		}
		if prop.Pattern != "" {
			f.pattern, _ = newPatternGen(prop.Pattern)
		}
		f.cases = f.boundaries(tv)
		f.simplest = f.example()
		if f.simplest == nil && len(f.cases) > 0 {
			f.simplest = f.cases[0].v
		}
		out = append(out, f)
	}
	return out
}

// example is the property's first example in the document, as JSON, or nil.
func (f *genField) example() any {
	for _, n := range append(slices.Clone(f.schema.Examples), f.schema.Example) {
		if n == nil {
			continue
		}
		var v any
		if n.Decode(&v) == nil && v != nil {
			return wireValue(v)
		}
	}
	return nil
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

func (f *genField) is(typ string) bool { return slices.Contains(f.schema.Type, typ) }

// boundaries are the property's boundary cases.
func (f *genField) boundaries(tv openapi.TestValues) []genValue {
	r := rand.New(rand.NewPCG(0, 0)) // fixed: the boundary cases are the same in every run
	switch {
	case f.role == roleRun:
		return nil
	case f.role == roleURL:
		out := []genValue{{vouchedURL, "a URL with every character its query may hold"}}
		if f.pattern != nil && f.pattern.match.MatchString("") {
			out = append(out, genValue{"", "the empty string"})
		}
		return out
	case f.role == roleTestValue:
		var out []genValue
		for _, v := range tv.Entries(testValueFields[f.name]) {
			out = append(out, genValue{v.Input, "test value " + v.Input + " (" + describe(v.Outcome) + ")"})
		}
		return append(out, f.stringBoundaries(r)...)
	case len(f.schema.Enum) > 0:
		var out []genValue
		for _, n := range f.schema.Enum {
			var v any
			if n.Decode(&v) == nil {
				out = append(out, genValue{wireValue(v), fmt.Sprintf("enum value %v", v)})
			}
		}
		return out
	case f.is("string"):
		return f.stringBoundaries(r)
	case f.is("integer"), f.is("number"):
		return f.numberBoundaries()
	case f.is("boolean"):
		return []genValue{{true, "true"}, {false, "false"}}
	case f.is("array"):
		return f.arrayBoundaries()
	}
	return nil
}

// lengthBounds are a string's minLength and maxLength (max -1: none).
func (f *genField) lengthBounds() (lo, hi int) {
	hi = -1
	if f.schema.MinLength != nil {
		lo = int(*f.schema.MinLength)
	}
	if f.schema.MaxLength != nil {
		hi = int(*f.schema.MaxLength)
	}
	return lo, hi
}

// stringBoundaries: a pattern's strings at the shortest and longest lengths, cycling through its
// alphabet; free text in every script the checks care about, at the shortest and the longest.
func (f *genField) stringBoundaries(r *rand.Rand) []genValue {
	lo, hi := f.lengthBounds()
	if f.schema.Format == "date-time" && f.pattern == nil {
		return dateTimes
	}
	if f.schema.Format != "" && f.pattern == nil {
		return nil // another format without a pattern (a URI) has no value the generator can vouch for
	}
	if f.pattern != nil {
		if _, phi := lengths(f.pattern.tree); hi < 0 || (phi >= 0 && phi < hi) {
			hi = phi
		}
		if hi < 0 {
			hi = lo + 40
		}
		lo = max(lo, func() int { l, _ := lengths(f.pattern.tree); return l }())
		var out []genValue
		for i, n := range []int{lo, hi} {
			if s, ok := f.pattern.generate(r, n, true, i*hi); ok {
				out = append(out, genValue{s, fmt.Sprintf("%d characters of its pattern's alphabet", n)})
			}
		}
		// Enough strings at the longest length to hold every character of the pattern's alphabet.
		for off := 2 * hi; off < f.pattern.alphabetSize()+hi && hi > 0; off += hi {
			if s, ok := f.pattern.generate(r, hi, true, off); ok {
				out = append(out, genValue{s, "the rest of its pattern's alphabet"})
			}
		}
		return out
	}
	if hi < 0 {
		hi = max(lo, 64)
	}
	var out []genValue
	for _, s := range scripts {
		out = append(out, genValue{textOf(s.runes, max(lo, min(hi, utf8.RuneCountInString(s.runes)))), s.label})
	}
	out = append(out, genValue{textOf(mixedText, lo), fmt.Sprintf("minLength %d", lo)})
	out = append(out, genValue{textOf(mixedText, hi), fmt.Sprintf("maxLength %d characters of every script, %d UTF-16 units", hi, utf16Len(textOf(mixedText, hi)))})
	return out
}

// dateTimes are the RFC 3339 date-times in UTC the generator sends: the earliest and the latest a
// four-digit year holds, one with nanoseconds, one at a leap day.
var dateTimes = []genValue{
	{"1970-01-01T00:00:00Z", "the Unix epoch"},
	{"9999-12-31T23:59:59Z", "the latest four-digit date-time"},
	{"2026-11-21T10:15:00.123456789Z", "nanoseconds"},
	{"2028-02-29T23:59:59.5Z", "a leap day, half a second"},
}

// scripts are the free-text cases: the characters that break code which counts bytes or UTF-16
// units, normalizes, or assumes left-to-right ASCII.
var scripts = []struct{ label, runes string }{
	{"non-ASCII Latin letters", "Café Lusaka – reçu n°12 ñ ü ß"},
	{"combining marks (e + U+0301, not normalized)", "Cafe\u0301 Lusaka a\u0308o\u0308"},
	{"characters outside the BMP (surrogate pairs in UTF-16)", "Order 😀 𝄞 𠜎 👩‍👩‍👧"},
	{"right-to-left script", "دفع الطلب ١٠٤٢ תשלום"},
	{"JSON and HTML metacharacters", `Order "1042" \ <b>&amp;</b> 'x'`},
}

// mixedText holds a character of every script, for the texts at a length bound.
const mixedText = "Aé😀دe\u0301𠜎ש<\"\\ z"

// textOf repeats src's characters to n characters (code points, as JSON Schema counts them), ending
// on a character that is not a combining mark so that the count is what a reader sees too.
func textOf(src string, n int) string {
	runes := []rune(src)
	out := make([]rune, 0, n)
	for i := 0; len(out) < n; i++ {
		out = append(out, runes[i%len(runes)])
	}
	return string(out)
}

// utf16Len is s's length in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, c := range s {
		n++
		if c > 0xFFFF {
			n++
		}
	}
	return n
}

// numberRange is a number's range on a grid: the smallest value, the step (its multipleOf, or 1 for
// an integer), and how many steps the largest is above the smallest.
type numberRange struct {
	min   *big.Rat
	step  *big.Rat
	steps *big.Int
}

// rangeOf reads a number's or integer's bounds; ok is false when the schema leaves one end open.
func (f *genField) rangeOf() (numberRange, bool) {
	s := f.schema
	step := new(big.Rat).SetInt64(1)
	if s.MultipleOf != nil {
		step = ratOf(*s.MultipleOf)
	}
	var lo *big.Rat
	switch {
	case s.Minimum != nil:
		lo = ratOf(*s.Minimum)
	case s.ExclusiveMinimum != nil && s.ExclusiveMinimum.IsB():
		lo = new(big.Rat).Add(ratOf(s.ExclusiveMinimum.B), step)
	default:
		return numberRange{}, false
	}
	if s.Maximum == nil {
		return numberRange{}, false
	}
	// Round the minimum up onto the grid of multipleOf.
	k := new(big.Rat).Quo(lo, step)
	kInt := new(big.Int).Quo(k.Num(), k.Denom())
	if !k.IsInt() && k.Sign() > 0 {
		kInt.Add(kInt, big.NewInt(1))
	}
	lo = new(big.Rat).Mul(new(big.Rat).SetInt(kInt), step)
	span := new(big.Rat).Quo(new(big.Rat).Sub(ratOf(*s.Maximum), lo), step)
	steps := new(big.Int).Quo(span.Num(), span.Denom())
	return numberRange{min: lo, step: step, steps: steps}, true
}

// ratOf is the decimal a float64 of the document was written as (0.01, not its binary neighbour).
func ratOf(f float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'f', -1, 64))
	return r
}

// at is the value k steps above the minimum, as the shortest decimal.
func (nr numberRange) at(k *big.Int) json.Number {
	v := new(big.Rat).Add(nr.min, new(big.Rat).Mul(new(big.Rat).SetInt(k), nr.step))
	return decimal(v)
}

// decimal writes a rational with a finite decimal expansion as the shortest decimal text.
func decimal(v *big.Rat) json.Number {
	s := v.FloatString(12)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return json.Number(s)
}

// stepsOf is how many steps above the minimum v is.
func (nr numberRange) stepsOf(v json.Number) (*big.Int, bool) {
	r := numberRat(v)
	if r == nil {
		return nil, false
	}
	k := new(big.Rat).Quo(new(big.Rat).Sub(r, nr.min), nr.step)
	if !k.IsInt() {
		return nil, false
	}
	return new(big.Int).Set(k.Num()), true
}

// numberBoundaries: the minimum and maximum, the largest value with two decimals a double carries
// exactly, 2^31 and 2^32 (where 32-bit integers end), and values with every number of decimals the
// step allows.
func (f *genField) numberBoundaries() []genValue {
	nr, ok := f.rangeOf()
	if !ok {
		return nil
	}
	out := []genValue{{nr.at(big.NewInt(0)), "minimum"}, {nr.at(nr.steps), "maximum"}}
	below := new(big.Int).Sub(nr.steps, big.NewInt(1))
	if below.Sign() > 0 {
		out = append(out, genValue{nr.at(below), "one step below the maximum"})
	}
	for _, edge := range []float64{math.MaxInt32 + 1, math.MaxUint32 + 2} {
		if k, ok := nr.stepsOf(json.Number(strconv.FormatFloat(edge, 'f', -1, 64))); ok && k.Sign() > 0 && k.Cmp(nr.steps) <= 0 {
			out = append(out, genValue{nr.at(k), "past the 32-bit integers"})
		}
	}
	if !nr.step.IsInt() {
		for _, cents := range []string{"150.55", "2188118558.01", "0.1", "999999999999.99", "42"} {
			if k, ok := nr.stepsOf(json.Number(cents)); ok && k.Cmp(nr.steps) <= 0 {
				out = append(out, genValue{nr.at(k), "decimal " + cents})
			}
		}
	}
	return out
}

// randomNumber draws a value of the range, its magnitude spread evenly over the decades so that
// small and large amounts are both drawn.
func (nr numberRange) random(r *rand.Rand) json.Number {
	digits := len(nr.steps.String())
	d := 1 + r.IntN(digits)
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil)
	if limit.Cmp(nr.steps) > 0 {
		limit = new(big.Int).Add(nr.steps, big.NewInt(1))
	}
	return nr.at(randBelow(r, limit))
}

// arrayBoundaries: for a list of enum values (an endpoint's events), the first value alone, the last
// alone, and every value.
func (f *genField) arrayBoundaries() []genValue {
	values := f.itemEnum()
	if len(values) == 0 {
		return nil
	}
	return []genValue{
		{[]any{values[0]}, "one item"},
		{[]any{values[len(values)-1]}, "the last value"},
		{slices.Clone(values), "every value"},
	}
}

// itemEnum is an array's item enum values, or nil.
func (f *genField) itemEnum() []any {
	if f.schema.Items == nil || !f.schema.Items.IsA() {
		return nil
	}
	item := f.schema.Items.A.Schema()
	if item == nil {
		return nil
	}
	var out []any
	for _, n := range item.Enum {
		var v any
		if n.Decode(&v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// random draws a valid value of the property at random (nil when it can only take its cases).
func (f *genField) random(r *rand.Rand) (genValue, bool) {
	switch {
	case f.role == roleRun:
		return genValue{}, false
	case f.role == roleURL:
		return f.cases[r.IntN(len(f.cases))], true
	case f.role == roleTestValue && r.IntN(2) == 0 && len(f.cases) > 0:
		return f.cases[r.IntN(len(f.cases))], true
	case len(f.schema.Enum) > 0, f.is("boolean"):
		if len(f.cases) == 0 {
			return genValue{}, false
		}
		return f.cases[r.IntN(len(f.cases))], true
	case f.is("string"):
		lo, hi := f.lengthBounds()
		if f.pattern != nil {
			plo, phi := lengths(f.pattern.tree)
			lo = max(lo, plo)
			if hi < 0 || (phi >= 0 && phi < hi) {
				hi = phi
			}
			if hi < 0 {
				hi = lo + 40
			}
			n := lo + r.IntN(hi-lo+1)
			s, ok := f.pattern.generate(r, n, false, 0)
			return genValue{s, "random, pattern"}, ok
		}
		if f.schema.Format == "date-time" {
			return dateTimes[r.IntN(len(dateTimes))], true
		}
		if f.schema.Format != "" {
			return genValue{}, false
		}
		if hi < 0 {
			hi = max(lo, 64)
		}
		n := lo + r.IntN(hi-lo+1)
		return genValue{randomText(r, n), "random text"}, true
	case f.is("integer"), f.is("number"):
		nr, ok := f.rangeOf()
		if !ok {
			return genValue{}, false
		}
		return genValue{nr.random(r), "random"}, true
	case f.is("array"):
		values := f.itemEnum()
		if len(values) == 0 {
			return genValue{}, false
		}
		picked := slices.Clone(values)
		r.Shuffle(len(picked), func(i, j int) { picked[i], picked[j] = picked[j], picked[i] })
		return genValue{picked[:1+r.IntN(len(picked))], "random subset"}, true
	}
	return genValue{}, false
}

// randomText draws n characters from every script.
func randomText(r *rand.Rand, n int) string {
	var pool []rune
	for _, s := range scripts {
		for _, c := range s.runes {
			if c < 0x300 || c > 0x36F { // no combining mark alone, which would join the previous draw
				pool = append(pool, c)
			}
		}
	}
	out := make([]rune, n)
	for i := range out {
		out[i] = pool[r.IntN(len(pool))]
	}
	return string(out)
}

// randBelow draws an integer in [0, limit) from a seeded stream (math/big draws only from math/rand's
// first version).
func randBelow(r *rand.Rand, limit *big.Int) *big.Int {
	buf := make([]byte, len(limit.Bytes())+8)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(buf), limit)
}
