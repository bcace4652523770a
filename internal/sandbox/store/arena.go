package store

import "unsafe"

// objectArena is where a merchant's payments and payouts live: the structs in chunks of
// arenaObjects, their strings packed into chunks of arenaText bytes. A sandbox keeps every object it
// created, and the garbage collector visits every heap object of the live heap on every cycle, each a
// likely cache miss once the heap is large: a payout decoded field by field was half a dozen objects
// (the struct, each string, the pointer to an optional one), so a sandbox holding a million of them
// spent most of each collection visiting them and created payouts markedly slower than a fresh one.
// In the arena a million payouts are a few thousand chunks. The merchant's maps point into the arena
// too (keys by id and reference), so they add no objects either.
//
// Nothing in the arena is ever handed out twice: text is only appended to, so the bytes under a
// string never change and a string taken from it is as immutable as any Go string (whoever keeps
// one, a Rules wrapper included, keeps a valid string for as long as it likes); a struct is stored
// only once its reference is claimed, so no slot is taken back. The price is the text of a create
// refused for its reference (a few dozen bytes per 409), which stays. The caller serializes calls.
type objectArena struct {
	payouts  []Payout // the chunk being filled; a chunk is never moved, so pointers into it stay valid
	payments []Payment
	text     []byte
}

const (
	arenaObjects = 256
	arenaText    = 64 << 10
)

// packPayout moves p's strings into the arena's text; p is the caller's copy, not yet stored.
func (a *objectArena) packPayout(p *Payout) {
	a.pack(&p.PayoutID, &p.Reference, &p.MomoPhoneNumber, &p.Narration, &p.WebhookURL, ownValue(p.AccountNumber, &p.accountNumber))
}

// storePayout copies a packed payout into the arena and returns the stored one.
func (a *objectArena) storePayout(p Payout) *Payout {
	q := store(&a.payouts, p)
	pointInside(&q.AccountNumber, &q.accountNumber)
	return q
}

// packPayment moves p's strings into the arena's text; p is the caller's copy, not yet stored.
func (a *objectArena) packPayment(p *Payment) {
	a.pack(&p.PaymentReference, &p.Reference, &p.Narration, &p.PhoneNumber, &p.WebhookURL, ownValue(p.RedirectURL, &p.redirectURL))
}

// storePayment copies a packed payment into the arena and returns the stored one.
func (a *objectArena) storePayment(p Payment) *Payment {
	q := store(&a.payments, p)
	pointInside(&q.RedirectURL, &q.redirectURL)
	return q
}

// ownValue copies the value of an optional field, if it is set, into the object's own string (which pack
// then moves into the text) and returns that string's place.
func ownValue(field *string, own *string) *string {
	if field != nil {
		*own = *field
	}
	return own
}

// pointInside points a stored object's optional field, if it is set, at the object's own copy of its
// value: one pointer into the object itself, not a heap string.
func pointInside(field **string, own *string) {
	if *field != nil {
		*field = own
	}
}

// store copies v into the chunk being filled, starting a new chunk when it is full, and returns the
// copy.
func store[T any](chunk *[]T, v T) *T {
	if len(*chunk) == cap(*chunk) {
		*chunk = make([]T, 0, arenaObjects)
	}
	*chunk = append(*chunk, v)
	return &(*chunk)[len(*chunk)-1]
}

// pack copies the strings into the arena's text and points each at its copy. The text is only ever
// appended to, so the bytes under a string never change.
func (a *objectArena) pack(fields ...*string) {
	n := 0
	for _, f := range fields {
		n += len(*f)
	}
	if cap(a.text)-len(a.text) < n {
		a.text = make([]byte, 0, max(arenaText, n))
	}
	start := len(a.text)
	for _, f := range fields {
		a.text = append(a.text, *f...)
	}
	if n == 0 {
		return
	}
	all := unsafe.String(unsafe.SliceData(a.text[start:]), n)
	off := 0
	for _, f := range fields {
		k := len(*f)
		if k > 0 { // an empty string stays the zero string: a pointer fewer for the collector to follow
			*f = all[off : off+k]
		}
		off += k
	}
}
