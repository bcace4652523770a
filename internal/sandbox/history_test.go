package sandbox

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoredPayoutHeapObjects holds what a payout costs the garbage collector once it is stored:
// settled, its event sent, its Idempotency-Key kept for replay. The collector visits every object of
// the live heap on every cycle, so this number times the sandbox's history is what each collection of
// a long-running sandbox costs (issue 15: payout creates after a million payouts as fast as on a fresh
// sandbox). It was 8 objects a payout before the idempotency store and packed strings, 2 after: the
// payout and its packed strings. The event log is bounded (maxEventLog), so it is full before the
// first count and after the second, and cancels out.
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
	const n = maxEventLog
	preloadPayouts(t, srv, n) // fills the event log, warms every pool and map
	before := liveObjects()
	preloadPayouts(t, srv, n)
	after := liveObjects()
	perPayout := (float64(after) - float64(before)) / n
	t.Logf("%.2f heap objects per stored payout", perPayout)
	assert.LessOrEqual(t, perPayout, 2.5, "heap objects a stored payout keeps alive")
	runtime.KeepAlive(srv)
}

// TestPackedPayoutSharesOneAllocation: a packed payout's strings are parts of one allocation, its
// account number lives in the payout itself, and packing costs exactly one allocation.
func TestPackedPayoutSharesOneAllocation(t *testing.T) {
	account := "0000000001"
	p := &Payout{}
	p.PayoutID, p.Reference, p.Narration, p.AccountNumber = newID(prefixPayout), "ref-1", "Supplier invoice 88", &account
	p.pack()
	assert.Equal(t, "ref-1", p.Reference)
	assert.Equal(t, "Supplier invoice 88", p.Narration)
	assert.Equal(t, account, *p.AccountNumber)
	assert.Same(t, &p.accountNumber, p.AccountNumber, "the account number lives in the payout")
	start := uintptr(unsafe.Pointer(unsafe.StringData(p.PayoutID)))
	assert.Equal(t, start+uintptr(len(p.PayoutID)), uintptr(unsafe.Pointer(unsafe.StringData(p.Reference))), "reference follows the id in one allocation")
	assert.Equal(t, uintptr(unsafe.Pointer(unsafe.StringData(p.Reference)))+uintptr(len(p.Reference)), uintptr(unsafe.Pointer(unsafe.StringData(p.Narration))))

	orig, q := *p, new(Payout)
	allocs := testing.AllocsPerRun(100, func() {
		*q = orig
		q.pack()
	})
	assert.Equal(t, 1.0, allocs, "packing allocates the one string")

	pay := &Payment{}
	redirect := "https://merchant.example.org/done"
	pay.PaymentReference, pay.Reference, pay.RedirectURL = newID(prefixPayment), "ref-2", &redirect
	pay.pack()
	assert.Equal(t, redirect, *pay.RedirectURL)
	assert.Same(t, &pay.redirectURL, pay.RedirectURL)
	assert.Equal(t, "ref-2", pay.Reference)
}
