package valuegen

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Numbers are exact decimals: a range is read as the decimals the document wrote, every value is a
// whole number of steps (multipleOf) above the minimum, and each is sent as the shortest decimal text,
// a json.Number, never a float.

// numberRange is a number's range on a grid: the smallest value, the step (its multipleOf, or 1 for
// an integer), and how many steps the largest is above the smallest.
type numberRange struct {
	min   *big.Rat
	step  *big.Rat
	steps *big.Int
}

// rangeOf reads a number's or integer's bounds; ok is false when the schema leaves one end open.
func (f *Field) rangeOf() (numberRange, bool) {
	c := f.c
	step := new(big.Rat).SetInt64(1)
	if c.multipleOf != nil {
		step = ratOf(*c.multipleOf)
	}
	var lo *big.Rat
	switch {
	case c.minimum != nil:
		lo = ratOf(*c.minimum)
	case c.exclusiveMinimum != nil:
		lo = new(big.Rat).Add(ratOf(*c.exclusiveMinimum), step)
	default:
		return numberRange{}, false
	}
	if c.maximum == nil {
		return numberRange{}, false
	}
	// Round the minimum up onto the grid of multipleOf.
	k := new(big.Rat).Quo(lo, step)
	kInt := new(big.Int).Quo(k.Num(), k.Denom())
	if !k.IsInt() && k.Sign() > 0 {
		kInt.Add(kInt, big.NewInt(1))
	}
	lo = new(big.Rat).Mul(new(big.Rat).SetInt(kInt), step)
	span := new(big.Rat).Quo(new(big.Rat).Sub(ratOf(*c.maximum), lo), step)
	steps := new(big.Int).Quo(span.Num(), span.Denom())
	return numberRange{min: lo, step: step, steps: steps}, true
}

// Range is the field's range as exact decimals: its smallest value, its largest, and its step; false
// when the schema leaves an end open.
func (f *Field) Range() (lo, hi, step json.Number, ok bool) {
	nr, ok := f.rangeOf()
	if !ok {
		return "", "", "", false
	}
	return nr.at(big.NewInt(0)), nr.at(nr.steps), decimal(nr.step), true
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

// numberRat is a JSON number as a rational; nil when it is not one.
func numberRat(n json.Number) *big.Rat {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return nil
	}
	return r
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

// numberExtremes are the minimum and the maximum, or none when an end is open.
func (f *Field) numberExtremes() []Value {
	nr, ok := f.rangeOf()
	if !ok {
		return nil
	}
	return []Value{{nr.at(big.NewInt(0)), "minimum"}, {nr.at(nr.steps), "maximum"}}
}

// numberBoundaries: the minimum and maximum, the largest value with two decimals a double carries
// exactly, 2^31 and 2^32 (where 32-bit integers end), and values with every number of decimals the
// step allows.
func (f *Field) numberBoundaries() []Value {
	nr, ok := f.rangeOf()
	if !ok {
		return nil
	}
	out := f.numberExtremes()
	below := new(big.Int).Sub(nr.steps, big.NewInt(1))
	if below.Sign() > 0 {
		out = append(out, Value{nr.at(below), "one step below the maximum"})
	}
	for _, edge := range []float64{math.MaxInt32 + 1, math.MaxUint32 + 2} {
		if k, ok := nr.stepsOf(json.Number(strconv.FormatFloat(edge, 'f', -1, 64))); ok && k.Sign() > 0 && k.Cmp(nr.steps) <= 0 {
			out = append(out, Value{nr.at(k), "past the 32-bit integers"})
		}
	}
	if !nr.step.IsInt() {
		for _, cents := range []string{"150.55", "2188118558.01", "0.1", "999999999999.99", "42"} {
			if k, ok := nr.stepsOf(json.Number(cents)); ok && k.Cmp(nr.steps) <= 0 {
				out = append(out, Value{nr.at(k), "decimal " + cents})
			}
		}
	}
	return out
}

// random draws a value of the range, its magnitude spread evenly over the decades so that small and
// large amounts are both drawn.
func (nr numberRange) random(r *rand.Rand) json.Number {
	digits := len(nr.steps.String())
	d := 1 + r.IntN(digits)
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil)
	if limit.Cmp(nr.steps) > 0 {
		limit = new(big.Int).Add(nr.steps, big.NewInt(1))
	}
	return nr.at(randBelow(r, limit))
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
