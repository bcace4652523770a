package sandbox

import "sort"

// Fault names one rule of the contract that the sandbox can be told to break (WithFault). Faults
// exist so that the contract suite can prove, one rule at a time, that it notices a break: a suite
// that passes against a faulty sandbox has a blind spot.
type Fault string

// The faults. Each breaks exactly the rule its description names and nothing else.
const (
	FaultDropRequiredResponseField    Fault = "drop-required-response-field"
	FaultWrongSuccessStatus           Fault = "wrong-success-status"
	FaultAcceptInvalidInput           Fault = "accept-invalid-input"
	FaultAuthNotEnforced              Fault = "auth-not-enforced"
	FaultSecretKeyNotChecked          Fault = "secret-key-not-checked"
	FaultErrorNotEnvelope             Fault = "error-not-envelope"
	FaultErrorMissingFieldPointer     Fault = "error-missing-field-pointer"
	FaultBadSignature                 Fault = "bad-signature"
	FaultNoWebhookRetry               Fault = "no-webhook-retry"
	FaultUnstableWebhookID            Fault = "unstable-webhook-id"
	FaultIdempotencyIgnored           Fault = "idempotency-ignored"
	FaultIdempotencyConflictIgnored   Fault = "idempotency-conflict-ignored"
	FaultFinalStateChanges            Fault = "final-state-changes"
	FaultCrossMerchantVisible         Fault = "cross-merchant-visible"
	FaultMissingWebhookEvent          Fault = "missing-webhook-event"
	FaultWrongFailureReason           Fault = "wrong-failure-reason"
	FaultWebhookToDisabledEndpoint    Fault = "webhook-to-disabled-endpoint"
	FaultNoRotationDualSignature      Fault = "no-rotation-dual-signature"
	FaultLoseFirstCreateResponse      Fault = "lose-first-create-response"
	FaultDuplicateReferenceAccepted   Fault = "duplicate-reference-accepted"
	FaultCompleteNotPendingAccepted   Fault = "complete-not-pending-accepted"
	FaultUnknownReferenceDataAccepted Fault = "unknown-reference-data-accepted"
	FaultReplayHeaderMissing          Fault = "replay-header-missing"
	FaultSecretInEndpointRead         Fault = "secret-in-endpoint-read"
	FaultStaleWebhookTimestamp        Fault = "stale-webhook-timestamp"
	FaultRotationKeepsOlderSecrets    Fault = "rotation-keeps-older-secrets"
	FaultWebhookURLNotParsed          Fault = "webhook-url-not-parsed"
)

// FaultInfo describes a fault for `malipo sandbox --fault` and for reports.
type FaultInfo struct {
	Fault       Fault
	Description string
}

var faultDescriptions = map[Fault]string{
	FaultDropRequiredResponseField:    "payout responses (create and get) omit the required data.status",
	FaultWrongSuccessStatus:           "creates (payment init, payout, webhook endpoint) answer 200 instead of 201",
	FaultAcceptInvalidInput:           "requests are not validated against the contract: invalid bodies are accepted with 2xx",
	FaultAuthNotEnforced:              "key headers are not checked at all: missing or wrong keys are accepted",
	FaultSecretKeyNotChecked:          "any secret-key value is accepted with a valid public-key",
	FaultErrorNotEnvelope:             "errors are sent as text/plain instead of the JSON error envelope",
	FaultErrorMissingFieldPointer:     "error envelopes have an empty errors[]: offending fields are not named",
	FaultBadSignature:                 "webhook signatures do not match the delivered body",
	FaultNoWebhookRetry:               "a failed webhook delivery is never retried",
	FaultUnstableWebhookID:            "every retry of a webhook carries a new webhook-id (and body id)",
	FaultIdempotencyIgnored:           "Idempotency-Key is ignored: a retried POST creates a second object",
	FaultIdempotencyConflictIgnored:   "the same Idempotency-Key with a different body is processed instead of 409/4000",
	FaultFinalStateChanges:            "a payout that reached success later flips to failed",
	FaultCrossMerchantVisible:         "objects of one merchant can be read with another merchant's keys",
	FaultMissingWebhookEvent:          "no payment.processing event is sent when a payment is completed",
	FaultWrongFailureReason:           "failed payments and payouts carry another failure_reason than the test values name",
	FaultWebhookToDisabledEndpoint:    "disabled webhook endpoints still receive deliveries",
	FaultNoRotationDualSignature:      "after a secret rotation, deliveries are signed with the new secret only",
	FaultLoseFirstCreateResponse:      "the first response of a POST with an Idempotency-Key is lost (connection dropped) after the create",
	FaultDuplicateReferenceAccepted:   "a merchant reference already used is accepted again instead of 409/4002",
	FaultCompleteNotPendingAccepted:   "completing a payment that is not pending is accepted instead of 422/5000",
	FaultUnknownReferenceDataAccepted: "unknown countryId and bank_id (or a bank of another country) are accepted",
	FaultReplayHeaderMissing:          "idempotent replays do not carry Idempotent-Replayed: true",
	FaultSecretInEndpointRead:         "GET and list of webhook endpoints return the signing secret",
	FaultStaleWebhookTimestamp:        "webhook-timestamp is an hour old, so receivers reject deliveries as replays",
	FaultRotationKeepsOlderSecrets:    "a rotation keeps signing with secrets retired by earlier rotations, beyond what its response says",
	FaultWebhookURLNotParsed:          "webhook URLs are only matched against the pattern, not parsed: http://[x and http://:80/ are stored",
}

// Faults lists every fault with a one-line description, sorted by name.
func Faults() []FaultInfo {
	out := make([]FaultInfo, 0, len(faultDescriptions))
	for f, d := range faultDescriptions {
		out = append(out, FaultInfo{Fault: f, Description: d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Fault < out[j].Fault })
	return out
}

// Known reports whether f is one of the faults the sandbox can inject.
func (f Fault) Known() bool {
	_, ok := faultDescriptions[f]
	return ok
}

// Description says which rule the fault breaks; empty for an unknown fault.
func (f Fault) Description() string { return faultDescriptions[f] }

func faultNames() []string {
	var out []string
	for _, fi := range Faults() {
		out = append(out, string(fi.Fault))
	}
	return out
}

// fault reports whether f is injected.
func (s *Server) fault(f Fault) bool { return s.cfg.faults[f] }
