// Package contracttests is the Malipo conformance suite: it checks any implementation of the v1 API,
// given a base URL and keys, against openapi/malipo.yaml — request and response shapes, status codes,
// errors, auth, idempotency, state machines and webhook behaviour (delivered, schema-valid, signed,
// retried) — and reports in text, JSON and JUnit XML.
//
// Checks are data (Check); the ones that are mechanical are derived from the document (negative cases
// from request schemas, the auth matrix from security requirements, lifecycles from the test values),
// the behavioural ones are written by hand. A Runner runs them concurrently against a Target with a
// webhook Receiver it starts itself, and emits events to Reporters that only format.
package contracttests

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Category groups checks in reports; each is explained in the README.
type Category string

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

// Rule is where the document states what a check enforces: a JSON pointer into the document (a schema
// keyword, an operation's response or security, an extension, a description) and, for a rule written
// in prose, the sentence, verbatim as it appears in the text at Pointer (line breaks aside). Reports
// show it next to each failure ("the document says: …"), and failures of many checks that share a rule
// and a violation are reported as one finding.
type Rule struct {
	// Pointer is a JSON pointer into the document, starting with "#/".
	Pointer string `json:"pointer"`
	// Quote is the sentence of the text at Pointer that states the rule; empty when Pointer names a
	// schema keyword, whose value is the rule.
	Quote string `json:"quote,omitempty"`
}

// String renders the rule for a report: the quote, then where it is.
func (r Rule) String() string {
	if r.Quote == "" {
		return r.Pointer
	}
	return "\u201c" + r.Quote + "\u201d (" + r.Pointer + ")"
}

// Outcome is the verdict of one check.
type Outcome string

// The outcomes. Interrupted is no verdict: the check was running when the run stopped early (the
// caller's context ended, or the target stopped answering), so what it saw says nothing about the
// target's conformance.
const (
	Passed      Outcome = "pass"
	Failed      Outcome = "fail"
	Skipped     Outcome = "skip"
	Interrupted Outcome = "interrupted"
)

// Failure is one piece of evidence that a check failed.
type Failure struct {
	// Message says what was expected and what happened.
	Message string `json:"message"`
	// Exchange is the HTTP exchange at fault, if any ("POST /v1/payment/payouts/process → 201").
	Exchange string `json:"exchange,omitempty"`
	// Pointer names the offending field (JSON pointer or `header.name`), if known.
	Pointer string `json:"pointer,omitempty"`
	// SpecLocation points into openapi/malipo.yaml at the rule that was broken, if known.
	SpecLocation string `json:"spec_location,omitempty"`
	// Evidence holds indexes into Result.Evidence of the exchanges the failure is about: the one
	// Exchange names, or, for a failure that names none, the exchange the check had made last.
	Evidence []int `json:"evidence,omitempty"`
	// seq identifies the exchange the failure is about, until Evidence is filled in (0: none).
	seq uint64
}

// String renders a failure on one line.
func (f Failure) String() string {
	s := f.Message
	if f.Pointer != "" {
		s = f.Pointer + ": " + s
	}
	if f.Exchange != "" {
		s = "[" + f.Exchange + "] " + s
	}
	if f.SpecLocation != "" {
		s += " (" + f.SpecLocation + ")"
	}
	return s
}

// Result is the outcome of one check with its evidence.
type Result struct {
	Check    *Check   `json:"-"`
	ID       string   `json:"id"`
	Category Category `json:"category"`
	// Rule is the check's Rule: what the document says that the check enforces.
	Rule       Rule          `json:"rule,omitzero"`
	Outcome    Outcome       `json:"outcome"`
	Duration   time.Duration `json:"duration_ns"`
	SkipReason string        `json:"skip_reason,omitempty"`
	// Interruption says why an Interrupted check was stopped.
	Interruption string    `json:"interruption,omitempty"`
	Failures     []Failure `json:"failures,omitempty"`
	// Evidence is every exchange and webhook delivery of a check that did not pass, in the order they
	// ended; a check that passed or was skipped keeps none, to keep reports small.
	Evidence []Evidence `json:"evidence,omitempty"`
	// EvidenceOmitted counts the exchanges left out of Evidence because the check made more than
	// maxEvidencePerCheck (the first and the latest are kept).
	EvidenceOmitted int `json:"evidence_omitted,omitempty"`
}

// T is what a check works with: the target, the webhook receiver, assertions that record evidence, and
// waits for asynchronous outcomes. Its methods are safe to call from several goroutines of one check.
type T struct {
	ctx   context.Context
	check *Check
	suite *suite

	mu         sync.Mutex
	failures   []Failure
	skipReason string
	cleanups   []func()
	// cut is set when a failure came after the run had stopped: the check was interrupted.
	cut bool

	// evidence is every exchange and delivery of the check, for its report if it fails.
	evidence evidenceLog
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
	t.fail(Failure{Message: fmt.Sprintf(format, args...)})
}

// Fatalf records a failure and ends the check.
func (t *T) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	runtime.Goexit()
}

// Skip ends the check as skipped, with the reason shown in reports.
func (t *T) Skip(reason string) {
	t.mu.Lock()
	t.skipReason = reason
	t.mu.Unlock()
	t.suite.skipped.note(t.check)
	runtime.Goexit()
}

// fail records a failure, unless the run has stopped (interrupted, or the target stopped answering):
// a request cancelled or refused from then on fails because of the stop, so the check is marked
// interrupted instead. Failures recorded before the stop stand.
func (t *T) fail(f Failure) {
	t.noteLastExchange(&f)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.suite.run != nil && t.suite.run.Err() != nil {
		t.cut = true
		return
	}
	t.failures = append(t.failures, f)
}

// Failed reports whether a failure has been recorded.
func (t *T) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.failures) > 0
}

// Eventually polls cond every interval until it reports done, and fails the check (with cond's last
// explanation) when the suite's eventual-consistency time-out passes first. How long the outcome took
// is the target's pace, which sizes the settle windows (Settle).
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
func (t *T) poll(what string, cond func() (done bool, state string)) (took time.Duration, ok bool, state string) {
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
		select {
		case <-t.ctx.Done():
			t.Fatalf("cancelled while waiting for %s (%v); last seen: %s", what, context.Cause(t.ctx), state)
		case <-time.After(interval):
		}
		if interval < 200*time.Millisecond {
			interval *= 2
		}
	}
}

// Settle waits for a settle window, so that a check can verify that something does NOT happen (a
// final state changes, an unsubscribed endpoint gets a delivery). The window follows the target
// (settleWindow). A window cut short proves nothing, so the check ends there: as a failure when its
// own time-out ended it, as interrupted when the run stopped.
func (t *T) Settle() {
	window := t.suite.settleWindow()
	timer := time.NewTimer(window)
	defer timer.Stop()
	select {
	case <-t.ctx.Done():
		t.Fatalf("a %s settle window was cut short: %v", window, context.Cause(t.ctx))
	case <-timer.C:
	}
}
