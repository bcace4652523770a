package valuegen

import (
	"math/big"
	"math/rand/v2"
	"strings"
)

// Invalid is a value the field's schema refuses, with the keyword it breaks (a JSON pointer suffix of
// the field's schema: "/pattern", "/maxLength").
type Invalid struct {
	Value
	Keyword string
}

// Invalids are the ways the generator breaks a field beyond single derived mutations: a character its
// pattern refuses at a drawn place of a valid value, one character too many counted in code points (a
// server that counts bytes or UTF-16 units refuses valid text instead, which the valid cases catch),
// one step past each end, a value off the step by the smallest amount, JSON null, an enum value in
// other letter case, a list with a repeated item.
func (f *Field) Invalids(r *rand.Rand) []Invalid {
	var out []Invalid
	add := func(v any, label, keyword string) {
		out = append(out, Invalid{Value{v, label}, keyword})
	}
	add(nil, "null", "/type")
	switch {
	case f.c.enumerated:
		if len(f.Cases) == 0 {
			break
		}
		if s, ok := f.Cases[0].V.(string); ok {
			add(strings.ToUpper(s[:1])+s[1:]+" ", "an enum value in other case, with a space", "/enum")
		}
	case f.Is("string"):
		lo, hi := f.LengthBounds()
		if hi >= 0 {
			add(textOf(mixedText, hi+1), "maxLength + 1 characters, of every script", "/maxLength")
		}
		if lo > 0 {
			add(textOf("a", lo-1), "minLength − 1", "/minLength")
		}
		if f.pattern != nil {
			if s, ok := f.breakPattern(r); ok {
				add(s, "a character its pattern refuses", "/pattern")
			}
		}
	case f.Is("integer"), f.Is("number"):
		out = append(out, f.invalidNumbers(r)...)
	case f.Is("array"):
		if values := f.c.itemEnum; len(values) > 0 && f.c.uniqueItems {
			add([]any{values[0], values[0]}, "a repeated item", "/uniqueItems")
		}
	}
	return out
}

// invalidNumbers are one step below the minimum, one above the maximum, and a value off the step.
func (f *Field) invalidNumbers(r *rand.Rand) []Invalid {
	nr, ok := f.rangeOf()
	if !ok {
		return nil
	}
	below := new(big.Rat).Sub(nr.min, nr.step)
	above := new(big.Rat).Add(numberRat(nr.at(nr.steps)), nr.step)
	half := new(big.Rat).Quo(nr.step, big.NewRat(10, 1))
	// Off the step near the minimum: far up the range a double cannot hold the fraction (an integer
	// past 2^53 plus 0.1 parses as an integer), and the body would break nothing.
	near := new(big.Int).Add(big.NewInt(1), randBelow(r, big.NewInt(offStepSpan)))
	if near.Cmp(nr.steps) > 0 {
		near = new(big.Int).Set(nr.steps)
	}
	off := new(big.Rat).Add(numberRat(nr.at(near)), half)
	keyword := "/multipleOf"
	if f.Is("integer") && f.c.multipleOf == nil {
		keyword = "/type"
	}
	return []Invalid{
		{Value{decimal(below), "one step below the minimum"}, "/minimum"},
		{Value{decimal(above), "one step above the maximum"}, "/maximum"},
		{Value{decimal(off), "off its step by a tenth of it"}, keyword},
	}
}

// offStepSpan is how many steps above the minimum an off-step value is drawn from: few enough that a
// double holds the fraction of any of them.
const offStepSpan = 100

// refusedCharacters are the characters breakPattern tries: white space, punctuation and letters
// beyond ASCII, which patterns of ids and numbers most often refuse.
var refusedCharacters = []rune{' ', '#', 'é', '/', '😀', '\t', '+', '*', '"', '-', '_', 'a', '0'}

// breakPattern puts a character the pattern refuses at a drawn place of a value it allows, so that the
// value breaks only the pattern (its length stays).
func (f *Field) breakPattern(r *rand.Rand) (string, bool) {
	lo, hi := lengths(f.pattern.tree)
	if hi < 0 {
		hi = lo + 20
	}
	valid, ok := f.pattern.Generate(r, lo+r.IntN(hi-lo+1), false, 0)
	if !ok || valid == "" {
		return "", false
	}
	runes := []rune(valid)
	for range 40 {
		at := r.IntN(len(runes))
		c := refusedCharacters[r.IntN(len(refusedCharacters))]
		bad := append(append(append([]rune{}, runes[:at]...), c), runes[at+1:]...)
		if s := string(bad); !f.pattern.Match(s) {
			return s, true
		}
	}
	return "", false
}
