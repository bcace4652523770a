// Package harness is what a conformance check works with: the check itself (Check, with the Rule of
// the document it enforces, and its Category), and T, through which it acts: requests to the target
// (Do, Exchange), validated against the run's document and rewritten into it (document.go), the
// document's examples as bodies (ExampleBody) and its test values (Inputs), assertions that record
// evidence, waits for asynchronous outcomes that hold no concurrency slot (Eventually, Watch,
// WaitDeliveries, Settle, whose windows follow the target's pace), paths on the webhook receiver the
// run starts itself (package webhooksink), whose deliveries go into the evidence of the check that
// claimed them, and the check's own random stream from the run's seed (Rand). The state a run's
// checks share is Suite: the run (package contracttests) makes it from Config, records what the
// preflight found in it, and runs each check on it; a target that stops answering mid-run stops it
// (liveness.go).
package harness

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/contracttests/evidence"
	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// Category groups checks in reports; each is explained in docs/conform.md, "Check categories".
type Category = report.Category

// The categories of checks.
const (
	// CategoryReference covers reference data (countries, banks).
	CategoryReference Category = "reference"
	// CategoryPositive covers happy paths built from the spec's examples and test values.
	CategoryPositive Category = "positive"
	// CategoryNegative covers requests that break the request schema and must get a 4xx envelope naming the field.
	CategoryNegative Category = "negative"
	// CategoryAuth covers missing, wrong and swapped keys and cross-merchant isolation.
	CategoryAuth Category = "auth"
	// CategoryIdempotency covers Idempotency-Key replay and conflicts and merchant reference uniqueness.
	CategoryIdempotency Category = "idempotency"
	// CategoryState covers payment and payout state machines for every test value.
	CategoryState Category = "state"
	// CategoryWebhooks covers delivery, schema, signatures, ids, timestamps and retries of webhooks.
	CategoryWebhooks Category = "webhooks"
	// CategoryExtensions covers the extensions: webhook endpoints (/v1/webhooks) and the event log
	// (/v1/events).
	CategoryExtensions Category = "extensions"
	// CategoryGenerated covers request bodies generated from the schemas with the run's seed: valid
	// ones at the boundaries and at random, judged by properties (accepted, valid, no 5xx, every value
	// returned as sent), and invalid ones, each refused naming its property (package checks, generated.go).
	CategoryGenerated Category = "generated"
	// CategoryScenarios covers the documented 429 and 500 answers, which a target produces on demand
	// only through the sandbox's scenario header (api.HeaderSandboxScenario); skipped on targets that
	// do not play it.
	CategoryScenarios Category = "scenarios"
)

// Check is one conformance check: a stable id, what it covers, and the function that runs it.
type Check struct {
	// ID is stable across releases (`payout.create.bank`), so CI history and --run filters keep working.
	ID string
	// Category groups the check in reports.
	Category Category
	// Covers lists the operation ids and webhook types the check exercises.
	Covers []string
	// Doc is a one-line description, shown by --list and in failure reports.
	Doc string
	// Rule is the words of the document the check enforces. Every check has one (TestEveryCheckNamesItsRule):
	// a check asserts what the document says, never what one implementation happens to do.
	Rule Rule
	// Extension marks checks of an extension of the contract: skipped when the target lacks one that
	// the operations in Covers belong to (the webhook-endpoint extension when they name none).
	Extension bool
	// NeedsSecondMerchant marks checks that need a second key pair: skipped without one.
	NeedsSecondMerchant bool
	// Final checks run after every other check has finished (e.g. "every webhook type was observed").
	Final bool
	// Run performs the check.
	Run func(t *T)
}

// Indexes of the document's tags whose descriptions state the rules of checks of several packages.
const (
	// EventsTagIndex is the index of the Events tag (the webhooks' rules) in the document's tags.
	EventsTagIndex = "6"
	// EndpointsTagIndex is the index of the Webhook endpoints tag.
	EndpointsTagIndex = "4"
)

// Rule is where the document states what a check enforces (report.Rule).
type Rule = report.Rule

// T is what a check works with: the target, the webhook receiver, assertions that record evidence, and
// waits for asynchronous outcomes. Its methods are safe to call from several goroutines of one check.
type T struct {
	ctx   context.Context
	check *Check
	suite *Suite

	// rec holds the check's verdict for the runner.
	rec *runner.Recorder

	mu       sync.Mutex
	cleanups []func()
	// about maps the index of each failure recorded to the sequence number of the exchange it is
	// about (attachEvidence points the failure at that exchange's evidence).
	about map[int]uint64

	// evidence is every exchange and delivery of the check, for its report if it fails.
	evidence evidence.Log
}

// runCleanups runs the registered cleanups, each in its own goroutine so that a failing one (which
// ends its goroutine) cannot stop the others.
func (t *T) runCleanups() {
	t.mu.Lock()
	fs := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer func() { _ = recover() }()
			fs[i]()
		}()
		<-done
	}
}

// Context ends when the check's time-out expires or the run is cancelled.
func (t *T) Context() context.Context { return t.ctx }

// ID returns the check's id, e.g. to label the objects it creates.
func (t *T) ID() string { return t.check.ID }

// Errorf records a failure and lets the check go on.
func (t *T) Errorf(format string, args ...any) {
	t.Fail(report.Failure{Message: fmt.Sprintf(format, args...)})
}

// Fatalf records a failure and ends the check.
func (t *T) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	runtime.Goexit()
}

// Skip ends the check as skipped, with the reason shown in reports.
func (t *T) Skip(reason string) {
	t.suite.skipped.note(t.check)
	t.rec.Skip(reason)
}

// Fail records a failure about the exchange the check made last (see FailAbout).
func (t *T) Fail(f report.Failure) { t.FailAbout(0, f) }

// FailAbout records a failure about the exchange or delivery whose evidence has sequence number seq
// (0: the one the check made last), with the document's words at its SpecLocation and their file and
// line for the reports. Once the run has stopped the runner marks the check interrupted instead
// (runner.Recorder.Fail).
func (t *T) FailAbout(seq uint64, f report.Failure) {
	if f.Says == "" {
		f.Says = t.suite.spec.Words(f.SpecLocation)
	}
	if f.At == (report.Place{}) {
		f.At = t.suite.Place(f.SpecLocation, "")
	}
	if seq == 0 {
		seq = t.evidence.Last()
	}
	if i := t.rec.Fail(f); i >= 0 && seq != 0 {
		t.mu.Lock()
		if t.about == nil {
			t.about = map[int]uint64{}
		}
		t.about[i] = seq
		t.mu.Unlock()
	}
}

// Failed reports whether a failure has been recorded.
func (t *T) Failed() bool { return t.rec.Failed() }

// Eventually polls cond until it reports done, and fails the check (with cond's last explanation)
// when the suite's eventual-consistency time-out passes first. cond may ask the target: it runs with
// the check's concurrency slot, and the pauses between polls without it (idle). How long the outcome
// took is the target's pace, which sizes the settle windows (Settle).
func (t *T) Eventually(what string, cond func() (done bool, state string)) {
	t.suite.pace.observe(t.eventually(what, cond))
}

// eventually is Eventually without observing the pace; it returns how long cond took to be done.
func (t *T) eventually(what string, cond func() (done bool, state string)) time.Duration {
	took, ok, state := t.poll(what, cond)
	if !ok {
		t.Fatalf("timed out after %s waiting for %s; last seen: %s", t.suite.cfg.EventuallyTimeout, what, state)
	}
	return took
}

// poll is eventually without the verdict: it reports whether cond came true within the run's wait
// (--wait), and the last state seen, so that a check can tell "not yet observable" from "missing".
// cond runs with the check's slot, the pauses between polls without it.
func (t *T) poll(what string, cond func() (done bool, state string)) (took time.Duration, ok bool, state string) {
	return t.pollEvery(what, cond, t.idleSleep)
}

// Watch is poll (Eventually without the verdict: whether cond came true within the run's wait, and
// the last state seen) for a cond that only reads what the suite's receiver has seen: it sends
// nothing, so the whole wait is idle.
func (t *T) Watch(what string, cond func() (done bool, state string)) (took time.Duration, ok bool, state string) {
	t.idle(func() { took, ok, state = t.pollEvery(what, cond, t.sleep) })
	return took, ok, state
}

// pollEvery polls cond, sleeping between polls through sleep, at intervals that start at 10 ms and
// grow with the time waited (pollInterval).
func (t *T) pollEvery(what string, cond func() (done bool, state string), sleep func(time.Duration) bool) (took time.Duration, ok bool, state string) {
	start := time.Now()
	deadline := start.Add(t.suite.cfg.EventuallyTimeout)
	interval := 10 * time.Millisecond
	for {
		done, state := cond()
		if done {
			return time.Since(start), true, state
		}
		if time.Now().After(deadline) {
			return time.Since(start), false, state
		}
		if !sleep(interval) {
			t.Fatalf("cancelled while waiting for %s (%v); last seen: %s", what, context.Cause(t.ctx), state)
		}
		interval = pollInterval(interval, time.Since(start))
	}
}

// Polls start every 10 ms and double to pollSteady; past that, an interval is at most pollShare of
// the time already waited. A fast target's outcome is seen within a few milliseconds; a wait for one
// that takes a minute costs some fifty polls rather than three hundred, and sees it at most a tenth
// late, which the pace it measures (and so the settle windows) only rounds up.
const (
	pollSteady = 200 * time.Millisecond
	pollShare  = 10
)

// pollInterval is the interval after prev, having waited waited.
func pollInterval(prev, waited time.Duration) time.Duration {
	return min(2*prev, max(pollSteady, waited/pollShare))
}

// sleep waits d, or until the check's context ends; it reports whether the wait was whole.
func (t *T) sleep(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// idleSleep is sleep without the check's concurrency slot (idle).
func (t *T) idleSleep(d time.Duration) (whole bool) {
	t.idle(func() { whole = t.sleep(d) })
	return whole
}

// idle runs wait, which sends nothing, without the check's concurrency slot (runner.Recorder.Idle); a
// T made outside a run (the package's own tests) has no slot and just waits.
func (t *T) idle(wait func()) {
	if t.rec == nil {
		wait()
		return
	}
	t.rec.Idle(wait)
}

// Settle waits for a settle window, so that a check can verify that something does NOT happen (a
// final state changes, an unsubscribed endpoint gets a delivery). The window follows the target
// (settleWindow). A window cut short proves nothing, so the check ends there: as a failure when its
// own time-out ended it, as interrupted when the run stopped.
func (t *T) Settle() {
	window := t.suite.settleWindow()
	if !t.idleSleep(window) {
		t.Fatalf("a %s settle window was cut short: %v", window, context.Cause(t.ctx))
	}
}
