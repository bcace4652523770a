package checks

import (
	"slices"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/internal/valuegen"
)

// Shrinking: a generated body that fails is made as small and plain as it can be while it still fails
// in the same way (the same problem key), by valuegen.Shrinker, so that the report shows the input
// that matters. Each candidate is sent, at most maxShrinkSteps times per failure.

// judgeFunc sends a body and returns its problems and the exchange they are about.
type judgeFunc func(t *harness.T, c *genCase) ([]problem, uint64)

// shrink returns the smallest body found that fails as c does, its problems, its exchange and the
// requests it took.
func (g *genTarget) shrink(t *harness.T, c *genCase, problems []problem, seq uint64, judge judgeFunc) (*genCase, []problem, uint64, int) {
	key := problems[0].key
	best, bestProblems, bestSeq, steps := c, problems, seq, 0
	fixed := map[string]bool{}
	for _, f := range g.fields {
		fixed[f.Name] = f.role == roleRun
	}
	s := &valuegen.Shrinker{Fields: g.valueFields(), Fixed: fixed, MinProperties: g.minProperties(), Involved: involvedFields(problems),
		More: func() bool { return steps < maxShrinkSteps && !shrinkOutOfTime(t) },
		Fails: func(d valuegen.Design) bool {
			steps++
			cand := g.fill(t, d, c.index)
			// A candidate waits for its object's events only when the failure is about an event.
			cand.skipEvents = !strings.Contains(key, " event")
			ps, sq := judge(t, cand)
			if slices.ContainsFunc(ps, func(p problem) bool { return p.key == key }) {
				best, bestProblems, bestSeq = cand, ps, sq
				return true
			}
			g.release(t, cand) // a candidate that does not fail the same way is done with
			return false
		}}
	s.Shrink(c.design)
	return best, bestProblems, bestSeq, steps
}

// shrinkOutOfTime reports whether the check's own deadline is too near for another candidate:
// shrinking stops there, so that the check reports what it has rather than being cut off by its
// time-out.
func shrinkOutOfTime(t *harness.T) bool {
	deadline, ok := t.Context().Deadline()
	if !ok {
		return false
	}
	return time.Until(deadline) < t.EventuallyTimeout()+5*time.Second
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
