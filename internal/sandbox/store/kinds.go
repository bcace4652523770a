package store

import (
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Payments and payouts are stored, changed, listed and loaded by one code, below; kind says what it
// needs to know of either (paymentKind, payoutKind). The exported methods of Merchant that name one
// of them (CreatePayment, UpdatePayout, RecentPayments, …) call it.
type kind[T any] struct {
	name    string // in errors of Load
	bucket  []byte
	objects func(*Merchant) map[string]*T
	// names returns the object's id (paymentReference, payout_id) and merchant reference.
	names     func(*T) (id, reference string)
	updatedAt func(*T) time.Time
	// pack readies a new object for the arena (arena.go): the caller's copy, not yet stored.
	pack  func(*Merchant, *T)
	store func(*objectArena, T) *T
	// record is what the data file keeps of the object; decode reads it back.
	record func(*T) any
	decode func([]byte) (T, error)
	// pending is what Load reports of a processing object; false for one in another status.
	pending func(*T) (Pending, bool)
}

var paymentKind = kind[Payment]{
	name:      "payment",
	bucket:    bucketPayments,
	objects:   func(m *Merchant) map[string]*Payment { return m.payments },
	names:     func(p *Payment) (string, string) { return p.PaymentReference, p.Reference },
	updatedAt: func(p *Payment) time.Time { return p.UpdatedAt },
	pack:      func(m *Merchant, p *Payment) { m.arena.packPayment(p) },
	store:     (*objectArena).storePayment,
	record:    func(p *Payment) any { return paymentRecord{p.Payment, p.Seeded} },
	decode:    decodeRecord[paymentRecord],
	pending:   func(p *Payment) (Pending, bool) { return Pending{Payment: p}, p.Status == api.PaymentStatusProcessing },
}

var payoutKind = kind[Payout]{
	name:      "payout",
	bucket:    bucketPayouts,
	objects:   func(m *Merchant) map[string]*Payout { return m.payouts },
	names:     func(p *Payout) (string, string) { return p.PayoutID, p.Reference },
	updatedAt: func(p *Payout) time.Time { return p.UpdatedAt },
	pack: func(m *Merchant, p *Payout) {
		if m.st.intern != nil {
			m.st.intern(&p.Payout)
		}
		m.arena.packPayout(p)
	},
	store:   (*objectArena).storePayout,
	record:  func(p *Payout) any { return payoutRecord{p.Payout, p.Seeded} },
	decode:  decodeRecord[payoutRecord],
	pending: func(p *Payout) (Pending, bool) { return Pending{Payout: p}, p.Status == api.PayoutStatusProcessing },
}

// create stores o unless claim refuses its merchant reference, in which case it returns the holder
// and false. The returned object is a copy.
func create[T any](tx *Tx, m *Merchant, k *kind[T], o T, claim Claim) (T, string, bool) {
	k.pack(m, &o)
	if id, ref := k.names(&o); ref != "" {
		if holder, ok := claim(m.references, ref, id); !ok {
			var none T
			return none, holder, false
		}
	}
	q := k.store(&m.arena, o)
	id, _ := k.names(q)
	k.objects(m)[id] = q
	write(tx, m, k, q)
	return *q, "", true
}

// update applies change to a copy of the object with id, stores it and returns it; false when there
// is no such object. change must not change the object's id or reference.
func update[T any](tx *Tx, m *Merchant, k *kind[T], id string, change func(*T)) (T, bool) {
	q, ok := k.objects(m)[id]
	if !ok {
		var none T
		return none, false
	}
	o := *q
	change(&o)
	*q = o
	write(tx, m, k, q)
	return o, true
}

func write[T any](tx *Tx, m *Merchant, k *kind[T], o *T) {
	if tx.durable() {
		id, _ := k.names(o)
		tx.put(k.bucket, m.key(id), k.record(o))
	}
}

// get returns a copy of the object with id.
func get[T any](m *Merchant, k *kind[T], id string) (T, bool) {
	q, ok := k.objects(m)[id]
	if !ok {
		var none T
		return none, false
	}
	return *q, true
}

// all returns copies of every object, in no particular order.
func all[T any](m *Merchant, k *kind[T]) []T {
	objects := k.objects(m)
	out := make([]T, 0, len(objects))
	for _, q := range objects {
		out = append(out, *q)
	}
	return out
}

// recent returns copies of the n objects that changed last, newest first (newest).
func recent[T any](m *Merchant, k *kind[T], n int) []T {
	return newest(k.objects(m), n, func(o *T) (time.Time, string) {
		id, _ := k.names(o)
		return k.updatedAt(o), id
	})
}
