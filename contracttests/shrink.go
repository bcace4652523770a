package contracttests

import (
	"encoding/json"
	"math/big"
	"strings"
	"time"
	"unicode/utf8"
)

// Shrinking: a generated body that fails is made as small and plain as it can be while it still fails
// in the same way (the same problem key), so that the report shows the input that matters: optional
// properties dropped, each value replaced by its simplest (the document's example), text cut to its
// shortest failing prefix and its characters made plain, numbers moved down toward the minimum. Every
// candidate is a body the schema allows (or, for an invalid body, that breaks the same property), and
// each is sent, at most maxShrinkSteps times per failure.

// judgeFunc sends a body and returns its problems and the exchange they are about.
type judgeFunc func(t *T, c *genCase) ([]problem, uint64)

// shrinker is one failure being shrunk.
type shrinker struct {
	g     *genTarget
	t     *T
	judge judgeFunc
	key   string
	steps int
	// best is the smallest failing body so far, with its problems and exchange.
	best         *genCase
	bestProblems []problem
	bestSeq      uint64
}

// shrink returns the smallest body found that fails as c does, its problems, its exchange and the
// requests it took.
func (g *genTarget) shrink(t *T, c *genCase, problems []problem, seq uint64, judge judgeFunc) (*genCase, []problem, uint64, int) {
	s := &shrinker{g: g, t: t, judge: judge, key: problems[0].key, best: c, bestProblems: problems, bestSeq: seq}
	broken := c.design.broken
	for _, f := range g.fields {
		if !f.required && f.name != broken && !s.best.design.absent[f.name] && g.present(s.best.design) > g.minProperties() {
			s.try(func(d *genDesign) { d.absent[f.name] = true })
		}
	}
	for _, f := range g.fields {
		if f.name == broken || f.role == roleRun || f.simplest == nil || s.best.design.absent[f.name] {
			continue
		}
		if v, ok := s.best.design.values[f.name]; ok && !sameValue(v.v, f.simplest) {
			s.try(func(d *genDesign) { d.values[f.name] = genValue{f.simplest, "the document's example"} })
		}
	}
	// The properties the failure names first: their values are what the report is about, and the
	// steps may run out before the others are done.
	involved := involvedFields(problems)
	for _, first := range []bool{true, false} {
		for _, f := range g.fields {
			if f.name == broken || f.role == roleRun || s.best.design.absent[f.name] || involved[f.name] != first {
				continue
			}
			switch v := s.best.design.values[f.name].v.(type) {
			case string:
				s.text(f, v)
			case json.Number:
				s.number(f, v)
			}
		}
	}
	return s.best, s.bestProblems, s.bestSeq, s.steps
}

// try sends the best body with change applied and keeps it when it fails the same way.
func (s *shrinker) try(change func(d *genDesign)) bool {
	if s.steps >= maxShrinkSteps || s.outOfTime() {
		return false
	}
	d := s.best.design.clone()
	change(&d)
	s.steps++
	c := s.g.fill(s.t, d, s.best.index)
	// A candidate waits for its object's events only when the failure is about an event.
	c.skipEvents = !strings.Contains(s.key, " event")
	problems, seq := s.judge(s.t, c)
	for _, p := range problems {
		if p.key == s.key {
			s.best, s.bestProblems, s.bestSeq = c, problems, seq
			return true
		}
	}
	s.g.release(s.t, c) // a candidate that does not fail the same way is done with
	return false
}

// outOfTime reports whether the check's own deadline is too near for another candidate: shrinking
// stops there, so that the check reports what it has rather than being cut off by its time-out.
func (s *shrinker) outOfTime() bool {
	deadline, ok := s.t.ctx.Deadline()
	if !ok {
		return false
	}
	return time.Until(deadline) < s.t.suite.cfg.EventuallyTimeout+5*time.Second
}

// setText tries the property with text v, when the schema allows it.
func (s *shrinker) setText(f *genField, v string) bool {
	if !f.allowsText(v) {
		return false
	}
	return s.try(func(d *genDesign) { d.values[f.name] = genValue{v, "shrunk"} })
}

// text shrinks a string: the shortest failing prefix (a binary search), then its characters made
// plain a block at a time, then blocks removed.
func (s *shrinker) text(f *genField, v string) {
	runes := []rune(v)
	lo, hi := 0, len(runes)
	for lo < hi && s.steps < maxShrinkSteps {
		mid := (lo + hi) / 2
		if s.setText(f, string(runes[:mid])) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	runes = []rune(s.best.design.values[f.name].v.(string))
	plain := f.plainRune()
	for size := len(runes); size >= 1 && s.steps < maxShrinkSteps; size /= 2 {
		for start := 0; start < len(runes) && s.steps < maxShrinkSteps; start += size {
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
	for size := len(runes) / 2; size >= 1 && s.steps < maxShrinkSteps; size /= 2 {
		for start := 0; start+size <= len(runes) && s.steps < maxShrinkSteps; {
			cand := append(append([]rune{}, runes[:start]...), runes[start+size:]...)
			if s.setText(f, string(cand)) {
				runes = cand
			} else {
				start += size
			}
		}
	}
}

// number moves a number down toward the property's minimum: the minimum itself, then a binary search
// for the smallest value on the property's grid that still fails.
func (s *shrinker) number(f *genField, v json.Number) {
	nr, ok := f.rangeOf()
	if !ok {
		return
	}
	hi, ok := nr.stepsOf(v)
	if !ok {
		return
	}
	set := func(k *big.Int) bool {
		return s.try(func(d *genDesign) { d.values[f.name] = genValue{nr.at(k), "shrunk"} })
	}
	lo := big.NewInt(0)
	if hi.Sign() == 0 || set(lo) {
		return
	}
	lo.Add(lo, big.NewInt(1))
	for lo.Cmp(hi) < 0 && s.steps < maxShrinkSteps {
		mid := new(big.Int).Rsh(new(big.Int).Add(lo, hi), 1)
		if set(mid) {
			hi = mid
		} else {
			lo = mid.Add(mid, big.NewInt(1))
		}
	}
}

// allowsText reports whether the schema allows text v: its length in characters and its pattern.
func (f *genField) allowsText(v string) bool {
	lo, hi := f.lengthBounds()
	n := utf8.RuneCountInString(v)
	if n < lo || (hi >= 0 && n > hi) {
		return false
	}
	return f.pattern == nil || f.pattern.match.MatchString(v)
}

// plainRune is the character shrinking writes in place of others: 'a', or the first character of the
// pattern's alphabet that the pattern allows everywhere.
func (f *genField) plainRune() rune {
	if f.pattern == nil {
		return 'a'
	}
	for _, c := range "a0A" {
		if f.pattern.match.MatchString(strings.Repeat(string(c), max(1, func() int { l, _ := lengths(f.pattern.tree); return l }()))) {
			return c
		}
	}
	return 'a'
}

// present counts the properties a design sends.
func (g *genTarget) present(d genDesign) int {
	n := 0
	for _, f := range g.fields {
		if !d.absent[f.name] {
			n++
		}
	}
	return n
}

// minProperties is the body schema's minProperties, 0 when it has none.
func (g *genTarget) minProperties() int {
	if g.bt.schema == nil || g.bt.schema.MinProperties == nil {
		return 0 // a parameters check has no body schema
	}
	return int(*g.bt.schema.MinProperties)
}

// involvedFields are the body properties a failure names: the member an echo compares, the fields a
// refusal names, the pointer of a violation.
func involvedFields(problems []problem) map[string]bool {
	out := map[string]bool{}
	add := func(pointer string) {
		pointer = strings.TrimPrefix(strings.TrimPrefix(pointer, "/data"), "/")
		if name, _, _ := strings.Cut(pointer, "/"); name != "" {
			out[name] = true
		}
	}
	for _, p := range problems {
		if rest, ok := strings.CutPrefix(p.key, "echo "); ok {
			name, _, _ := strings.Cut(rest, " ")
			out[name] = true
		}
		if rest, ok := strings.CutPrefix(p.key, "refused "); ok {
			for _, f := range strings.Split(rest, ",") {
				add(f)
			}
		}
		add(p.failure.Pointer)
	}
	return out
}
