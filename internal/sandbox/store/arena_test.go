package store

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// TestObjectArena: a stored payout's strings are copies in the arena's text, one after another, its
// account number lives in the payout itself, and storing allocates nothing of its own (a chunk now
// and then).
func TestObjectArena(t *testing.T) {
	var a objectArena
	account := "acct-under-test"
	in := Payout{}
	in.PayoutID, in.Reference, in.Narration, in.AccountNumber = "po_1", "ref-1", "Supplier invoice 88", &account
	packed := in
	a.packPayout(&packed)
	p := a.storePayout(packed)
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

	allocs := testing.AllocsPerRun(10*arenaObjects, func() {
		q := in
		a.packPayout(&q)
		a.storePayout(q)
	})
	assert.Less(t, allocs, 0.05, "heap objects allocated per stored payout (a chunk every arenaObjects)")

	redirect := "https://merchant.example.org/done"
	pay := Payment{}
	pay.PaymentReference, pay.Reference, pay.RedirectURL = "pay_1", "ref-2", &redirect
	a.packPayment(&pay)
	stored := a.storePayment(pay)
	assert.Equal(t, redirect, *stored.RedirectURL)
	assert.Same(t, &stored.redirectURL, stored.RedirectURL)
	assert.Equal(t, "ref-2", stored.Reference)
	empty := Payment{}
	a.packPayment(&empty)
	assert.Nil(t, a.storePayment(empty).RedirectURL, "an absent optional field stays absent")
}

// TestRefusedCreateLeavesHeldStringsIntact: a create refused for its reference hands the claim (a
// Rules wrapper) strings it may keep; nothing stored later overwrites them, and no stored object
// shares their place. Before the store, the arena took the refused create's text back and gave it to
// the next object, so a kept reference changed under its holder.
func TestRefusedCreateLeavesHeldStringsIntact(t *testing.T) {
	st := New()
	m := st.AddMerchant("pk")
	tx := st.Begin()
	payout := func(id, ref string) Payout {
		p := Payout{}
		p.PayoutID, p.Reference, p.Narration = id, ref, "n"
		return p
	}
	_, _, ok := m.CreatePayout(tx, payout("po_1", "ref-a"), ClaimReference)
	assert.True(t, ok)
	var held []string
	keeper := func(refs map[string]string, ref, id string) (string, bool) {
		held = append(held, ref, id)
		return ClaimReference(refs, ref, id)
	}
	_, holder, ok := m.CreatePayout(tx, payout("po_2", "ref-a"), keeper)
	assert.False(t, ok)
	assert.Equal(t, "po_1", holder)
	for i := range 1 << 10 { // enough to reuse any place that had been taken back
		m.CreatePayout(tx, payout(fmt.Sprint("po_x", i), fmt.Sprint("r", i)), keeper)
	}
	assert.Equal(t, []string{"ref-a", "po_2"}, held[:2], "what the wrapper kept is what it was given")
	_, ok = m.Payout("po_2")
	assert.False(t, ok, "the refused payout is not stored")
}
