package sandbox

import (
	"fmt"
	"net/http"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// processPayout creates a payout in `processing`; after Timings.PayoutDelay it settles as the test
// values for its account or wallet number say. Creation is not a status change, so it sends no
// event. countryId must exist, and a bank payout's bank_id must exist in that country. A create: only
// storing it, and arming its settlement, is left for the merchant's lock (rest; see idempotent).
func (s *Server) processPayout(req *request) (rest func() *response, answer *response) {
	in, fail := s.decodePayout(req.value)
	if fail != nil {
		return nil, fail
	}
	if fail := s.checkURLs([2]string{"/webhook_url", in.WebhookURL}); fail != nil {
		return nil, fail
	}
	country, problems := s.rules.PayoutDestination(in.CountryID, in.TransferTo, in.BankID)
	if len(problems) > 0 {
		return nil, s.invalid(problems...)
	}
	now := s.now()
	in.PayoutID, in.Currency, in.Status, in.CreatedAt, in.UpdatedAt = newID(prefixPayout), country.CurrencyCode, api.PayoutStatusProcessing, now, now
	created := s.success(http.StatusCreated, "Payout is processing", Payout{Payout: in}) // the stored payout is equal to in
	return func() *response {
		if _, holder, ok := req.m.st.CreatePayout(req.tx, Payout{Payout: in}, s.rules.ClaimReference); !ok {
			return s.duplicateReference(in.Reference, holder)
		}
		s.armPayout(req.m, in.PayoutID, time.Now())
		return created
	}, nil
}

// armPayout schedules a processing payout's settlement, PayoutDelay (and its share of Spread) after
// since (its creation; at once when that is past). The create and a restart both arm it here.
func (s *Server) armPayout(m *merchant, id string, since time.Time) {
	delay := s.cfg.timings.settleAfter(s.cfg.timings.PayoutDelay, id)
	s.after(dueIn(since, delay, time.Now()), func() { s.settlePayout(m, id) })
}

// dueIn is how long until a simulated change that was due delay after since happens: at once when it
// is overdue.
func dueIn(since time.Time, delay time.Duration, now time.Time) time.Duration {
	return max(since.Add(delay).Sub(now), 0)
}

// shareReferenceStrings replaces the ids a payout names from the reference data (country, bank, kind
// of transfer) with the reference data's own strings, equal in value. A sandbox keeps every payout,
// and a million of them holding a million decoded copies of "ctry_zm" is memory and garbage
// collector work for nothing. The store calls it on every payout it stores (store.InternPayouts).
func (s *Server) shareReferenceStrings(p *api.Payout) {
	if c, ok := s.refdata.byID[p.CountryID]; ok {
		p.CountryID = c.ID
	}
	if b, ok := s.refdata.banksByID[p.BankID]; ok {
		p.BankID = b.ID
	}
	switch p.TransferTo {
	case api.TransferToBank:
		p.TransferTo = api.TransferToBank
	case api.TransferToMobileNumber:
		p.TransferTo = api.TransferToMobileNumber
	}
}

// decodePayout decodes the body as the request kind its transfer_to names (the document's
// BankPayoutRequest or MobileMoneyPayoutRequest) and returns the payout it asks for, without what
// the server sets.
func (s *Server) decodePayout(value any) (api.Payout, *response) {
	body, _ := value.(map[string]any)
	kind, _ := body["transfer_to"].(string)
	switch api.TransferTo(kind) {
	case api.TransferToBank:
		var in api.BankPayoutRequest
		if fail := s.decode(value, &in); fail != nil {
			return api.Payout{}, fail
		}
		return api.Payout{Amount: in.Amount, CountryID: in.CountryID, TransferTo: in.TransferTo, BankID: in.BankID,
			AccountNumber: nonEmpty(in.AccountNumber), Narration: in.Narration, Reference: in.Reference, WebhookURL: in.WebhookURL}, nil
	case api.TransferToMobileNumber:
		var in api.MobileMoneyPayoutRequest
		if fail := s.decode(value, &in); fail != nil {
			return api.Payout{}, fail
		}
		return api.Payout{Amount: in.Amount, CountryID: in.CountryID, TransferTo: in.TransferTo,
			MomoPhoneNumber: in.MomoPhoneNumber, Narration: in.Narration, Reference: in.Reference, WebhookURL: in.WebhookURL}, nil
	}
	// Only reachable with validation off: the schema's discriminator rejects it first.
	return api.Payout{}, s.invalid(FieldError{Field: "/transfer_to", Reason: "must be bank or mobile_number"})
}

// settlePayout is the simulated network's settlement of a processing payout, when it is due (see
// settleDue).
func (s *Server) settlePayout(m *merchant, id string) { settleDue(s, m, &payoutKind, id) }

// getPayout returns one of the merchant's payouts.
func (s *Server) getPayout(req *request) *response {
	id := req.params["payout_id"]
	out, ok := req.m.st.Payout(id)
	if !ok {
		return s.notFound(fmt.Sprintf("No payout %s exists for this merchant.", id))
	}
	return s.success(http.StatusOK, "Payout retrieved", out)
}
