package valuegen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"
)

// Valid values: what a field may hold, read from its schemas. Each field gets boundary cases (the
// ends of its length and range, each enum value, the whole alphabet of its pattern, text in other
// scripts), and a way to draw more at random.

// vouchedURL is a URL every rule of the document's URL schemas allows, with each character its query
// may hold.
const vouchedURL = "https://merchant.example.org/return/ok?order=1042&q=a~b!$'()*+,;=:@-._%20%C3%A9"

// HookQuery is a query of every character a URL's query may hold, for a caller that appends it to a
// URL of its own (the run's receiver), which the target must keep as sent.
const HookQuery = "?order=1042&q=a~b!$'()*+,;=:@-._%20%C3%A9"

// boundaries are the field's boundary cases; a fixed stream draws them, so that they are the same in
// every run.
func (f *Field) boundaries() []Value {
	r := rand.New(rand.NewPCG(0, 0))
	switch {
	case f.IsURL():
		out := []Value{{vouchedURL, "a URL with every character its query may hold"}}
		if f.pattern != nil && f.pattern.Match("") {
			out = append(out, Value{"", "the empty string"})
		}
		return out
	case f.c.enumerated:
		out := make([]Value, 0, len(f.c.enum))
		for _, v := range f.c.enum {
			out = append(out, Value{v, fmt.Sprintf("enum value %v", v)})
		}
		return out
	case f.Is("string"):
		return f.StringBoundaries(r)
	case f.Is("integer"), f.Is("number"):
		return f.numberBoundaries()
	case f.Is("boolean"):
		return []Value{{true, "true"}, {false, "false"}}
	case f.Is("array"):
		return f.arrayBoundaries()
	}
	return nil
}

// Extremes are the smallest and the largest value the field allows: a number's minimum and maximum,
// a string at its shortest and its longest (of its pattern's alphabet, or text of every script), the
// earliest and the latest date-time; false for a field without both ends (an enum, a boolean, a URL).
func (f *Field) Extremes() (smallest, largest Value, ok bool) {
	var ends []Value
	switch {
	case f.IsURL() || f.c.enumerated:
	case f.Is("string"):
		ends = f.stringExtremes(rand.New(rand.NewPCG(0, 0)))
	case f.Is("integer"), f.Is("number"):
		ends = f.numberExtremes()
	}
	ends = slices.DeleteFunc(ends, func(v Value) bool { return !f.drawable(v.V) })
	if len(ends) != 2 {
		return Value{}, Value{}, false
	}
	return ends[0], ends[1], true
}

// stringExtremes are a string's shortest and longest values (StringBoundaries' first), or none.
func (f *Field) stringExtremes(r *rand.Rand) []Value {
	switch {
	case f.c.format == "date-time" && f.pattern == nil:
		return dateTimes[:2]
	case f.c.format != "" && f.pattern == nil:
		return nil
	case f.pattern != nil:
		lo, hi := f.patternLengths()
		var out []Value
		for i, n := range []int{lo, hi} {
			if s, ok := f.pattern.Generate(r, n, true, i*hi); ok {
				out = append(out, Value{s, fmt.Sprintf("%d characters of its pattern's alphabet", n)})
			}
		}
		return out
	}
	lo, hi := f.textLengths()
	mixed := f.alphabet(mixedText)
	return []Value{
		{textOf(mixed, lo), fmt.Sprintf("minLength %d", lo)},
		{textOf(mixed, hi), fmt.Sprintf("maxLength %d characters of every script, %d UTF-16 units", hi, utf16Len(textOf(mixed, hi)))},
	}
}

// StringBoundaries are a string's boundary cases, drawn from r: a pattern's strings at the shortest
// and longest lengths, cycling through its alphabet; free text in every script the checks care about,
// then at the shortest and the longest; the date-times a format allows.
func (f *Field) StringBoundaries(r *rand.Rand) []Value {
	if f.c.format == "date-time" && f.pattern == nil {
		return dateTimes
	}
	if f.c.format != "" && f.pattern == nil {
		return nil // another format without a pattern (a URI) has no value the generator can vouch for
	}
	if f.pattern != nil {
		out := f.stringExtremes(r)
		// Enough strings at the longest length to hold every character of the pattern's alphabet.
		_, hi := f.patternLengths()
		for off := 2 * hi; off < f.pattern.alphabetSize()+hi && hi > 0; off += hi {
			if s, ok := f.pattern.Generate(r, hi, true, off); ok {
				out = append(out, Value{s, "the rest of its pattern's alphabet"})
			}
		}
		return out
	}
	lo, hi := f.textLengths()
	var out []Value
	for _, s := range scripts {
		out = append(out, Value{textOf(f.alphabet(s.runes), max(lo, min(hi, utf8.RuneCountInString(s.runes)))), s.label})
	}
	return append(out, f.stringExtremes(r)...)
}

// patternLengths are the shortest and the longest string the field's length bounds and its pattern
// allow together (the longest 40 past the shortest when neither bounds it).
func (f *Field) patternLengths() (lo, hi int) {
	lo, hi = f.LengthBounds()
	plo, phi := lengths(f.pattern.tree)
	if hi < 0 || (phi >= 0 && phi < hi) {
		hi = phi
	}
	if hi < 0 {
		hi = lo + 40
	}
	return max(lo, plo), hi
}

// textLengths are free text's shortest and longest length (64 when nothing bounds it).
func (f *Field) textLengths() (lo, hi int) {
	lo, hi = f.LengthBounds()
	if hi < 0 {
		hi = max(lo, 64)
	}
	return lo, hi
}

// dateTimes are the RFC 3339 date-times in UTC the generator sends: the earliest and the latest a
// four-digit year holds, one with nanoseconds, one at a leap day.
var dateTimes = []Value{
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

// alphabet is src without the characters to avoid.
func (f *Field) alphabet(src string) string { return f.opts.alphabet(src) }

func (o Options) alphabet(src string) string {
	if o.Avoid == "" {
		return src
	}
	return strings.Map(func(c rune) rune {
		if strings.ContainsRune(o.Avoid, c) {
			return -1
		}
		return c
	}, src)
}

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

// arrayBoundaries: for a list of enum values (an endpoint's events), the first value alone, the last
// alone, and every value.
func (f *Field) arrayBoundaries() []Value {
	values := f.c.itemEnum
	if len(values) == 0 {
		return nil
	}
	return []Value{
		{[]any{values[0]}, "one item"},
		{[]any{values[len(values)-1]}, "the last value"},
		{slices.Clone(values), "every value"},
	}
}

// Random draws a valid value of the field at random; false when it can take no value but its cases'.
func (f *Field) Random(r *rand.Rand) (Value, bool) {
	v, ok := f.random(r)
	return v, ok && f.drawable(v.V)
}

func (f *Field) random(r *rand.Rand) (Value, bool) {
	switch {
	case f.IsURL(), f.c.enumerated, f.Is("boolean"):
		if len(f.Cases) == 0 {
			return Value{}, false
		}
		return f.Cases[r.IntN(len(f.Cases))], true
	case f.Is("string"):
		return f.randomString(r)
	case f.Is("integer"), f.Is("number"):
		nr, ok := f.rangeOf()
		if !ok {
			return Value{}, false
		}
		return Value{nr.random(r), "random"}, true
	case f.Is("array"):
		values := f.c.itemEnum
		if len(values) == 0 {
			return Value{}, false
		}
		picked := slices.Clone(values)
		r.Shuffle(len(picked), func(i, j int) { picked[i], picked[j] = picked[j], picked[i] })
		return Value{picked[:1+r.IntN(len(picked))], "random subset"}, true
	}
	return Value{}, false
}

// randomString draws a string of a random length: of its pattern's alphabet, a date-time, or text of
// every script.
func (f *Field) randomString(r *rand.Rand) (Value, bool) {
	if f.pattern != nil {
		lo, hi := f.patternLengths()
		s, ok := f.pattern.Generate(r, lo+r.IntN(hi-lo+1), false, 0)
		return Value{s, "random, pattern"}, ok
	}
	if f.c.format == "date-time" {
		return dateTimes[r.IntN(len(dateTimes))], true
	}
	if f.c.format != "" {
		return Value{}, false
	}
	lo, hi := f.textLengths()
	return Value{f.opts.RandomText(r, lo+r.IntN(hi-lo+1)), "random text"}, true
}

// RandomText draws n characters from every script, leaving out the characters to avoid.
func (o Options) RandomText(r *rand.Rand, n int) string {
	var pool []rune
	for _, s := range scripts {
		for _, c := range o.alphabet(s.runes) {
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
