package receivertests

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// attack is a delivery that must be refused. The grader sends every attack once per selected event
// type, each as a check of its own (receiver.rejects.<attack>/<type>): a receiver that switches on the
// event type before it verifies (skipping the check for one type, or verifying only in the handlers of
// some) refuses the attack for every type but one, and only a check for that type sees it.
type attack struct {
	name string
	rule string
	// doc says what is sent, with %s for the event type.
	doc  string
	send func(c *checkRun, t string)
}

// attacks is the battery of refusals, in the order the checks are listed.
func attacks() []attack {
	return []attack{
		{name: "no-signature", rule: ruleAuthentic, doc: "a %s delivery without webhook-signature is refused",
			send: func(c *checkRun, t string) {
				c.expectRejected(newDelivery(c.g.payloads.event(t, c.now()), c.now()), "an unsigned "+t+" delivery (no webhook-signature header)")
			}},
		{name: "empty-signature", rule: ruleAuthentic, doc: "a %s delivery whose webhook-signature is present but holds no signature (an empty value, then a bare \"v1,\") is refused",
			send: func(c *checkRun, t string) {
				for _, value := range []string{"", "v1,"} {
					d := c.signed(t)
					d.header.Set(webhook.HeaderSignature, value)
					c.expectRejected(d, fmt.Sprintf("a %s delivery whose webhook-signature is %q", t, value))
				}
			}},
		{name: "forged-signature", rule: ruleAuthentic, doc: "a %s delivery whose v1 signature is well formed but made by no secret is refused",
			send: func(c *checkRun, t string) {
				d := c.signed(t)
				d.header.Set(webhook.HeaderSignature, forgedSignature())
				c.expectRejected(d, "a "+t+" delivery with a forged v1 signature")
			}},
		{name: "several-forged-signatures", rule: ruleSeveral, doc: "a %s delivery whose webhook-signature lists several well-formed signatures, none by the receiver's secret (v1 by another secret, v2 by another secret, v1 by no secret), is refused",
			send: func(c *checkRun, t string) {
				d := c.signed(t)
				c.expectRejected(severalForged(d), "a "+t+" delivery whose webhook-signature lists three signatures, none made with the receiver's secret")
			}},
		{name: "body-changed", rule: ruleAuthentic, doc: "a %s delivery whose body was changed after it was signed (the amount) is refused",
			send: (*checkRun).bodyChanged},
		{name: "other-secret", rule: ruleAuthentic, doc: "a %s delivery signed with another secret is refused",
			send: func(c *checkRun, t string) {
				other, _ := webhook.NewSecret()
				c.expectRejected(newDelivery(c.g.payloads.event(t, c.now()), c.now(), other), "a "+t+" delivery signed with a secret the receiver does not hold")
			}},
		{name: "timestamp-past", rule: ruleTolerance, doc: "a correctly signed %s delivery whose webhook-timestamp is a minute beyond the tolerance in the past (a replay) is refused",
			send: func(c *checkRun, t string) {
				ts := c.now().Add(-beyondTolerance(c))
				c.expectRejected(newDelivery(c.g.payloads.event(t, c.now()), ts, c.g.cfg.Secret),
					fmt.Sprintf("a correctly signed %s delivery timestamped %s ago", t, beyondTolerance(c)))
			}},
		{name: "timestamp-future", rule: ruleTolerance, doc: "a correctly signed %s delivery whose webhook-timestamp is a minute beyond the tolerance in the future is refused",
			send: func(c *checkRun, t string) {
				ts := c.now().Add(beyondTolerance(c))
				c.expectRejected(newDelivery(c.g.payloads.event(t, c.now()), ts, c.g.cfg.Secret),
					fmt.Sprintf("a correctly signed %s delivery timestamped %s ahead", t, beyondTolerance(c)))
			}},
		{name: "malformed-signature", rule: ruleVersions, doc: "a %s delivery whose webhook-signature is the right HMAC without its v1, prefix is refused",
			send: func(c *checkRun, t string) {
				d := c.signed(t)
				_, mac, _ := strings.Cut(d.header.Get(webhook.HeaderSignature), ",")
				d.header.Set(webhook.HeaderSignature, mac)
				c.expectRejected(d, "a "+t+" delivery whose webhook-signature is a bare base64 HMAC (no \"v1,\")")
			}},
		{name: "unknown-version", rule: ruleVersions, doc: "a %s delivery whose only signature has an unknown version (v2,<the right HMAC>) is refused",
			send: func(c *checkRun, t string) {
				d := c.signed(t)
				_, mac, _ := strings.Cut(d.header.Get(webhook.HeaderSignature), ",")
				d.header.Set(webhook.HeaderSignature, "v2,"+mac)
				c.expectRejected(d, "a "+t+" delivery whose only signature is version v2")
			}},
	}
}

// severalForged gives d a webhook-signature of three well-formed entries of which none verifies with
// the receiver's secret, as a rotation's list looks: v1 by a secret the receiver does not hold, v2 by
// another (a version the receiver must skip), and v1 by no secret. A receiver that takes a list for
// a rotation and trusts it without verifying an entry accepts it.
func severalForged(d delivery) delivery {
	n, _ := strconv.ParseInt(d.header.Get(webhook.HeaderTimestamp), 10, 64)
	ts := time.Unix(n, 0)
	other, _ := webhook.NewSecret()
	another, _ := webhook.NewSecret()
	_, mac, _ := strings.Cut(webhook.Sign(d.id, ts, d.body, another), ",")
	d.header.Set(webhook.HeaderSignature, webhook.Sign(d.id, ts, d.body, other)+" v2,"+mac+" "+forgedSignature())
	return d
}

// beyondTolerance is how far from now the timestamp attacks are stamped: a minute past the tolerance
// (the document's five minutes), far enough for any clock skew between grader and receiver, near
// enough that a receiver that allows twice the documented tolerance is caught.
func beyondTolerance(c *checkRun) time.Duration { return c.g.tolerance + time.Minute }

// rejectChecks is one check per attack and selected event type, grouped by attack.
func (g *grader) rejectChecks() []*check {
	var out []*check
	for _, a := range attacks() {
		for _, t := range g.types {
			out = append(out, &check{id: "receiver.rejects." + a.name + "/" + t, category: CategoryRejects, covers: []string{t}, rule: a.rule,
				doc: fmt.Sprintf(a.doc, t),
				run: func(c *checkRun) { a.send(c, t) }})
		}
	}
	return out
}

// bodyChanged signs an event of type t, then changes its amount (or adds a field) and sends it with
// the original signature.
func (c *checkRun) bodyChanged(t string) {
	ev := c.g.payloads.event(t, c.now())
	d := newDelivery(ev, c.now(), c.g.cfg.Secret)
	changed := false
	if data, ok := ev["data"].(map[string]any); ok {
		if obj, ok := data["object"].(map[string]any); ok {
			if amount, ok := obj["amount"].(json.Number); ok {
				obj["amount"], changed = json.Number(string(amount)+"1"), true // one more digit: another amount
			}
		}
	}
	if !changed {
		ev["tampered"] = true
	}
	d.body, _ = json.Marshal(ev)
	c.expectRejected(d, "a "+t+" delivery whose body was changed after signing (signature of the original)")
}
