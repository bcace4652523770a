package harness

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

func TestSettleWindowFollowsTheTarget(t *testing.T) {
	s := &Suite{cfg: Config{EventuallyTimeout: 2 * time.Second}}
	assert.Equal(t, settleUnobserved, s.settleWindow(), "before anything is observed")
	s.pace.observe(time.Millisecond)
	assert.Equal(t, settleFloor, s.settleWindow(), "a very fast target still gets the floor")
	s.pace.observe(100 * time.Millisecond)
	s.pace.observe(40 * time.Millisecond)
	assert.Equal(t, settleFactor*100*time.Millisecond, s.settleWindow(), "a multiple of the slowest outcome")
	s.pace.observe(time.Second)
	assert.Equal(t, 2*time.Second, s.settleWindow(), "capped by the waits' own bound")
	s.cfg.SettleTime = 70 * time.Millisecond
	assert.Equal(t, 70*time.Millisecond, s.settleWindow(), "an explicit SettleTime wins")
}

// A wait for deliveries the receiver provokes retries of measures the target's retry schedule, not its
// pace; other waits for deliveries measure when the deliveries arrived.
func TestWaitDeliveriesObservesThePace(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	r, err := webhooksink.NewReceiver(spec, "127.0.0.1:0", "")
	require.NoError(t, err)
	defer func() { _ = r.Close() }()
	s := &Suite{cfg: Config{EventuallyTimeout: 10 * time.Second}, receiver: r}
	tt := &T{ctx: context.Background(), check: &Check{ID: "x"}, suite: s}
	retried, _ := tt.Hook(webhooksink.Behavior{FailFirst: 1})
	plain, _ := tt.Hook()
	// Each delivery is stamped by the receiver's clock as it arrives: the retried one an hour after
	// start, the plain one 42 s after.
	start := time.Now()
	deliver := func(path string, at time.Duration) {
		r.SetClock(func() time.Time { return start.Add(at) })
		body := `{"id":"evt_1","type":"` + spec.EventTypes()[0] + `"}`
		resp, err := http.Post(r.URL(path), "application/json", strings.NewReader(body))
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
	}
	deliver(retried, time.Hour)
	deliver(plain, 42*time.Second)
	tt.WaitDeliveries(retried, "a retried delivery", func(ds []*webhooksink.Delivery) bool { return len(ds) == 1 })
	assert.False(t, s.pace.observed, "a retry wait is not the target's pace")
	tt.WaitDeliveries(plain, "a delivery", func(ds []*webhooksink.Delivery) bool { return len(ds) == 1 })
	assert.True(t, s.pace.observed)
	assert.GreaterOrEqual(t, s.pace.slowest, 41*time.Second, "measured by arrival, not by the poll that saw it")
}

// Polls start fast, so a fast target's outcome is seen within milliseconds, and back off with the time
// waited, so a minute's wait costs tens of polls, not hundreds, and sees the outcome at most a tenth
// of the time waited late.
func TestPollIntervalFollowsTheWait(t *testing.T) {
	assert.Equal(t, 20*time.Millisecond, pollInterval(10*time.Millisecond, 10*time.Millisecond))
	assert.Equal(t, pollSteady, pollInterval(pollSteady, time.Second), "steady while the wait is short")
	waited, polls, interval := time.Duration(0), 0, 10*time.Millisecond
	for waited < time.Minute {
		waited += interval
		polls++
		interval = pollInterval(interval, waited)
		assert.LessOrEqual(t, interval, max(pollSteady, waited/pollShare), "never later than a tenth of the wait")
	}
	assert.Less(t, polls, 70, "a minute's wait")
	assert.Greater(t, polls, 30, "a minute's wait still looks often")
	t.Logf("a one-minute wait polls %d times", polls)
}
