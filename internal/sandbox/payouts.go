package sandbox

import (
	"fmt"
	"net/http"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

type payoutRequest struct {
	Amount          int64  `json:"amount"`
	CountryID       string `json:"countryId"`
	TransferTo      string `json:"transfer_to"`
	BankID          string `json:"bank_id"`
	AccountNumber   string `json:"account_number"`
	MomoPhoneNumber string `json:"momo_phone_number"`
	Narration       string `json:"narration"`
	Reference       string `json:"reference"`
	WebhookURL      string `json:"webhook_url"`
}

// processPayout creates a payout in `processing`; after Timings.PayoutDelay it settles as the test
// values for its account or wallet number say. Creation is not a status change, so it sends no
// event. countryId must exist, and a bank payout's bank_id must exist in that country.
func (s *Server) processPayout(req *request) *response {
	var in payoutRequest
	if fail := s.decode(req.value, &in); fail != nil {
		return fail
	}
	if fail := s.checkURLs([2]string{"/webhook_url", in.WebhookURL}); fail != nil {
		return fail
	}
	switch api.TransferTo(in.TransferTo) {
	case api.TransferToBank, api.TransferToMobileNumber:
	default:
		// Only reachable with validation off: the schema's discriminator rejects it first.
		return s.invalid(FieldError{Field: "/transfer_to", Reason: "must be bank or mobile_number"})
	}
	country, problems := s.rules.PayoutDestination(in.CountryID, api.TransferTo(in.TransferTo), in.BankID)
	if len(problems) > 0 {
		return s.invalid(problems...)
	}
	m := req.m
	now := s.now()
	p := &Payout{Payout: api.Payout{
		PayoutID: newID(prefixPayout), Reference: in.Reference, Amount: in.Amount, Currency: country.CurrencyCode,
		CountryID: in.CountryID, TransferTo: api.TransferTo(in.TransferTo), BankID: in.BankID, AccountNumber: nonEmpty(in.AccountNumber),
		MomoPhoneNumber: in.MomoPhoneNumber, Narration: in.Narration, WebhookURL: in.WebhookURL,
		Status: api.PayoutStatusProcessing, CreatedAt: now, UpdatedAt: now,
	}}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.Reference != "" {
		if holder, ok := s.rules.ClaimReference(m.references, p.Reference, p.PayoutID); !ok {
			return s.duplicateReference(p.Reference, holder)
		}
	}
	m.payouts[p.PayoutID] = p
	s.after(s.cfg.timings.PayoutDelay, func() { s.settlePayout(m, p) })
	return s.success(http.StatusCreated, "Payout is processing", *p)
}

// settlePayout moves a processing payout to its final status and reports the change.
func (s *Server) settlePayout(m *merchant, p *Payout) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.Status != api.PayoutStatusProcessing {
		return // final states never change
	}
	out := s.outcomes.payout(p)
	p.Status = api.PayoutStatus(out.status)
	p.FailureReason = api.FailureReason(out.failureReason)
	p.UpdatedAt = s.now()
	s.emitPayout(m, p, string(api.PayoutStatusProcessing))
}

// getPayout returns one of the merchant's payouts.
func (s *Server) getPayout(req *request) *response {
	id := req.params["payout_id"]
	m := req.m
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.payouts[id]
	if !ok {
		return s.notFound(fmt.Sprintf("No payout %s exists for this merchant.", id))
	}
	return s.success(http.StatusOK, "Payout retrieved", *p)
}
