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
// sandbox). It was 8 objects a payout before the idempotency store and the object arena, next to none
// after. The event log is bounded (maxEventLog), so it is full before the first count and after the
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
	const n = maxEventLog
	preloadPayouts(t, srv, n) // fills the event log, warms every pool and map
	before := liveObjects()
	preloadPayouts(t, srv, n)
	after := liveObjects()
	perPayout := (float64(after) - float64(before)) / n
	t.Logf("%.2f heap objects per stored payout", perPayout)
	assert.LessOrEqual(t, perPayout, 0.5, "heap objects a stored payout keeps alive")
	runtime.KeepAlive(srv)
}

// TestObjectArena: a stored payout's strings are copies in the arena's text, one after another, its
// account number lives in the payout itself, storing allocates nothing of its own (a chunk now and
// then), and a rewound store leaves nothing behind.
func TestObjectArena(t *testing.T) {
	var a objectArena
	account := "acct-under-test"
	in := Payout{}
	in.PayoutID, in.Reference, in.Narration, in.AccountNumber = newID(prefixPayout), "ref-1", "Supplier invoice 88", &account
	p := a.payout(in)
	assert.Equal(t, in.PayoutID, p.PayoutID)
	assert.Equal(t, "ref-1", p.Reference)
	assert.Equal(t, "Supplier invoice 88", p.Narration)
	assert.Equal(t, account, *p.AccountNumber)
	assert.Same(t, &p.accountNumber, p.AccountNumber, "the account number lives in the payout")
	addr := func(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }
	assert.NotEqual(t, addr(in.PayoutID), addr(p.PayoutID), "the id is a copy")
	assert.Equal(t, addr(p.PayoutID)+uintptr(len(p.PayoutID)), addr(p.Reference), "the reference follows the id in the text")
	assert.Equal(t, addr(p.Reference)+uintptr(len(p.Reference)), addr(p.Narration))
	assert.Nil(t, unsafe.StringData(p.MomoPhoneNumber), "an empty field points nowhere")

	saved := a
	dup := a.payout(in)
	a.rewind(saved)
	assert.Zero(t, *dup, "a rewound payout is cleared")
	again := a.payout(in)
	assert.Same(t, dup, again, "and its place is used again")
	assert.Equal(t, addr(dup.PayoutID), addr(again.PayoutID), "so is its text")

	allocs := testing.AllocsPerRun(10*arenaObjects, func() { a.payout(in) })
	assert.Less(t, allocs, 0.05, "heap objects allocated per stored payout (a chunk every arenaObjects)")

	redirect := "https://merchant.example.org/done"
	pay := Payment{}
	pay.PaymentReference, pay.Reference, pay.RedirectURL = newID(prefixPayment), "ref-2", &redirect
	stored := a.payment(pay)
	assert.Equal(t, redirect, *stored.RedirectURL)
	assert.Same(t, &stored.redirectURL, stored.RedirectURL)
	assert.Equal(t, "ref-2", stored.Reference)
	assert.Nil(t, a.payment(Payment{}).RedirectURL, "an absent optional field stays absent")
}
