package runner_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// events records what a reporter is told, in order.
type events struct {
	mu       sync.Mutex
	started  []string
	done     []string
	finished *report.Summary
}

func (e *events) Start(ids []string) { e.mu.Lock(); e.started = ids; e.mu.Unlock() }
func (e *events) CheckDone(r report.Result) {
	e.mu.Lock()
	e.done = append(e.done, r.ID)
	e.mu.Unlock()
}
func (e *events) Finish(s *report.Summary) error {
	e.mu.Lock()
	e.finished = s
	e.mu.Unlock()
	return nil
}

func byID(sum *report.Summary) map[string]report.Result {
	out := map[string]report.Result{}
	for _, r := range sum.Results {
		out[r.ID] = r
	}
	return out
}

// Each way a check can end is its own verdict and ends only that check: a pass, a failure, a skip that
// ends its goroutine, a panic (a bug of the grader), and a check that outlives its deadline. The
// results come sorted by id, with the check's description and rule, and the reporters see every one.
func TestEachCheckEndsAlone(t *testing.T) {
	rule := report.Rule{Pointer: "#/info/description", Quote: "q"}
	checks := []runner.Check{
		{ID: "e.panics", Run: func(context.Context, *runner.Recorder) { panic("boom") }},
		{ID: "d.deadline", Run: func(ctx context.Context, rec *runner.Recorder) {
			<-ctx.Done()
			rec.Fail(report.Failure{Message: "waited until " + context.Cause(ctx).Error()})
		}},
		{ID: "c.skips", Run: func(_ context.Context, rec *runner.Recorder) {
			rec.Skip("not here")
			panic("Skip ends the check's goroutine")
		}},
		{ID: "b.fails", Doc: "it fails", Rule: rule, Run: func(_ context.Context, rec *runner.Recorder) {
			assert.Equal(t, 0, rec.Fail(report.Failure{Message: "one"}))
			assert.Equal(t, 1, rec.Fail(report.Failure{Message: "two"}))
			assert.True(t, rec.Failed())
		}},
		{ID: "a.passes", Run: func(context.Context, *runner.Recorder) {}},
	}
	var ev events
	sum, err := runner.Run(context.Background(), runner.Options{CheckTimeout: 50 * time.Millisecond, Summary: report.Summary{Target: "t"}}, checks, []report.Reporter{&ev})
	require.NoError(t, err)
	assert.Equal(t, []string{"e.panics", "d.deadline", "c.skips", "b.fails", "a.passes"}, ev.started)
	assert.ElementsMatch(t, ev.started, ev.done)
	assert.Same(t, sum, ev.finished)
	assert.Equal(t, "t", sum.Target)
	var ids []string
	for _, r := range sum.Results {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{"a.passes", "b.fails", "c.skips", "d.deadline", "e.panics"}, ids)
	res := byID(sum)
	assert.Equal(t, report.Passed, res["a.passes"].Outcome)
	assert.Equal(t, report.Failed, res["b.fails"].Outcome)
	assert.Len(t, res["b.fails"].Failures, 2)
	assert.Equal(t, "it fails", res["b.fails"].Doc)
	assert.Equal(t, rule, res["b.fails"].Rule)
	assert.Equal(t, report.Skipped, res["c.skips"].Outcome)
	assert.Equal(t, "not here", res["c.skips"].SkipReason)
	assert.Equal(t, report.Failed, res["d.deadline"].Outcome, "a check's own deadline is no interruption of the run")
	assert.Contains(t, res["d.deadline"].Failures[0].Message, context.DeadlineExceeded.Error())
	assert.Equal(t, report.Failed, res["e.panics"].Outcome)
	assert.Contains(t, res["e.panics"].Failures[0].Message, "boom")
	assert.Equal(t, []int{1, 3, 1, 0}, []int{sum.Passed, sum.Failed, sum.Skipped, sum.Interrupted})
	assert.Equal(t, runner.ExitNonConformant, runner.ExitCode(sum, err))
}

// Final checks start only when every other check has ended, and Alone checks one at a time after
// them; the others overlap up to Concurrency.
func TestPhases(t *testing.T) {
	var regularRunning, regularDone, inFlight, maxInFlight, aloneRunning atomic.Int32
	overlap := make(chan struct{})
	var once sync.Once
	regular := func(context.Context, *runner.Recorder) {
		if regularRunning.Add(1) == 2 {
			once.Do(func() { close(overlap) })
		}
		select { // the two regular checks meet: they run at once
		case <-overlap:
		case <-time.After(5 * time.Second):
			t.Error("the regular checks did not overlap")
		}
		regularDone.Add(1)
	}
	final := func(_ context.Context, rec *runner.Recorder) {
		if regularDone.Load() != 2 {
			rec.Fail(report.Failure{Message: "a final check started before the others had ended"})
		}
	}
	// The first alone check holds on until the runner waits to start the second (right) or the second
	// has started beside it (wrong): either way the verdict below is known, not hoped for.
	nextWaiting, secondStarted := make(chan struct{}), make(chan struct{})
	var waitingOnce sync.Once
	defer runner.OnQueued(func(bool) { waitingOnce.Do(func() { close(nextWaiting) }) })()
	alone := func(_ context.Context, rec *runner.Recorder) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := maxInFlight.Load()
			if n <= m || maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		if aloneRunning.Add(1) == 1 {
			select {
			case <-nextWaiting:
			case <-secondStarted:
			}
		} else {
			close(secondStarted)
		}
	}
	checks := []runner.Check{
		{ID: "alone.1", Alone: true, Run: alone}, {ID: "final.1", Final: true, Run: final},
		{ID: "regular.1", Run: regular}, {ID: "alone.2", Alone: true, Run: alone}, {ID: "regular.2", Run: regular},
	}
	sum, err := runner.Run(context.Background(), runner.Options{Concurrency: 4}, checks, nil)
	require.NoError(t, err)
	for _, r := range sum.Results {
		assert.Equal(t, report.Passed, r.Outcome, "%s: %v", r.ID, r.Failures)
	}
	assert.Equal(t, int32(2), aloneRunning.Load())
	assert.Equal(t, int32(1), maxInFlight.Load(), "alone checks run one at a time")
}

// A run whose context ends stops: the running check's later failure is no verdict (interrupted), the
// checks not started have no result (NotRun), a failure recorded before the stop stands, and the error
// says how far the run got. A cause that wraps ErrUnreachable is returned as it is.
func TestInterruption(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cause error
		want  error
		exit  int
	}{
		{"interrupted", errors.New("SIGINT"), runner.ErrInterrupted, runner.ExitInterrupted},
		{"target lost", fmt.Errorf("%w: connection refused", runner.ErrUnreachable), runner.ErrUnreachable, runner.ExitSetup},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, stop := context.WithCancelCause(context.Background())
			started := make(chan struct{}, 2)
			blocked := func(ctx context.Context, rec *runner.Recorder) {
				if rec.Fail(report.Failure{Message: "before the stop"}) < 0 {
					t.Error("a failure before the stop must be recorded")
				}
				started <- struct{}{}
				<-ctx.Done()
				assert.Equal(t, -1, rec.Fail(report.Failure{Message: "after the stop"}))
			}
			cut := func(ctx context.Context, rec *runner.Recorder) {
				started <- struct{}{}
				<-ctx.Done()
				rec.Fail(report.Failure{Message: "cancelled"})
			}
			never := func(context.Context, *runner.Recorder) { t.Error("no check starts after the stop") }
			go func() { <-started; <-started; stop(tc.cause) }()
			sum, err := runner.Run(ctx, runner.Options{Concurrency: 2},
				[]runner.Check{{ID: "a", Run: blocked}, {ID: "b", Run: cut}, {ID: "c", Run: never}}, nil)
			require.ErrorIs(t, err, tc.want)
			assert.Equal(t, tc.exit, runner.ExitCode(sum, err))
			res := byID(sum)
			assert.Equal(t, report.Failed, res["a"].Outcome)
			assert.Len(t, res["a"].Failures, 1)
			assert.Equal(t, report.Interrupted, res["b"].Outcome)
			assert.Contains(t, res["b"].Interruption, context.Cause(ctx).Error())
			assert.Equal(t, 1, sum.NotRun)
			assert.Contains(t, sum.Aborted, "1 of 3 checks finished, 1 interrupted, 1 not run")
		})
	}
}

// OnResult completes a result once its outcome is known and before the reporters see it; Done
// completes the summary before they finish.
func TestHooks(t *testing.T) {
	var ev events
	sum, err := runner.Run(context.Background(), runner.Options{Done: func(s *report.Summary) { s.Coverage.StatusCodesSeen = 7 }},
		[]runner.Check{{ID: "a", Run: func(_ context.Context, rec *runner.Recorder) {
			rec.OnResult(func(r *report.Result) {
				assert.Equal(t, report.Failed, r.Outcome)
				r.Evidence = []report.Evidence{{Kind: report.EvidenceRequest}}
			})
			rec.Fail(report.Failure{Message: "x"})
		}}}, []report.Reporter{&ev})
	require.NoError(t, err)
	assert.Len(t, sum.Results[0].Evidence, 1)
	assert.Equal(t, 7, ev.finished.Coverage.StatusCodesSeen)
}

// unwritable is a file reporter whose file cannot be written.
type unwritable struct{ events }

func (*unwritable) Prepare() error { return errors.New("cannot write the report x: no") }

// A report that cannot be written is a setup error before the run, in the reporter's words.
func TestPrepare(t *testing.T) {
	err := runner.Prepare([]report.Reporter{&events{}, &unwritable{}})
	require.ErrorIs(t, err, runner.ErrSetup)
	assert.Equal(t, "setup error: cannot write the report x: no", err.Error())
	assert.Equal(t, runner.ExitSetup, runner.ExitCode(nil, err))
}

// A selection that leaves nothing names the filter that emptied it.
func TestFilterEmpty(t *testing.T) {
	ids := []string{"auth.a", "auth.b", "state.c"}
	f := runner.Filter{Run: regexp.MustCompile(`^auth\.`), Skip: regexp.MustCompile(`b$`)}
	require.NoError(t, f.Empty(ids))
	assert.True(t, f.Keeps("auth.a"))
	assert.False(t, f.Keeps("auth.b"))
	assert.False(t, f.Keeps("state.c"))
	for _, tc := range []struct {
		f    runner.Filter
		says string
	}{
		{runner.Filter{}, "there are no checks"},
		{runner.Filter{Run: regexp.MustCompile(`typo`)}, "--run 'typo' matches none of the 3 checks"},
		{runner.Filter{Skip: regexp.MustCompile(`.`)}, "--skip '.' matches every one of the 3 checks"},
		{runner.Filter{Run: regexp.MustCompile(`^auth`), Skip: regexp.MustCompile(`auth`)}, "--skip 'auth' matches all 2 checks --run '^auth' selects"},
	} {
		list := ids
		if tc.f.Run == nil && tc.f.Skip == nil {
			list = nil
		}
		err := tc.f.Empty(list)
		require.ErrorIs(t, err, runner.ErrNoChecks)
		require.ErrorIs(t, err, runner.ErrSetup)
		assert.Contains(t, err.Error(), tc.says)
	}
}
