// Package runner runs a grader's checks and turns them into a report.Summary: how many act at once (a
// check that only waits gives its place to another, Recorder.Idle), which after the others, a deadline
// for each, a check that panics or ends its goroutine, a run that is interrupted or loses its target,
// and the exit status that tells CI the verdict. Both graders run on
// it: `malipo conform` (package contracttests) and `malipo webhooks test` (package receivertests).
//
// A grader owns what a check does and what it sends; the runner knows a check only by its id, its
// phase and its Run function, which records its verdict in a Recorder. Reporters (package report) only
// format what the runner hands them.
package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/report"
)

// Check is one check as the runner sees it.
type Check struct {
	// ID is the check's stable id, which reports show and --run selects.
	ID string
	// Category groups the check in reports.
	Category report.Category
	// Doc is its one-line description, shown next to a failure.
	Doc string
	// Rule is what the check enforces, shown next to a failure.
	Rule report.Rule
	// Final checks run after every other check has ended, Concurrency at a time: they judge what the
	// others left (every webhook type observed, every signature valid).
	Final bool
	// Alone checks run one at a time, after the final ones: a burst whose timing others would skew.
	Alone bool
	// Run performs the check within ctx, which ends at the check's deadline or when the run stops, and
	// records its verdict in rec. It may end its goroutine (runtime.Goexit) after a fatal failure or a
	// skip; a panic fails the check, not the run.
	Run func(ctx context.Context, rec *Recorder)
}

// Options say how to run the checks.
type Options struct {
	// Concurrency is how many checks act at once (default 8): a check that only waits (Recorder.Idle)
	// holds none of them meanwhile, so more checks than this may have started.
	Concurrency int
	// CheckTimeout bounds each check (default 60 s).
	CheckTimeout time.Duration
	// Summary is the head of the run's summary: who ran (Tool), against what (Target), how to run it
	// again (Rerun), from which seed (Seed), how its curl lines replay (ReplayNote). The runner
	// fills in the results, the counts and the time.
	Summary report.Summary
	// Done, if set, is called once every check has ended and before the reporters finish, to complete
	// the summary (coverage) or release what the checks shared (idle connections).
	Done func(*report.Summary)
}

// Recorder is where a running check records its verdict. Its methods are safe for concurrent use by
// the goroutines of one check.
type Recorder struct {
	run context.Context
	// check is the check's own context; slots, when not nil, are the phase's, of which the check holds
	// one while held is true (see Idle). Alone checks have none to give back.
	check context.Context
	slots *slots
	held  bool

	mu       sync.Mutex
	failures []report.Failure
	skip     string
	// cut says a failure came after the run had stopped: the check was interrupted.
	cut      bool
	finishes []func(*report.Result)
}

// Fail records a failure and returns its index in the result's Failures, unless the run has stopped
// (interrupted, or the target stopped answering): a request cancelled or refused from then on fails
// because of the stop, so the check is marked interrupted instead and Fail returns -1. Failures
// recorded before the stop stand.
func (r *Recorder) Fail(f report.Failure) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.run.Err() != nil {
		r.cut = true
		return -1
	}
	r.failures = append(r.failures, f)
	return len(r.failures) - 1
}

// Failed reports whether a failure has been recorded.
func (r *Recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.failures) > 0
}

// Skip records that the check is skipped, with the reason reports show, and ends the check's
// goroutine. A check that failed before it skips still fails.
func (r *Recorder) Skip(reason string) {
	r.mu.Lock()
	r.skip = reason
	r.mu.Unlock()
	runtime.Goexit()
}

// Idle runs wait, which only waits (for a settlement, a delivery, a retry, a settle window) and sends
// nothing, without the check's concurrency slot, so that other checks act meanwhile; it takes a slot
// back before it returns, ahead of the checks that have not started yet. A check may end its goroutine
// inside wait (a time-out is fatal); the slot is then not taken back. A goroutine of the check that
// acts while another one is idle acts without a slot. An Alone check keeps its slot: nothing else may
// run beside it.
func (r *Recorder) Idle(wait func()) {
	r.mu.Lock()
	release := r.slots != nil && r.held
	r.held = r.held && !release
	r.mu.Unlock()
	if release {
		r.slots.release()
	}
	wait()
	r.reclaim()
}

// reclaim takes a slot back after Idle, unless another goroutine of the check already has: a slot
// comes back when the check's context ends, and the check acts without one (its requests fail with
// that context anyway).
func (r *Recorder) reclaim() {
	r.mu.Lock()
	need := r.slots != nil && !r.held
	r.mu.Unlock()
	if !need {
		return
	}
	got := r.slots.acquire(r.check, true)
	r.mu.Lock()
	extra := got && r.held
	r.held = r.held || got
	r.mu.Unlock()
	if extra {
		r.slots.release()
	}
}

// giveBack returns the slot the check holds when it ends.
func (r *Recorder) giveBack() {
	r.mu.Lock()
	held := r.held
	r.held = false
	r.mu.Unlock()
	if held {
		r.slots.release()
	}
}

// OnResult registers f to complete the check's result once its outcome is known and before any
// reporter sees it: a grader attaches the check's evidence there (kept only for a check that did not
// pass) and redacts the failures' texts.
func (r *Recorder) OnResult(f func(*report.Result)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishes = append(r.finishes, f)
}

// Run runs the checks against what ctx belongs to and reports each result to every reporter as it
// comes, then the whole run. The caller has made sure the run can mean something first (Filter,
// Prepare, its own preflight).
//
// ctx is the run: when it ends, with a cause, no further check starts, the running ones are told
// through their contexts, and a failure they record from then on marks them interrupted. A run stopped
// before every check had ended returns its partial Summary with an error: the cause when it wraps
// ErrUnreachable (the target stopped answering), else ErrInterrupted. Failed checks are in the
// Summary, not the error; the reporters' Finish errors are joined to it. ExitCode maps the pair to
// the exit status.
func Run(ctx context.Context, opts Options, checks []Check, reporters []report.Reporter) (*report.Summary, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.CheckTimeout <= 0 {
		opts.CheckTimeout = 60 * time.Second
	}
	ids := make([]string, len(checks))
	for i, c := range checks {
		ids[i] = c.ID
	}
	for _, r := range reporters {
		r.Start(ids)
	}
	start := time.Now()
	sum := opts.Summary
	sum.Results = nil
	var mu sync.Mutex
	done := func(res report.Result) {
		mu.Lock()
		defer mu.Unlock()
		sum.Results = append(sum.Results, res)
		for _, r := range reporters {
			r.CheckDone(res)
		}
	}
	var regular, final, alone []Check
	for _, c := range checks {
		switch {
		case c.Alone:
			alone = append(alone, c)
		case c.Final:
			final = append(final, c)
		default:
			regular = append(regular, c)
		}
	}
	runAll(ctx, opts, regular, opts.Concurrency, true, done)
	runAll(ctx, opts, final, opts.Concurrency, true, done)
	runAll(ctx, opts, alone, 1, false, done)

	sort.SliceStable(sum.Results, func(i, j int) bool { return sum.Results[i].ID < sum.Results[j].ID })
	sum.Count()
	sum.Duration = time.Since(start)
	if opts.Done != nil {
		opts.Done(&sum)
	}
	errs := []error{stoppedEarly(ctx, &sum, len(checks))}
	for _, r := range reporters {
		errs = append(errs, r.Finish(&sum))
	}
	return &sum, errors.Join(errs...)
}

// runAll runs the checks in their order, concurrency acting at a time, and starts none once ctx has
// ended. With yield, a check gives its slot back while it waits (Recorder.Idle); without, it keeps it.
func runAll(ctx context.Context, opts Options, checks []Check, concurrency int, yield bool, done func(report.Result)) {
	slots := newSlots(concurrency)
	var wg sync.WaitGroup
	for _, c := range checks {
		if !slots.acquire(ctx, false) {
			break
		}
		if ctx.Err() != nil { // a slot handed over as the run stopped: start nothing more
			slots.release()
			break
		}
		wg.Go(func() {
			rec := &Recorder{run: ctx, held: true}
			if yield {
				rec.slots = slots
			}
			defer func() {
				if yield {
					rec.giveBack()
				} else {
					slots.release()
				}
			}()
			done(runOne(ctx, opts.CheckTimeout, c, rec))
		})
	}
	wg.Wait()
}

// runOne runs one check in a goroutine of its own, so that a check that ends it (a fatal failure, a
// skip) or panics ends only itself, and makes its Result.
func runOne(ctx context.Context, timeout time.Duration, c Check, rec *Recorder) report.Result {
	res := report.Result{ID: c.ID, Category: c.Category, Rule: c.Rule, Doc: c.Doc}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rec.check = cctx
	start := time.Now()
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer func() {
			// A check that panics is a bug of the grader, not a verdict on the target, and must not
			// take the run, and every other check's result, down with it.
			if p := recover(); p != nil {
				rec.Fail(report.Failure{Message: fmt.Sprintf("check panicked (a bug of the grader, please report it): %v", p)})
			}
		}()
		c.Run(cctx, rec)
	}()
	<-finished
	res.Duration = time.Since(start)
	rec.mu.Lock()
	res.Failures = rec.failures
	switch {
	case len(rec.failures) > 0:
		// Recorded before the run stopped (Fail): evidence against the target whatever came after.
		res.Outcome = report.Failed
	case rec.cut:
		res.Outcome, res.Interruption = report.Interrupted, "the run stopped while this check ran: "+context.Cause(ctx).Error()
	case rec.skip != "":
		res.Outcome, res.SkipReason = report.Skipped, rec.skip
	default:
		res.Outcome = report.Passed
	}
	finishes := rec.finishes
	rec.mu.Unlock()
	for _, f := range finishes {
		f(&res)
	}
	return res
}

// stoppedEarly returns nil when the run was not stopped before its checks were done; otherwise it
// says in the Summary why and how far the run got, and returns the error Run returns.
func stoppedEarly(ctx context.Context, sum *report.Summary, selected int) error {
	sum.NotRun = selected - len(sum.Results)
	if ctx.Err() == nil || (sum.Interrupted == 0 && sum.NotRun == 0) {
		return nil
	}
	progress := fmt.Sprintf("%d of %d checks finished, %d interrupted, %d not run",
		sum.Passed+sum.Failed+sum.Skipped, selected, sum.Interrupted, sum.NotRun)
	var err error
	if cause := context.Cause(ctx); errors.Is(cause, ErrUnreachable) {
		err = fmt.Errorf("%w (%s)", cause, progress)
	} else {
		err = fmt.Errorf("%w: %w (%s)", ErrInterrupted, cause, progress)
	}
	sum.Aborted = err.Error()
	return err
}

// Prepare calls Prepare on the reporters that have it (report.Preparer): a report that cannot be
// written is an ErrSetup before the target is contacted, not an error after the whole run.
func Prepare(reporters []report.Reporter) error {
	for _, r := range reporters {
		if p, ok := r.(report.Preparer); ok {
			if err := p.Prepare(); err != nil {
				return fmt.Errorf("%w: %w", ErrSetup, err)
			}
		}
	}
	return nil
}
