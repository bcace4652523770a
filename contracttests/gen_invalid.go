package contracttests

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"strings"
)

// invalidValue is a value the property's schema refuses, with the keyword it breaks (a JSON pointer
// suffix of the property's schema: "/pattern", "/maxLength").
type invalidValue struct {
	genValue
	keyword string
}

// invalids are the ways the generator breaks a property beyond the derived single mutations: a
// character its pattern refuses at a drawn place of a valid value, one character too many counted in
// code points (a server that counts bytes or UTF-16 units refuses valid text instead, which the valid
// cases catch), one step past each end, a value off the step by the smallest amount, JSON null, an
// enum value in other letter case, a list with a repeated item.
func (f *genField) invalids(r *rand.Rand) []invalidValue {
	var out []invalidValue
	add := func(v any, label, keyword string) {
		out = append(out, invalidValue{genValue{v, label}, keyword})
	}
	if f.role == roleRun && f.pattern == nil {
		return nil // a URL or an id of the run's; its format rules are the derived checks'
	}
	add(nil, "null", "/type")
	switch {
	case len(f.schema.Enum) > 0:
		if s, ok := f.cases[0].v.(string); ok {
			add(strings.ToUpper(s[:1])+s[1:]+" ", "an enum value in other case, with a space", "/enum")
		}
	case f.is("string"):
		lo, hi := f.lengthBounds()
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
	case f.is("integer"), f.is("number"):
		nr, ok := f.rangeOf()
		if !ok {
			break
		}
		below := new(big.Rat).Sub(nr.min, nr.step)
		add(decimal(below), "one step below the minimum", "/minimum")
		above := new(big.Rat).Add(numberRat(nr.at(nr.steps)), nr.step)
		add(decimal(above), "one step above the maximum", "/maximum")
		half := new(big.Rat).Quo(nr.step, big.NewRat(10, 1))
		// Off the step near the minimum: far up the range a double cannot hold the fraction (an integer
		// past 2^53 plus 0.1 parses as an integer), and the body would break nothing.
		near := new(big.Int).Add(big.NewInt(1), randBelow(r, big.NewInt(1000)))
		if near.Cmp(nr.steps) > 0 {
			near = new(big.Int).Set(nr.steps)
		}
		off := new(big.Rat).Add(numberRat(nr.at(near)), half)
		keyword := "/multipleOf"
		if f.is("integer") && f.schema.MultipleOf == nil {
			keyword = "/type"
		}
		add(decimal(off), "off its step by a tenth of it", keyword)
	case f.is("array"):
		if values := f.itemEnum(); len(values) > 0 && f.schema.UniqueItems != nil && *f.schema.UniqueItems {
			add([]any{values[0], values[0]}, "a repeated item", "/uniqueItems")
		}
	}
	return out
}

// numberRat is a JSON number as a rational; nil when it is not one.
func numberRat(n json.Number) *big.Rat {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return nil
	}
	return r
}

// refusedCharacters are the characters breakPattern tries: white space, punctuation and letters
// beyond ASCII, which patterns of ids and numbers most often refuse.
var refusedCharacters = []rune{' ', '#', 'é', '/', '😀', '\t', '+', '*', '"', '-', '_', 'a', '0'}

// breakPattern puts a character the pattern refuses at a drawn place of a value it allows, so that the
// value breaks only the pattern (its length stays).
func (f *genField) breakPattern(r *rand.Rand) (string, bool) {
	lo, hi := lengths(f.pattern.tree)
	if hi < 0 {
		hi = lo + 20
	}
	valid, ok := f.pattern.generate(r, lo+r.IntN(hi-lo+1), false, 0)
	if !ok || valid == "" {
		return "", false
	}
	runes := []rune(valid)
	for range 40 {
		at := r.IntN(len(runes))
		c := refusedCharacters[r.IntN(len(refusedCharacters))]
		bad := append(append(append([]rune{}, runes[:at]...), c), runes[at+1:]...)
		if s := string(bad); !f.pattern.match.MatchString(s) {
			return s, true
		}
	}
	return "", false
}
