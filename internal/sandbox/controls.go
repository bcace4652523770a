package sandbox

import (
	"fmt"
	"net/http"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
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

// settleSandboxPayment ends a processing payment now with the outcome the body chooses.
func (s *Server) settleSandboxPayment(req *request) *response {
	return settleNow(s, req, &paymentKind, settleControl[Payment]{param: "payment_reference", noun: "payment", Noun: "Payment",
		unknown: "No payment %s exists for this merchant; use the paymentReference returned by initialize-payment.",
		status:  func(p Payment) string { return string(p.Status) },
		hint: func(p Payment) string {
			if p.Status == api.PaymentStatusPending {
				return "complete it first (the push prompt moves it to processing)"
			}
			return "it is final and never changes again"
		}})
}

// settleSandboxPayout ends a processing payout now with the outcome the body chooses.
func (s *Server) settleSandboxPayout(req *request) *response {
	return settleNow(s, req, &payoutKind, settleControl[Payout]{param: "payout_id", noun: "payout", Noun: "Payout",
		unknown: "No payout %s exists for this merchant.",
		status:  func(p Payout) string { return string(p.Status) },
		hint:    func(Payout) string { return "it is final and never changes again" }})
}

// settleControl is what a settle control says of its kind of object.
type settleControl[T any] struct {
	// param is the path parameter that names the object; noun and Noun name its kind.
	param, noun, Noun string
	// unknown is the 404's message, %s the id.
	unknown string
	status  func(T) string
	// hint says why an object that is not processing cannot be settled, and what to do.
	hint func(T) string
}

// settleNow ends the processing object the path names with the outcome the body chooses (settle).
func settleNow[T any](s *Server, req *request, k *objectKind[T], c settleControl[T]) *response {
	out, fail := s.decodeSettle(req.value)
	if fail != nil {
		return fail
	}
	id := req.params[c.param]
	o, ok := k.find(req.m.st, id)
	if !ok {
		return s.notFound(fmt.Sprintf(c.unknown, id))
	}
	if !k.processing(o) {
		return s.fail(api.CodeInvalidState, fmt.Sprintf("%s %s is %s; only a processing %s can be settled: %s.", c.Noun, id, c.status(o), c.noun, c.hint(o)), nil, nil)
	}
	return s.success(http.StatusOK, c.Noun+" settled", settle(s, req.tx, req.m, k, id, out))
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
	if n := len(req.m.st.Failures(now)); n >= s.limits.failures {
		return s.fail(api.CodeLimitReached, fmt.Sprintf("This merchant already has %d delivery failures in force, the most it can have; delete one (%s %s) or wait until one expires.",
			n, api.OpDeleteSandboxDeliveryFailure().Method, api.OpDeleteSandboxDeliveryFailure().Path), nil, nil)
	}
	until := now.Add(duration)
	f := store.DeliveryFailure{SandboxDeliveryFailure: api.SandboxDeliveryFailure{ID: newID(prefixDeliveryFailure), URL: in.URL,
		StatusCode: status, CreatedAt: now.Truncate(time.Second), ExpiresAt: until.Truncate(time.Second)}, Until: until}
	req.m.st.AddFailure(req.tx, f, now)
	return s.success(http.StatusCreated, "Deliveries to the URL fail until expires_at", f.SandboxDeliveryFailure)
}

// listSandboxDeliveryFailures lists the merchant's delivery failures in force.
func (s *Server) listSandboxDeliveryFailures(req *request) *response {
	failures := req.m.st.Failures(s.cfg.clock())
	out := make([]api.SandboxDeliveryFailure, 0, len(failures))
	for _, f := range failures {
		out = append(out, f.SandboxDeliveryFailure)
	}
	return s.success(http.StatusOK, "Delivery failures retrieved", out)
}

// deleteSandboxDeliveryFailure ends a delivery failure now.
func (s *Server) deleteSandboxDeliveryFailure(req *request) *response {
	id := req.params["id"]
	if req.m.st.DeleteFailure(req.tx, id, s.cfg.clock()) {
		return &response{status: http.StatusNoContent}
	}
	return s.notFound(fmt.Sprintf("No delivery failure %s is in force for this merchant (it may have expired).", id))
}
