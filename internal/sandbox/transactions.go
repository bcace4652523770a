package sandbox

import (
	"fmt"
	"net/http"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// getTransactionStatus reports a payment or payout by paymentReference, payout_id or merchant
// reference.
func (s *Server) getTransactionStatus(req *request) *response {
	ref := req.params["reference"]
	m := req.m
	t, ok := m.lookupTransaction(ref)
	if !ok {
		return s.notFound(fmt.Sprintf("No payment or payout with reference %s exists for this merchant.", ref))
	}
	return s.success(http.StatusOK, "Transaction retrieved", *t)
}

// transaction is what the status API returns for a payment or a payout (the document's Transaction).
type transaction = api.Transaction

// lookupTransaction finds a payment or payout of m by paymentReference, payout_id or merchant
// reference, in that order. The caller holds m.mu.
func (m *merchant) lookupTransaction(ref string) (*transaction, bool) {
	if p, ok := m.st.Payment(ref); ok {
		return paymentTransaction(&p), true
	}
	if p, ok := m.st.Payout(ref); ok {
		return payoutTransaction(&p), true
	}
	if id, ok := m.st.ReferenceHolder(ref); ok {
		if p, ok := m.st.Payment(id); ok {
			return paymentTransaction(&p), true
		}
		if p, ok := m.st.Payout(id); ok {
			return payoutTransaction(&p), true
		}
	}
	return nil, false
}

func paymentTransaction(p *Payment) *transaction {
	return &transaction{Type: api.TransactionTypePayment, ID: p.PaymentReference, Reference: p.Reference, Status: p.Status,
		FailureReason: p.FailureReason, Amount: p.Amount, Currency: p.Currency, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

func payoutTransaction(p *Payout) *transaction {
	return &transaction{Type: api.TransactionTypePayout, ID: p.PayoutID, Reference: p.Reference, Status: api.PaymentStatus(p.Status),
		FailureReason: p.FailureReason, Amount: float64(p.Amount), Currency: p.Currency, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}
