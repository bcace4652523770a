package sandbox

import (
	"fmt"
	"net/http"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// initializePayment creates a payment in `pending`. The contract's schema has been checked; what is
// left is what needs state: the merchant reference must be unused (409/4002 naming the holder). The
// customer's country and currency are not looked up in the reference data, which lists payout
// destinations: the document constrains them by their patterns only (PaymentInitRequest). A create:
// what needs the merchant's lock (a generated reference, the store) is rest (see idempotent).
func (s *Server) initializePayment(req *request) (rest func() *response, answer *response) {
	var in api.PaymentInitRequest
	if fail := s.decode(req.value, &in); fail != nil {
		return nil, fail
	}
	redirect := ""
	if in.RedirectURL != nil {
		redirect = *in.RedirectURL
	}
	if fail := s.checkURLs([2]string{"/webhook_url", in.WebhookURL}, [2]string{"/redirect_url", redirect}); fail != nil {
		return nil, fail
	}
	now := s.now()
	payment := Payment{Payment: api.Payment{
		PaymentReference: newID(prefixPayment), Reference: in.Reference, Status: api.PaymentStatusPending, Amount: in.Amount,
		Currency: in.Currency, Country: in.Country, Method: in.Method, Narration: in.Narration,
		PhoneNumber: in.PhoneNumber, WebhookURL: in.WebhookURL, RedirectURL: in.RedirectURL,
		CreatedAt: now, UpdatedAt: now,
	}}
	return func() *response {
		if payment.Reference == "" {
			payment.Reference = req.m.generateReference()
		}
		created, holder, ok := req.m.st.CreatePayment(req.tx, payment, s.rules.ClaimReference)
		if !ok {
			return s.duplicateReference(payment.Reference, holder)
		}
		return s.success(http.StatusCreated, "Payment initialized", created)
	}, nil
}

// generateReference returns a merchant reference no object of m holds. The caller holds m.mu.
func (m *merchant) generateReference() string {
	for {
		ref := newID(prefixReference)
		if !m.st.ReferenceTaken(ref) {
			return ref
		}
	}
}

func (s *Server) duplicateReference(ref, holder string) *response {
	return s.fail(api.CodeDuplicateReference, fmt.Sprintf("The reference %s is already used by %s. Use a new reference.", ref, holder),
		[]FieldError{{Field: "/reference", Reason: "already used"}}, &api.ErrorData{ExistingID: holder})
}

// completePayment sends the simulated push prompt: the payment moves to `processing` (event
// payment.processing) and, after Timings.PromptDelay, the simulated customer answers as the test
// values for the phone number say.
func (s *Server) completePayment(req *request) *response {
	var in api.PaymentCompleteRequest
	if fail := s.decode(req.value, &in); fail != nil {
		return fail
	}
	sent, fail := s.sendPrompt(req, req.params["payment_reference"], in.PhoneNumber)
	if fail != nil {
		return fail
	}
	return s.success(http.StatusAccepted, "Push prompt sent", sent) // encoded outside m.mu
}

// sendPrompt moves a pending payment to processing and returns it as it then is.
func (s *Server) sendPrompt(req *request, ref, phone string) (Payment, *response) {
	m := req.m
	p, ok := m.st.Payment(ref)
	if !ok {
		return Payment{}, s.notFound(fmt.Sprintf("No payment %s exists for this merchant; use the paymentReference returned by initialize-payment.", ref))
	}
	if p.Status != api.PaymentStatusPending {
		return Payment{}, s.fail(api.CodeInvalidState, fmt.Sprintf("Payment %s is %s; only a pending payment can be completed.", p.PaymentReference, p.Status), nil, nil)
	}
	if phone == "" {
		phone = p.PhoneNumber
	}
	if phone == "" {
		return Payment{}, s.invalid(FieldError{Field: "/phone_number", Reason: "required: the payment has no phone number from initialization, so send the customer's number here"})
	}
	prev := p.Status
	p, _ = m.st.UpdatePayment(req.tx, ref, func(p *Payment) {
		p.PhoneNumber = phone
		p.Status = api.PaymentStatusProcessing
		p.UpdatedAt = s.now()
	})
	s.emitPayment(req.tx, m, p, prev)
	s.armPayment(m, ref, time.Now())
	return p, nil
}

// armPayment schedules the simulated customer's answer to a processing payment, PromptDelay (and its
// share of Spread) after since (the prompt; at once when that is past). The prompt and a restart both
// arm it here.
func (s *Server) armPayment(m *merchant, ref string, since time.Time) {
	delay := s.cfg.timings.settleAfter(s.cfg.timings.PromptDelay, ref)
	s.after(dueIn(since, delay, time.Now()), func() { s.settlePayment(m, ref) })
}

// settlePayment is the simulated customer's answer to a processing payment, when it is due (see
// settleDue).
func (s *Server) settlePayment(m *merchant, ref string) { settleDue(s, m, &paymentKind, ref) }
