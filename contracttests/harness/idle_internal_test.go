package harness

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// Every way a check waits for the target gives its concurrency slot back meanwhile: with one slot, a
// check that waits (polling the target, watching the receiver, a settle window) lets a second check
// run before its wait ends. Were a wait to hold the slot, the second check would start only after it:
// the polls would time out, and the window would end first.
func TestWaitsHoldNoSlot(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	r, err := webhooksink.NewReceiver(spec, "127.0.0.1:0", "")
	require.NoError(t, err)
	defer func() { _ = r.Close() }()
	for _, tc := range []struct {
		name string
		wait func(t *T, other <-chan struct{})
	}{
		{"Eventually", func(t *T, other <-chan struct{}) {
			t.Eventually("the other check", func() (bool, string) { return closed(other), "not yet" })
		}},
		{"WaitDeliveries", func(t *T, other <-chan struct{}) {
			path, _ := t.Hook()
			t.WaitDeliveries(path, "the other check", func([]*webhooksink.Delivery) bool { return closed(other) })
		}},
		{"Settle", func(t *T, other <-chan struct{}) {
			t.Settle()
			if !closed(other) {
				t.Errorf("the other check did not run during the settle window")
			}
		}},
	} {
		t.Run(tc.name, func(tt *testing.T) {
			s := &Suite{cfg: Config{EventuallyTimeout: 3 * time.Second, SettleTime: 2 * time.Second}, receiver: r}
			other := make(chan struct{})
			var once sync.Once
			checks := []runner.Check{
				{ID: "waits", Run: func(ctx context.Context, rec *runner.Recorder) {
					tc.wait(&T{ctx: ctx, check: &Check{ID: "waits"}, suite: s, rec: rec}, other)
				}},
				{ID: "other", Run: func(context.Context, *runner.Recorder) { once.Do(func() { close(other) }) }},
			}
			sum, err := runner.Run(context.Background(), runner.Options{Concurrency: 1}, checks, nil)
			require.NoError(tt, err)
			for _, res := range sum.Results {
				assert.Equal(tt, report.Passed, res.Outcome, "%s: %v", res.ID, res.Failures)
			}
		})
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
