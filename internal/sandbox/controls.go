package sandbox

import (
	"fmt"
	"net/http"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The sandbox's controls (the document's "Sandbox controls" tag, x-malipo-sandbox-only): what a
// developer needs to make things happen while integrating, which a production implementation never
// offers. Settling now spares waiting for the simulated network; failing deliveries to one URL shows
// retries, attempts and resends without breaking the developer's receiver.

// Defaults of a delivery failure when the request leaves them out (the document's defaults).
const (
	defaultFailureStatus   = http.StatusServiceUnavailable
	defaultFailureDuration = 300 * time.Second
)

// prefixDeliveryFailure starts the ids of delivery failures.
const prefixDeliveryFailure = "df_"

// deliveryFailure makes the merchant's deliveries to URL fail with StatusCode until until (the
// document's expires_at is until in whole seconds).
type deliveryFailure struct {
	api.SandboxDeliveryFailure
	until time.Time
}

// settleSandboxPayment ends a processing payment now with the outcome the body chooses.
func (s *Server) settleSandboxPayment(req *request) *response {
	out, fail := s.decodeSettle(req.value)
	if fail != nil {
		return fail
	}
	ref := req.params["payment_reference"]
	m := req.m
	m.mu.Lock()
	p, ok := m.payments[ref]
	if !ok {
		m.mu.Unlock()
		return s.notFound(fmt.Sprintf("No payment %s exists for this merchant; use the paymentReference returned by initialize-payment.", ref))
	}
	if p.Status != api.PaymentStatusProcessing {
		status := p.Status
		m.mu.Unlock()
		hint := "it is final and never changes again"
		if status == api.PaymentStatusPending {
			hint = "complete it first (the push prompt moves it to processing)"
		}
		return s.fail(api.CodeInvalidState, fmt.Sprintf("Payment %s is %s; only a processing payment can be settled: %s.", ref, status, hint), nil, nil)
	}
	p.Status, p.FailureReason = out.status, out.failureReason
	p.UpdatedAt = s.now()
	req.commit = s.emitPayment(m, p, api.PaymentStatusProcessing)
	settled := *p
	m.mu.Unlock()
	return s.success(http.StatusOK, "Payment settled", settled)
}

// settleSandboxPayout ends a processing payout now with the outcome the body chooses.
func (s *Server) settleSandboxPayout(req *request) *response {
	out, fail := s.decodeSettle(req.value)
	if fail != nil {
		return fail
	}
	id := req.params["payout_id"]
	m := req.m
	m.mu.Lock()
	p, ok := m.payouts[id]
	if !ok {
		m.mu.Unlock()
		return s.notFound(fmt.Sprintf("No payout %s exists for this merchant.", id))
	}
	if p.Status != api.PayoutStatusProcessing {
		status := p.Status
		m.mu.Unlock()
		return s.fail(api.CodeInvalidState, fmt.Sprintf("Payout %s is %s; only a processing payout can be settled: it is final and never changes again.", id, status), nil, nil)
	}
	p.Status, p.FailureReason = api.PayoutStatus(out.status), out.failureReason
	p.UpdatedAt = s.now()
	req.commit = s.emitPayout(m, p, api.PayoutStatusProcessing)
	settled := *p
	m.mu.Unlock()
	return s.success(http.StatusOK, "Payout settled", settled)
}

// decodeSettle reads a settle body: a failure needs its reason, a success takes none (the schema
// cannot say so without if/then, which client generators handle badly, so the rule is here and in
// the schema's description).
func (s *Server) decodeSettle(value any) (outcome, *response) {
	var in api.SandboxSettleRequest
	if fail := s.decode(value, &in); fail != nil {
		return outcome{}, fail
	}
	switch {
	case in.Status == api.PaymentStatusFailed && in.FailureReason == "":
		return outcome{}, s.invalid(FieldError{Field: "/failure_reason", Reason: "required when status is failed: say why it failed"})
	case in.Status == api.PaymentStatusSuccess && in.FailureReason != "":
		return outcome{}, s.invalid(FieldError{Field: "/failure_reason", Reason: "only a failed settlement has a failure reason; leave it out with success"})
	}
	return outcome{status: in.Status, failureReason: in.FailureReason}, nil
}

// createSandboxDeliveryFailure makes the merchant's deliveries to a URL fail for a while.
func (s *Server) createSandboxDeliveryFailure(req *request) *response {
	var in api.SandboxDeliveryFailureRequest
	if fail := s.decode(req.value, &in); fail != nil {
		return fail
	}
	status, duration := int64(defaultFailureStatus), defaultFailureDuration
	if in.StatusCode != nil {
		status = *in.StatusCode
	}
	if in.DurationSeconds != nil {
		duration = time.Duration(*in.DurationSeconds) * time.Second
	}
	now := s.cfg.clock().UTC()
	until := now.Add(duration)
	f := &deliveryFailure{SandboxDeliveryFailure: api.SandboxDeliveryFailure{ID: newID(prefixDeliveryFailure), URL: in.URL,
		StatusCode: status, CreatedAt: now.Truncate(time.Second), ExpiresAt: until.Truncate(time.Second)}, until: until}
	m := req.m
	m.failuresMu.Lock()
	m.failures = append(m.activeFailures(now), f)
	m.failuresMu.Unlock()
	return s.success(http.StatusCreated, "Deliveries to the URL fail until expires_at", f.SandboxDeliveryFailure)
}

// listSandboxDeliveryFailures lists the merchant's delivery failures in force.
func (s *Server) listSandboxDeliveryFailures(req *request) *response {
	m := req.m
	m.failuresMu.Lock()
	m.failures = m.activeFailures(s.cfg.clock())
	out := make([]api.SandboxDeliveryFailure, 0, len(m.failures))
	for _, f := range m.failures {
		out = append(out, f.SandboxDeliveryFailure)
	}
	m.failuresMu.Unlock()
	return s.success(http.StatusOK, "Delivery failures retrieved", out)
}

// deleteSandboxDeliveryFailure ends a delivery failure now.
func (s *Server) deleteSandboxDeliveryFailure(req *request) *response {
	id := req.params["id"]
	m := req.m
	m.failuresMu.Lock()
	defer m.failuresMu.Unlock()
	m.failures = m.activeFailures(s.cfg.clock())
	for i, f := range m.failures {
		if f.ID == id {
			m.failures = append(m.failures[:i:i], m.failures[i+1:]...)
			return &response{status: http.StatusNoContent}
		}
	}
	return s.notFound(fmt.Sprintf("No delivery failure %s is in force for this merchant (it may have expired).", id))
}

// activeFailures returns the failures that have not expired at now. The caller holds failuresMu.
func (m *merchant) activeFailures(now time.Time) []*deliveryFailure {
	kept := m.failures[:0:0]
	for _, f := range m.failures {
		if now.Before(f.until) {
			kept = append(kept, f)
		}
	}
	return kept
}

// failingDelivery returns the failure in force for the merchant's deliveries to url at now, if any.
// The list is short (a developer's handful), so a scan is the right index.
func (m *merchant) failingDelivery(url string, now time.Time) (*deliveryFailure, bool) {
	m.failuresMu.Lock()
	defer m.failuresMu.Unlock()
	for _, f := range m.failures {
		if f.URL == url && now.Before(f.until) {
			return f, true
		}
	}
	return nil, false
}
