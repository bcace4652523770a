package sandbox

import (
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// A processing payment or payout ends in one function, settle, whoever ends it: the simulated network
// when its time comes (settleDue, armed by armPayment and armPayout) or the sandbox's settle controls
// (controls.go). A failure is a settlement whose outcome is failed, and the document has no status
// that expires, so settle is the only change of a processing object; the other, a pending payment's
// prompt, has one caller (sendPrompt).

// objectKind is what settle and settleDue need to know of payments (paymentKind) or payouts
// (payoutKind).
type objectKind[T any] struct {
	find       func(*store.Merchant, string) (T, bool)
	processing func(T) bool
	// network is the simulated network's outcome, from the document's test values.
	network func(outcomes, T) outcome
	// end gives m's object id its final status and failure reason, changed at, in tx, and returns the
	// object as it then is.
	end func(st *store.Merchant, tx *store.Tx, id string, out outcome, at time.Time) T
	// emit reports that the object ended its processing (see emit).
	emit func(*Server, *store.Tx, *merchant, T)
}

var paymentKind = objectKind[Payment]{
	find:       (*store.Merchant).Payment,
	processing: func(p Payment) bool { return p.Status == api.PaymentStatusProcessing },
	network:    func(o outcomes, p Payment) outcome { return o.payment(p.PhoneNumber) },
	end: func(st *store.Merchant, tx *store.Tx, ref string, out outcome, at time.Time) Payment {
		p, _ := st.UpdatePayment(tx, ref, func(p *Payment) { p.Status, p.FailureReason, p.UpdatedAt = out.status, out.failureReason, at })
		return p
	},
	emit: func(s *Server, tx *store.Tx, m *merchant, p Payment) {
		s.emitPayment(tx, m, p, api.PaymentStatusProcessing)
	},
}

var payoutKind = objectKind[Payout]{
	find:       (*store.Merchant).Payout,
	processing: func(p Payout) bool { return p.Status == api.PayoutStatusProcessing },
	network:    func(o outcomes, p Payout) outcome { return o.payout(&p) },
	end: func(st *store.Merchant, tx *store.Tx, id string, out outcome, at time.Time) Payout {
		p, _ := st.UpdatePayout(tx, id, func(p *Payout) {
			p.Status, p.FailureReason, p.UpdatedAt = api.PayoutStatus(out.status), out.failureReason, at
		})
		return p
	},
	emit: func(s *Server, tx *store.Tx, m *merchant, p Payout) {
		s.emitPayout(tx, m, p, api.PayoutStatusProcessing)
	},
}

// settle ends m's processing object id with out, in tx, and reports the change; it returns the object
// as it then is. The caller holds m.mu and has checked that id is processing.
func settle[T any](s *Server, tx *store.Tx, m *merchant, k *objectKind[T], id string, out outcome) T {
	o := k.end(m.st, tx, id, out, s.now())
	k.emit(s, tx, m, o)
	return o
}

// settleDue is the simulated network's settlement of m's object id, when it is due: as the test
// values say, unless the object is no longer processing (a settle control came first).
func settleDue[T any](s *Server, m *merchant, k *objectKind[T], id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tx := s.store.Begin()
	defer tx.Commit() // before the unlock: the file sees the merchant's changes in order
	o, ok := k.find(m.st, id)
	if !ok || !k.processing(o) {
		return // final states never change
	}
	settle(s, tx, m, k, id, k.network(s.outcomes, o))
}
