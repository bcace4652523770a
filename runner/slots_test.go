package runner_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// activity counts the checks acting (outside Idle) at once, and the most ever seen.
type activity struct{ now, most atomic.Int32 }

func (a *activity) enter() {
	n := a.now.Add(1)
	for m := a.most.Load(); n > m && !a.most.CompareAndSwap(m, n); m = a.most.Load() {
	}
}

func (a *activity) leave() { a.now.Add(-1) }

// check is a check that acts, waits (idle) until wait is closed or its deadline, and acts again.
func (a *activity) check(wait <-chan struct{}) func(context.Context, *runner.Recorder) {
	return func(ctx context.Context, rec *runner.Recorder) {
		a.enter()
		a.leave()
		rec.Idle(func() {
			select {
			case <-wait:
			case <-ctx.Done():
			}
		})
		a.enter()
		a.leave()
	}
}

// A check that only waits holds no concurrency slot: with Concurrency 1, twenty checks that each wait
// until all twenty have started all start (one slot for the lot would deadlock until their deadlines),
// and still never two act at once.
func TestIdleChecksHoldNoSlot(t *testing.T) {
	const n = 20
	var started sync.WaitGroup
	started.Add(n)
	allStarted := make(chan struct{})
	go func() { started.Wait(); close(allStarted) }()
	var a activity
	checks := make([]runner.Check, n)
	for i := range checks {
		inner := a.check(allStarted)
		checks[i] = runner.Check{ID: string(rune('a' + i)), Run: func(ctx context.Context, rec *runner.Recorder) {
			started.Done()
			inner(ctx, rec)
			if ctx.Err() != nil {
				rec.Fail(report.Failure{Message: "waited until the deadline: the other checks never started"})
			}
		}}
	}
	sum, err := runner.Run(context.Background(), runner.Options{Concurrency: 1, CheckTimeout: 5 * time.Second}, checks, nil)
	require.NoError(t, err)
	assert.Equal(t, n, sum.Passed, "every check passes: %+v", sum.Results)
	assert.Equal(t, int32(1), a.most.Load(), "at most Concurrency checks act at once")
}

// A check that comes back from a wait is served before checks that have not started: with Concurrency
// 1, the first check idles while the second runs, and the second ends its wait; the first must act
// again before the third starts.
func TestResumingCheckGoesFirst(t *testing.T) {
	var order []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	wake := make(chan struct{})
	resuming := make(chan struct{}, 1)
	defer runner.OnQueued(func(resume bool) {
		if resume {
			resuming <- struct{}{}
		}
	})()
	checks := []runner.Check{
		{ID: "1", Run: func(_ context.Context, rec *runner.Recorder) {
			note("1 starts")
			rec.Idle(func() { <-wake })
			note("1 resumes")
		}},
		{ID: "2", Run: func(context.Context, *runner.Recorder) {
			note("2 starts")
			close(wake)
			<-resuming // 1 is waiting to act again, and 3 to start

		}},
		{ID: "3", Run: func(context.Context, *runner.Recorder) { note("3 starts") }},
	}
	_, err := runner.Run(context.Background(), runner.Options{Concurrency: 1}, checks, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"1 starts", "2 starts", "1 resumes", "3 starts"}, order)
}

// Alone checks keep their slot while they wait: nothing runs beside them. An Idle that gave the slot
// back would have done so before its wait began, so each check counts, inside its wait, the slots given
// back so far: one per alone check that has ended, and no more.
func TestAloneChecksKeepTheirSlot(t *testing.T) {
	var a activity
	var inIdle, freed, ended atomic.Int32
	var overlapped, gaveBack atomic.Bool
	defer runner.OnReleased(func() { freed.Add(1) })()
	alone := func(_ context.Context, rec *runner.Recorder) {
		if inIdle.Load() > 0 {
			overlapped.Store(true)
		}
		rec.Idle(func() {
			inIdle.Add(1)
			defer inIdle.Add(-1)
			if freed.Load() > ended.Load() {
				gaveBack.Store(true)
			}
		})
		a.enter()
		a.leave()
		ended.Add(1) // before the runner gives its slot back
	}
	checks := []runner.Check{{ID: "a1", Alone: true, Run: alone}, {ID: "a2", Alone: true, Run: alone}, {ID: "a3", Alone: true, Run: alone}}
	_, err := runner.Run(context.Background(), runner.Options{Concurrency: 4}, checks, nil)
	require.NoError(t, err)
	assert.False(t, gaveBack.Load(), "an alone check gave its slot back while idle")
	assert.False(t, overlapped.Load(), "an alone check started while another was idle")
	assert.Equal(t, int32(1), a.most.Load(), "alone checks act one at a time")
}

// A check that ends inside Idle (its deadline, a fatal failure) gives nothing back twice and takes
// nothing it does not return: the run goes on with the checks after it, one at a time.
func TestCheckEndingInsideIdle(t *testing.T) {
	var a activity
	checks := []runner.Check{
		{ID: "1", Run: func(ctx context.Context, rec *runner.Recorder) {
			rec.Idle(func() {
				<-ctx.Done()
				rec.Fail(report.Failure{Message: "deadline"})
				runtime.Goexit()
			})
		}},
	}
	for i := range 5 {
		checks = append(checks, runner.Check{ID: string(rune('2' + i)), Run: func(context.Context, *runner.Recorder) { a.enter(); time.Sleep(time.Millisecond); a.leave() }})
	}
	sum, err := runner.Run(context.Background(), runner.Options{Concurrency: 1, CheckTimeout: 50 * time.Millisecond}, checks, nil)
	require.NoError(t, err)
	assert.Equal(t, []int{5, 1}, []int{sum.Passed, sum.Failed})
	assert.Equal(t, int32(1), a.most.Load())
}
