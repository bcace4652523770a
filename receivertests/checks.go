package receivertests

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// checkRun is one check while it runs: the deliveries it sent and what it found. Its methods are safe
// for concurrent use (the burst sends from many goroutines).
type checkRun struct {
	ctx   context.Context
	g     *grader
	check *check

	// rec holds the check's verdict for the runner.
	rec *runner.Recorder
	// cites is where the document states the check's rule, placed (cite, placed); zero when only
	// Standard Webhooks does.
	cites report.Rule

	mu       sync.Mutex
	evidence []report.Evidence
}

func (c *checkRun) now() time.Time { return c.g.cfg.Now() }

// signed is a correctly signed delivery of a fresh example event of type t, validated against the
// document: a delivery the grader calls correct must be one the document allows.
func (c *checkRun) signed(t string) delivery {
	d := newDelivery(c.g.payloads.event(t, c.now()), c.now(), c.g.cfg.Secret)
	if v := c.g.spec.ValidateWebhook(t, d.header, d.body); len(v) > 0 {
		c.fail(fmt.Sprintf("the grader built a %s delivery the document does not allow (%v): a defect of the document's example, not of the receiver", t, v), -1)
	}
	return d
}

// deliver sends d, records it as evidence and returns the answer and the evidence's index.
func (c *checkRun) deliver(d delivery) (answer, int) {
	a, ev := c.g.send(c.ctx, d)
	ev.Check = c.check.id
	c.g.observers.Observe(ev)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evidence = append(c.evidence, ev)
	return a, len(c.evidence) - 1
}

// attachEvidence puts the check's deliveries in res when it failed, for its report.
func (c *checkRun) attachEvidence(res *report.Result) {
	if res.Outcome != report.Failed {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	res.Evidence = c.evidence
}

// placeRule gives a failed result its rule's words and place, for the reports: they read no document.
func (c *checkRun) placeRule(res *report.Result) {
	if res.Outcome == report.Failed {
		res.Rule = c.cites
	}
}

// fail records a failure about the evidence at index at (-1: none), citing the check's rule in the
// grader's words (Standard Webhooks' sections, the document's places); the result's Rule (placeRule)
// says where the document states it, when it does.
func (c *checkRun) fail(msg string, at int) {
	c.mu.Lock()
	f := report.Failure{Message: msg, SpecLocation: c.check.rule}
	if at >= 0 && at < len(c.evidence) {
		ev := c.evidence[at]
		status := "no answer"
		if ev.Response.Status != 0 {
			status = fmt.Sprint(ev.Response.Status)
		}
		f.Exchange = fmt.Sprintf("POST %s %s → %s", ev.Request.URL, ev.Operation, status)
		f.Evidence = []int{at}
	}
	c.mu.Unlock()
	c.rec.Fail(f)
}

// timeoutFix is what to do about a receiver that answered too late.
func (c *checkRun) timeoutFix() string {
	return fmt.Sprintf("answer within %s (the document's delivery time-out): acknowledge first, then do slow work (a queue, a goroutine)", c.g.cfg.Timeout)
}

// expectAccepted sends d, which is correctly signed, and fails unless it is acknowledged in time.
func (c *checkRun) expectAccepted(d delivery, what string) (answer, bool) {
	a, at := c.deliver(d)
	return a, c.judgeAccepted(a, at, what)
}

// judgeAccepted fails unless a, the answer to the correctly signed delivery at evidence index at,
// acknowledged it in time.
func (c *checkRun) judgeAccepted(a answer, at int, what string) bool {
	switch {
	case a.timeout:
		c.fail(fmt.Sprintf("%s got %s; %s", what, a, c.timeoutFix()), at)
	case a.err != nil:
		c.fail(fmt.Sprintf("%s got %s; the receiver must answer every delivery", what, a), at)
	case !a.acknowledged():
		c.fail(fmt.Sprintf("%s was answered %s, not 2xx, so the sender counts it as failed and retries it; %s", what, a, c.acceptFix()), at)
	default:
		return true
	}
	return false
}

// sent is what became of one delivery of sendAll.
type sent struct {
	a  answer
	at int // its evidence index
	// ok: it was sent; sendAll sends no more after a delivery got no answer in time.
	ok bool
}

// sendAll sends ds, up to the run's concurrency at once (a check that sends many bodies would
// otherwise take as many round trips one after the other), and returns what became of each, in the
// order of ds. After a delivery got no answer in time it sends no more: every other would wait as
// long, and the check would outlive its deadline.
func (c *checkRun) sendAll(ds []delivery) []sent {
	out := make([]sent, len(ds))
	var late atomic.Bool
	slots := make(chan struct{}, max(c.g.cfg.Concurrency, 1))
	var wg sync.WaitGroup
	for i, d := range ds {
		slots <- struct{}{}
		if late.Load() || c.ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			a, at := c.deliver(d)
			out[i] = sent{a: a, at: at, ok: true}
			if a.timeout {
				late.Store(true)
			}
		})
	}
	wg.Wait()
	return out
}

// acceptFix is what to do about a correctly signed delivery that was refused, by the check's rule.
func (c *checkRun) acceptFix() string {
	switch c.check.rule {
	case ruleRotation:
		return "split webhook-signature on spaces and accept the delivery when any v1 signature verifies with any secret you hold (the official libraries do)"
	case ruleIdempotency:
		return "dedupe on webhook-id: answer 2xx to an id you already handled, without handling it again (a unique key, not an error)"
	case ruleAdditive:
		return "ignore fields you do not know: decode leniently (no strict mode, no additionalProperties: false on your side)"
	case ruleRawBody:
		return "verify the signature over the raw body bytes as received, before any JSON parsing (in Express, express.raw() or the verify option of express.json(), never JSON.stringify(req.body)); decode only a body that verified"
	case ruleSchema:
		return "accept every body the event's schema allows: each enum value (every failure_reason), optional fields absent or present, undeclared fields, any Unicode text up to the maximum length, amounts up to the document's maximum (a decimal or int64 type, not int32 or float32)"
	default:
		return "verify the signature over the raw body bytes as received (before JSON parsing) with the endpoint's current secret, then answer 2xx"
	}
}

// expectRejected sends d, which must not verify, and fails unless it is refused with an answer.
func (c *checkRun) expectRejected(d delivery, what string) {
	a, at := c.deliver(d)
	switch {
	case a.timeout:
		c.fail(fmt.Sprintf("%s got %s; refuse it at once with a 4xx (401 or 400)", what, a), at)
	case a.err != nil:
		c.fail(fmt.Sprintf("%s got %s; refuse it with a 4xx (401 or 400) instead of dropping the connection", what, a), at)
	case a.acknowledged():
		c.fail(fmt.Sprintf("%s was accepted (%s): anyone who can reach the URL can make the receiver act on it; %s", what, a, c.rejectFix()), at)
	}
}

// rejectFix is what to do about a delivery that should have been refused, by the check's rule.
func (c *checkRun) rejectFix() string {
	switch c.check.rule {
	case ruleTolerance:
		return fmt.Sprintf("refuse a webhook-timestamp more than %s from your clock (the official libraries do, with a five-minute tolerance)", c.g.tolerance)
	case ruleSeveral:
		return "a list of signatures proves nothing by itself: try each space-separated v1 signature against your secret, in constant time, and accept only when one of them verifies (the official libraries do)"
	case ruleVersions:
		return "parse webhook-signature as space-separated <version>,<base64> entries and compare only v1 entries, in constant time"
	default:
		return "verify webhook-signature (v1, HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body} with your secret) before trusting the body, for every event type (verify before you switch on the type), and refuse with 401 when it does not match"
	}
}

// forgedSignature is a well-formed v1 signature that no secret made.
func forgedSignature() string {
	var mac [32]byte
	_, _ = rand.Read(mac[:])
	return "v1," + base64.StdEncoding.EncodeToString(mac[:])
}

// redelivery sends one event twice, the second time as a retry does (same id, new timestamp and
// signature), and expects both acknowledged.
func (c *checkRun) redelivery() {
	t := c.g.types[0]
	ev := c.g.payloads.event(t, c.now())
	if _, ok := c.expectAccepted(newDelivery(ev, c.now(), c.g.cfg.Secret), "the first delivery of the event"); !ok {
		return
	}
	again := newDelivery(ev, c.now().Add(time.Second), c.g.cfg.Secret)
	c.expectAccepted(again, "a redelivery of an event already acknowledged (same webhook-id "+again.id+")")
}

// burstCheck sends Burst correctly signed deliveries of distinct events at once.
func (c *checkRun) burstCheck() {
	n := c.g.burst()
	deliveries := make([]delivery, n)
	for i := range deliveries {
		deliveries[i] = c.signed(c.g.types[i%len(c.g.types)])
	}
	type outcome struct {
		a  answer
		at int
	}
	outcomes := make([]outcome, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range deliveries {
		wg.Go(func() {
			<-start
			a, at := c.deliver(deliveries[i])
			outcomes[i] = outcome{a, at}
		})
	}
	close(start)
	wg.Wait()
	var late, refused []string
	firstBad := -1
	for _, o := range outcomes {
		if o.a.acknowledged() {
			continue
		}
		if firstBad < 0 {
			firstBad = o.at
		}
		if o.a.timeout || o.a.err != nil {
			late = append(late, o.a.String())
		} else {
			refused = append(refused, o.a.String())
		}
	}
	if len(late)+len(refused) == 0 {
		return
	}
	msg := fmt.Sprintf("of %d deliveries sent at once, %d were not acknowledged in time", n, len(late)+len(refused))
	if len(late) > 0 {
		msg += fmt.Sprintf("; %d got no answer within %s", len(late), c.g.cfg.Timeout)
	}
	if len(refused) > 0 {
		msg += "; answers: " + strings.Join(dedupe(refused), ", ")
	}
	c.fail(msg+"; handle deliveries concurrently and "+c.timeoutFix(), firstBad)
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// unknownFieldName is the field the forward-compatibility checks add: no document will declare it.
const unknownFieldName = "x_malipo_future_field"

// unknownField sends a known event with fields the document does not declare, at every level a
// later version may add one.
func (c *checkRun) unknownField() {
	t := c.g.types[0]
	ev := c.g.payloads.event(t, c.now())
	ev[unknownFieldName] = map[string]any{"added_in": "a later version", "n": 1}
	if data, ok := ev["data"].(map[string]any); ok {
		data[unknownFieldName] = "new"
		if obj, ok := data["object"].(map[string]any); ok {
			obj[unknownFieldName] = []any{"new"}
		}
	}
	d := newDelivery(ev, c.now(), c.g.cfg.Secret)
	if v := c.g.spec.ValidateWebhook(t, d.header, d.body); len(v) > 0 {
		c.fail(fmt.Sprintf("the document forbids fields it does not declare in %s (%v), contradicting its promise of additive changes; the check cannot run", t, v), -1)
		return
	}
	c.expectAccepted(d, "a "+t+" delivery with fields the document does not declare yet")
}

// unknownType sends an event of a type the document does not declare, built from a known one.
func (c *checkRun) unknownType() {
	base := c.g.types[0]
	object, _, _ := strings.Cut(base, ".")
	t := object + ".x_malipo_future_event"
	if _, declared := c.g.spec.Webhook(t); declared {
		c.fail("the document declares "+t+"; the check needs an undeclared type", -1)
		return
	}
	ev := c.g.payloads.event(base, c.now())
	ev["type"] = t
	d := newDelivery(ev, c.now(), c.g.cfg.Secret)
	d.eventType = t
	a, at := c.deliver(d)
	switch {
	case a.timeout:
		c.fail(fmt.Sprintf("a delivery of the undeclared event type %s got %s; %s", t, a, c.timeoutFix()), at)
	case a.err != nil:
		c.fail(fmt.Sprintf("a delivery of the undeclared event type %s got %s; acknowledge (2xx) types you do not handle", t, a), at)
	case !a.acknowledged():
		c.fail(fmt.Sprintf("a delivery of the undeclared event type %s was answered %s, not 2xx: new event types can be added without a new API version, and the document says to acknowledge (2xx) a type you do not handle; any other answer is a failed attempt, retried", t, a), at)
	}
}
