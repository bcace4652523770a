package receivertests

import (
	"fmt"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/valuegen"
)

// Shrinking: the first generated body a receiver refuses, when it was drawn or set at the bounds, is
// made as small and plain as it can be while the receiver still refuses it the same way (the same
// status), by valuegen.Shrinker, so that the report names the value that matters: "narration =
// 101 characters", not a body of twenty drawn fields. Each candidate is a delivery, at most
// maxShrinkDeliveries per check.

// maxShrinkDeliveries is how many candidates shrinking sends for one refused body.
const maxShrinkDeliveries = 128

// shrunk is the smallest body found that the receiver refuses as it refused a generated one.
type shrunk struct {
	what string // what it changes of the example (describe)
	at   int    // its delivery's evidence index
	sent int    // how many candidates were sent
}

// shrink makes the refused body v of type t, answered a, smaller while the receiver refuses it the
// same way. It sends nothing for a refusal that is not an answer (a time-out, a broken connection):
// each candidate would cost as long, and the body is not what such a refusal is about.
func (c *checkRun) shrink(t string, v variant, a answer) (shrunk, bool) {
	if v.design == nil || a.timeout || a.err != nil {
		return shrunk{}, false
	}
	fields, base := c.g.fields[t], c.g.payloads[t]
	// The Shrinker keys a design by each field's Name, a body's fields are keyed by their path; a
	// field's simplest value is the example event's, the body every generated one changes, and a
	// field at it is left alone (KeepSimplest).
	var keyed []*valuegen.Field
	fixed := map[string]bool{}
	for _, f := range fields {
		if !generated(f) {
			continue
		}
		k := *f
		k.Name, k.Simplest = f.PathName(), nil // a field the example lacks is cut and moved down instead
		if v, ok := get(base, f.Path); ok {
			k.Simplest = v
		}
		keyed, fixed[k.Name] = append(keyed, &k), stamped[k.Name]
	}
	out := shrunk{at: -1}
	s := &valuegen.Shrinker{Fields: keyed, Fixed: fixed, KeepSimplest: true,
		More: func() bool { return out.sent < maxShrinkDeliveries && !c.nearDeadline() },
		Fails: func(d valuegen.Design) bool {
			ev := bodyOf(base, fields, d)
			stamp(ev, c.now())
			del := newDelivery(ev, c.now(), c.g.cfg.Secret)
			if len(c.g.spec.ValidateWebhook(t, del.header, del.body)) > 0 {
				return false // not a body the document allows: not a candidate
			}
			out.sent++
			got, at := c.deliver(del)
			if got.acknowledged() || got.timeout || got.err != nil || got.status != a.status {
				return false
			}
			out.what, out.at = describe(base, fields, d), at
			return true
		}}
	s.Shrink(*v.design)
	return out, out.at >= 0
}

// nearDeadline reports whether the check's deadline is too near for another delivery: shrinking
// stops there, so that the check reports what it has rather than being cut off.
func (c *checkRun) nearDeadline() bool {
	deadline, ok := c.ctx.Deadline()
	return ok && time.Until(deadline) < c.g.cfg.Timeout+time.Second
}

// String says what shrinking found, for the failure message.
func (s shrunk) String() string {
	return fmt.Sprintf("the smallest body found that is refused the same way, after %d more deliveries: %s", s.sent, s.what)
}
