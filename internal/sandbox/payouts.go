package sandbox

import (
	"encoding/json"
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
	if fail := s.decode(req.body, &in); fail != nil {
		return fail
	}
	if fail := s.checkURLs([2]string{"/webhook_url", in.WebhookURL}); fail != nil {
		return fail
	}
	country, ok := s.refdata.byID[in.CountryID]
	if !ok && !s.fault(FaultUnknownReferenceDataAccepted) {
		return s.invalid(FieldError{Field: "/countryId", Reason: "no country has this id; see " + seeCountries})
	}
	switch in.TransferTo {
	case "bank":
		bank, ok := s.refdata.banksByID[in.BankID]
		if !s.fault(FaultUnknownReferenceDataAccepted) {
			if !ok {
				return s.invalid(FieldError{Field: "/bank_id", Reason: "no bank has this id; see " + seeBanks})
			}
			if bank.CountryCode != country.CountryCode {
				return s.invalid(FieldError{Field: "/bank_id", Reason: fmt.Sprintf("the bank is in %s, not in %s (countryId %s)", bank.CountryCode, country.CountryCode, country.ID)})
			}
		}
	case "mobile_number":
	default:
		// Only reachable with validation off: the schema's discriminator rejects it first.
		return s.invalid(FieldError{Field: "/transfer_to", Reason: "must be bank or mobile_number"})
	}
	m := req.m
	now := s.now()
	p := &Payout{Payout: api.Payout{
		PayoutID: newID(prefixPayout), Reference: in.Reference, Amount: in.Amount, Currency: country.CurrencyCode,
		CountryID: in.CountryID, TransferTo: api.TransferTo(in.TransferTo), BankID: in.BankID, AccountNumber: nonEmpty(in.AccountNumber),
		MomoPhoneNumber: in.MomoPhoneNumber, Narration: in.Narration, WebhookURL: in.WebhookURL,
		Status: api.PayoutStatusProcessing, CreatedAt: now, UpdatedAt: now,
	}}
	if p.Currency == "" {
		p.Currency = "XXX" // FaultUnknownReferenceDataAccepted: ISO 4217's "no currency"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.Reference != "" {
		if holder, taken := m.references[p.Reference]; taken && !s.fault(FaultDuplicateReferenceAccepted) {
			return s.duplicateReference(p.Reference, holder)
		}
		m.references[p.Reference] = p.PayoutID
	}
	m.payouts[p.PayoutID] = p
	s.after(s.cfg.timings.PayoutDelay, func() { s.settlePayout(m, p) })
	status := http.StatusCreated
	if s.fault(FaultWrongSuccessStatus) {
		status = http.StatusOK
	}
	return s.payoutResponse(status, "Payout is processing", *p)
}

// payoutResponse wraps a payout in the envelope; FaultDropRequiredResponseField removes data.status.
func (s *Server) payoutResponse(status int, message string, p Payout) *response {
	if !s.fault(FaultDropRequiredResponseField) {
		return s.success(status, message, p)
	}
	var data map[string]any
	if err := json.Unmarshal(marshal(p), &data); err != nil {
		return s.internalError("encode the payout")
	}
	delete(data, "status")
	return s.success(status, message, data)
}

// settlePayout moves a processing payout to its final status and reports the change.
func (s *Server) settlePayout(m *merchant, p *Payout) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.Status != "processing" {
		return // final states never change
	}
	out := s.outcomes.payout(p)
	p.Status = api.PayoutStatus(out.status)
	p.FailureReason = api.FailureReason(out.failureReason)
	if p.FailureReason != "" && s.fault(FaultWrongFailureReason) {
		p.FailureReason = wrongReason(p.FailureReason)
	}
	p.UpdatedAt = s.now()
	s.emitPayout(m, p, "processing")
	if p.Status == "success" && s.fault(FaultFinalStateChanges) {
		s.after(s.cfg.timings.PayoutDelay, func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			p.Status, p.FailureReason, p.UpdatedAt = "failed", "transaction_failed", s.now()
			s.emitPayout(m, p, "success")
		})
	}
}

// getPayout returns one of the merchant's payouts.
func (s *Server) getPayout(req *request) *response {
	id := req.params["payout_id"]
	p, ok := s.findPayout(req.m, id)
	if !ok {
		return s.notFound(fmt.Sprintf("No payout %s exists for this merchant.", id))
	}
	return s.payoutResponse(http.StatusOK, "Payout retrieved", p)
}

// findPayout returns a copy of a payout of m, or of any merchant under FaultCrossMerchantVisible.
func (s *Server) findPayout(m *merchant, id string) (Payout, bool) {
	for _, o := range s.searchOrder(m) {
		o.mu.Lock()
		p, ok := o.payouts[id]
		var cp Payout
		if ok {
			cp = *p
		}
		o.mu.Unlock()
		if ok {
			return cp, true
		}
	}
	return Payout{}, false
}

// searchOrder is the merchants whose objects m's requests can see: only m, unless
// FaultCrossMerchantVisible breaks the isolation.
func (s *Server) searchOrder(m *merchant) []*merchant {
	if !s.fault(FaultCrossMerchantVisible) {
		return []*merchant{m}
	}
	out := []*merchant{m}
	for _, o := range s.merchants {
		if o != m {
			out = append(out, o)
		}
	}
	return out
}
