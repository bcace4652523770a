package valuegen

import (
	"encoding/json"
	"maps"
	"math/big"
	"strings"
)

// Design is what a seed decides of one generated object: each field's value and which optional fields
// are left out; for an invalid object, the field it breaks and the keyword.
type Design struct {
	Values map[string]Value
	Absent map[string]bool
	// Broken names the field an invalid object breaks, and Keyword how.
	Broken  string
	Keyword string
}

// NewDesign is an empty design.
func NewDesign() Design {
	return Design{Values: map[string]Value{}, Absent: map[string]bool{}}
}

// Clone copies d, so that a change to the copy leaves d as it is.
func (d Design) Clone() Design {
	c := d
	c.Values, c.Absent = maps.Clone(d.Values), maps.Clone(d.Absent)
	if c.Values == nil {
		c.Values = map[string]Value{}
	}
	if c.Absent == nil {
		c.Absent = map[string]bool{}
	}
	return c
}

// Present counts the fields a design sends.
func (d Design) Present(fields []*Field) int {
	n := 0
	for _, f := range fields {
		if !d.Absent[f.Name] {
			n++
		}
	}
	return n
}

// Shrinker makes a failing design as small and plain as it can while it still fails in the same way,
// so that a report shows the input that matters: optional fields dropped, each value replaced by its
// simplest (the document's example), text cut to its shortest failing prefix and its characters made
// plain, numbers moved down toward the minimum. Every candidate is a design the schema allows (or, for
// an invalid one, that breaks the same field).
type Shrinker struct {
	Fields []*Field
	// Fixed names the fields whose value the caller decides (reference data, a URL of its own):
	// shrinking may leave them out, never change them.
	Fixed map[string]bool
	// MinProperties is how many fields the object must keep.
	MinProperties int
	// Involved names the fields the failure is about: shrunk first, since the candidates may run out
	// before the others are done.
	Involved map[string]bool
	// Fails tries a candidate and reports whether it fails in the same way; Shrink keeps those that do.
	Fails func(d Design) bool
	// More reports whether another candidate may be tried.
	More func() bool
	// KeepSimplest leaves a field at its simplest value as it is: only the values that could not be
	// set to their simplest are cut and moved down, so that a failure is described as what differs
	// from the document's example (the receiver grader's bodies, each a change of an example event).
	KeepSimplest bool

	best Design
}

// Shrink returns the smallest design found that fails as d does.
func (s *Shrinker) Shrink(d Design) Design {
	s.best = d
	for _, f := range s.Fields {
		if !f.Required && f.Name != d.Broken && !s.best.Absent[f.Name] && s.best.Present(s.Fields) > s.MinProperties {
			s.try(func(d *Design) { d.Absent[f.Name] = true })
		}
	}
	for _, f := range s.changeable() {
		if v, ok := s.best.Values[f.Name]; ok && f.Simplest != nil && !sameJSON(v.V, f.Simplest) {
			s.try(func(d *Design) { d.Values[f.Name] = Value{f.Simplest, "the document's example"} })
		}
	}
	for _, first := range []bool{true, false} {
		for _, f := range s.changeable() {
			if s.Involved[f.Name] != first || s.KeepSimplest && f.Simplest != nil && sameJSON(s.best.Values[f.Name].V, f.Simplest) {
				continue
			}
			switch v := s.best.Values[f.Name].V.(type) {
			case string:
				s.text(f, v)
			case json.Number:
				s.number(f, v)
			}
		}
	}
	return s.best
}

// changeable are the fields whose values shrinking may change: sent, not broken, not fixed.
func (s *Shrinker) changeable() []*Field {
	var out []*Field
	for _, f := range s.Fields {
		if f.Name != s.best.Broken && !s.Fixed[f.Name] && !s.best.Absent[f.Name] {
			out = append(out, f)
		}
	}
	return out
}

// try tries the best design with change applied and keeps it when it fails the same way.
func (s *Shrinker) try(change func(d *Design)) bool {
	if !s.More() {
		return false
	}
	d := s.best.Clone()
	change(&d)
	if !s.Fails(d) {
		return false
	}
	s.best = d
	return true
}

// setText tries the field with text v, when the schema allows it.
func (s *Shrinker) setText(f *Field, v string) bool {
	if !f.AllowsText(v) {
		return false
	}
	return s.try(func(d *Design) { d.Values[f.Name] = Value{v, "shrunk"} })
}

// text shrinks a string: the shortest failing prefix (a binary search), then its characters made
// plain a block at a time, then, unless it is all plain by then, blocks removed.
func (s *Shrinker) text(f *Field, v string) {
	runes := []rune(v)
	lo, hi := 0, len(runes)
	for lo < hi && s.More() {
		mid := (lo + hi) / 2
		if s.setText(f, string(runes[:mid])) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	runes = []rune(s.best.Values[f.Name].V.(string))
	plain := f.plainRune()
	for size := len(runes); size >= 1 && s.More(); size /= 2 {
		for start := 0; start < len(runes) && s.More(); start += size {
			end := min(start+size, len(runes))
			if strings.Count(string(runes[start:end]), string(plain)) == end-start {
				continue
			}
			cand := append([]rune{}, runes...)
			for i := start; i < end; i++ {
				cand[i] = plain
			}
			if s.setText(f, string(cand)) {
				runes = cand
			}
		}
	}
	if strings.Count(string(runes), string(plain)) == len(runes) {
		return // removing a block of plain text is cutting a prefix, which the search above has done
	}
	for size := len(runes) / 2; size >= 1 && s.More(); size /= 2 {
		for start := 0; start+size <= len(runes) && s.More(); {
			cand := append(append([]rune{}, runes[:start]...), runes[start+size:]...)
			if s.setText(f, string(cand)) {
				runes = cand
			} else {
				start += size
			}
		}
	}
}

// number moves a number down toward the field's minimum: the minimum itself, then a binary search for
// the smallest value on the field's grid that still fails.
func (s *Shrinker) number(f *Field, v json.Number) {
	nr, ok := f.rangeOf()
	if !ok {
		return
	}
	hi, ok := nr.stepsOf(v)
	if !ok {
		return
	}
	set := func(k *big.Int) bool {
		return s.try(func(d *Design) { d.Values[f.Name] = Value{nr.at(k), "shrunk"} })
	}
	lo := big.NewInt(0)
	if hi.Sign() == 0 || set(lo) {
		return
	}
	lo.Add(lo, big.NewInt(1))
	for lo.Cmp(hi) < 0 && s.More() {
		mid := new(big.Int).Rsh(new(big.Int).Add(lo, hi), 1)
		if set(mid) {
			hi = mid
		} else {
			lo = mid.Add(mid, big.NewInt(1))
		}
	}
}

// plainRune is the character shrinking writes in place of others: 'a', or the first character of the
// pattern's alphabet that the pattern allows everywhere.
func (f *Field) plainRune() rune {
	if f.pattern == nil {
		return 'a'
	}
	shortest, _ := lengths(f.pattern.tree)
	for _, c := range "a0A" {
		if f.pattern.Match(strings.Repeat(string(c), max(1, shortest))) {
			return c
		}
	}
	return 'a'
}
