package sandbox

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
)

// TestStoredPayoutHeapObjects holds what a payout costs the garbage collector once it is stored:
// settled, its event sent, its Idempotency-Key kept for replay. The collector visits every object of
// the live heap on every cycle, so this number times the sandbox's history is what each collection of
// a long-running sandbox costs (issue 15: payout creates after a million payouts as fast as on a fresh
// sandbox). It was 8 objects a payout before the idempotency store and the object arena, next to none
// after. The event log is bounded (store.MaxEventLog), so it is full before the first count and after the
// second, and cancels out.
func TestStoredPayoutHeapObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 2×maxEventLog payouts")
	}
	srv, err := New(WithTimings(Timings{PayoutDelay: time.Millisecond}), WithSeedData(false))
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	liveObjects := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapObjects
	}
	const n = store.MaxEventLog
	preloadPayouts(t, srv, n) // fills the event log, warms every pool and map
	before := liveObjects()
	preloadPayouts(t, srv, n)
	after := liveObjects()
	perPayout := (float64(after) - float64(before)) / n
	t.Logf("%.2f heap objects per stored payout", perPayout)
	assert.LessOrEqual(t, perPayout, 0.5, "heap objects a stored payout keeps alive")
	runtime.KeepAlive(srv)
}
