// Package faults breaks the reference implementation one rule of the contract at a time, from
// outside it. The contract suite's self-test runs the suite against a sandbox with one fault and
// expects the checks of that rule, and only those, to fail: a suite that passes against a faulty
// sandbox has a blind spot. `malipo sandbox --fault` offers the same faults to people who test
// their own tooling against a misbehaving server.
//
// Every fault is built from the sandbox's seams (sandbox.Hooks): HTTP middleware that rewrites
// requests or responses, wrappers of the sandbox's state rules, hooks on outgoing webhook attempts,
// or ordinary options. The sandbox's handlers hold no fault code, so that they read as the contract.
package faults

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Fault names one rule of the contract that the sandbox can be made to break.
type Fault string

// The faults. Each breaks exactly the rule its description names.
const (
	DropRequiredResponseField    Fault = "drop-required-response-field"
	WrongSuccessStatus           Fault = "wrong-success-status"
	AcceptInvalidInput           Fault = "accept-invalid-input"
	AuthNotEnforced              Fault = "auth-not-enforced"
	SecretKeyNotChecked          Fault = "secret-key-not-checked"
	ErrorNotEnvelope             Fault = "error-not-envelope"
	ErrorMissingFieldPointer     Fault = "error-missing-field-pointer"
	BadSignature                 Fault = "bad-signature"
	NoWebhookRetry               Fault = "no-webhook-retry"
	UnstableWebhookID            Fault = "unstable-webhook-id"
	IdempotencyIgnored           Fault = "idempotency-ignored"
	IdempotencyConflictIgnored   Fault = "idempotency-conflict-ignored"
	FinalStateChanges            Fault = "final-state-changes"
	CrossMerchantVisible         Fault = "cross-merchant-visible"
	MissingWebhookEvent          Fault = "missing-webhook-event"
	WrongFailureReason           Fault = "wrong-failure-reason"
	WebhookToDisabledEndpoint    Fault = "webhook-to-disabled-endpoint"
	NoRotationDualSignature      Fault = "no-rotation-dual-signature"
	LoseFirstCreateResponse      Fault = "lose-first-create-response"
	DuplicateReferenceAccepted   Fault = "duplicate-reference-accepted"
	CompleteNotPendingAccepted   Fault = "complete-not-pending-accepted"
	UnknownReferenceDataAccepted Fault = "unknown-reference-data-accepted"
	ReplayHeaderMissing          Fault = "replay-header-missing"
	SecretInEndpointRead         Fault = "secret-in-endpoint-read"
	StaleWebhookTimestamp        Fault = "stale-webhook-timestamp"
	RotationKeepsOlderSecrets    Fault = "rotation-keeps-older-secrets"
	WebhookURLNotParsed          Fault = "webhook-url-not-parsed"
	SuppliedSecretIgnored        Fault = "supplied-secret-ignored"
	WeakSecretAccepted           Fault = "weak-secret-accepted"
	RateLimitWithoutRetryAfter   Fault = "rate-limit-without-retry-after"
	ResendNewWebhookID           Fault = "resend-new-webhook-id"
	ValidationErrorUsesKey       Fault = "validation-error-uses-key"
	LimitAsValidationError       Fault = "limit-as-validation-error"
	AttemptsNewestFirst          Fault = "attempts-newest-first"
	EventsOldestFirst            Fault = "events-oldest-first"
	CursorRepeatsLastEvent       Fault = "cursor-repeats-last-event"
	EndpointsNewestFirst         Fault = "endpoints-newest-first"
	RateLimitFieldsOnSuccessOnly Fault = "rate-limit-fields-on-success-only"
	FieldErrorsStopAtFirst       Fault = "field-errors-stop-at-first"

	// Faults that only generated inputs reveal (inputs.go): the document's examples pass them.
	NonASCIICrash                Fault = "non-ascii-crash"
	LargeAmountRefused           Fault = "large-amount-refused"
	LongTextTruncated            Fault = "long-text-truncated"
	CentsRounded                 Fault = "cents-rounded"
	PatternCharRefused           Fault = "pattern-char-refused"
	WebhookFieldLostForOneStatus Fault = "webhook-field-lost-for-one-status"
)

// Info describes a fault for `malipo sandbox --fault list` and for reports.
type Info struct {
	Fault       Fault
	Description string
}

var descriptions = map[Fault]string{
	DropRequiredResponseField:    "payout responses (create and get) omit the required data.status",
	WrongSuccessStatus:           "creates (payment init, payout, webhook endpoint) answer 200 instead of 201",
	AcceptInvalidInput:           "requests are not validated against the document's schemas: bodies breaking a bound, pattern, required or unknown-field rule are accepted with 2xx (values Go cannot decode are still refused)",
	AuthNotEnforced:              "key headers are not checked at all: missing or wrong keys are accepted",
	SecretKeyNotChecked:          "any secret-key value is accepted with a valid public-key",
	ErrorNotEnvelope:             "errors are sent as text/plain instead of the JSON error envelope",
	ErrorMissingFieldPointer:     "error envelopes have an empty errors[]: offending fields are not named",
	BadSignature:                 "webhooks are signed with a secret the merchant was never given",
	NoWebhookRetry:               "a failed webhook delivery is never retried",
	UnstableWebhookID:            "every retry of a webhook carries a new webhook-id (and body id)",
	IdempotencyIgnored:           "Idempotency-Key is ignored: a retried POST creates a second object",
	IdempotencyConflictIgnored:   "the same Idempotency-Key with a different body is processed instead of 409/4000",
	FinalStateChanges:            "a payout that reached success reads as failed afterwards",
	CrossMerchantVisible:         "objects of one merchant can be read with another merchant's keys",
	MissingWebhookEvent:          "no payment.processing event is delivered when a payment is completed",
	WrongFailureReason:           "failed payments and payouts carry another failure_reason than the test values name",
	WebhookToDisabledEndpoint:    "disabled webhook endpoints still receive deliveries",
	NoRotationDualSignature:      "after a secret rotation, deliveries are signed with the new secret only",
	LoseFirstCreateResponse:      "the first response of a POST with an Idempotency-Key is lost (connection dropped) after the create",
	DuplicateReferenceAccepted:   "a merchant reference already used is accepted again instead of 409/4002",
	CompleteNotPendingAccepted:   "completing a payment that is not pending is accepted instead of 422/5000",
	UnknownReferenceDataAccepted: "unknown countryId and bank_id (or a bank of another country) are accepted",
	ReplayHeaderMissing:          "idempotent replays do not carry Idempotent-Replayed: true",
	ValidationErrorUsesKey:       "a request refused by validation (400) uses up its Idempotency-Key: the corrected request gets the 400 again",
	SecretInEndpointRead:         "GET and list of webhook endpoints return the signing secret",
	StaleWebhookTimestamp:        "webhook-timestamp is an hour old, so receivers reject deliveries as replays",
	RotationKeepsOlderSecrets:    "a rotation keeps signing with secrets retired by earlier rotations, beyond what its response says",
	WebhookURLNotParsed:          "webhook URLs are only matched against the pattern, not parsed: http://[x and http://:80/ are stored",
	SuppliedSecretIgnored:        "a secret supplied on create or rotate-secret is shown in the response, but deliveries are signed with another the merchant was never given",
	WeakSecretAccepted:           "a supplied secret that is too short, too long or not whsec_ and padded base64 is accepted and shown as the endpoint's secret",
	RateLimitWithoutRetryAfter:   "429 answers (the rate_limited scenario) do not say when to retry: no Retry-After",
	ResendNewWebhookID:           "an event resent through the event log carries a new webhook-id (and body id), so receivers cannot tell it from a new event",
	LimitAsValidationError:       "a webhook-endpoint create past the merchant's cap is refused with 400 validation_failed instead of 409 limit_reached",
	AttemptsNewestFirst:          "an event's delivery attempts are listed newest first instead of oldest first",
	EventsOldestFirst:            "each page of the event log lists its events oldest first instead of newest first (which events a page holds, and its cursor, stay as they were)",
	CursorRepeatsLastEvent:       "an event-log page's next_cursor continues at the page's last event instead of after it, so the next page starts with that event again",
	EndpointsNewestFirst:         "webhook endpoints are listed newest first instead of oldest first",
	RateLimitFieldsOnSuccessOnly: "the RateLimit fields are sent on successes only: a 4xx to accepted keys has none",
	FieldErrorsStopAtFirst:       "an error names only the first offending field, however many are wrong",

	NonASCIICrash:                "a valid payment initialization or payout whose narration holds a character outside ASCII (an accented letter, Arabic, an emoji) answers 500 and creates nothing; an invalid one still gets its 400",
	LargeAmountRefused:           "a valid payout above 1,000,000 is refused with 400 (code 1000) naming /amount, although PayoutAmount allows up to 2^53-1",
	LongTextTruncated:            "a narration of 101 to 255 characters is stored cut to its first 100 (payment initialization and payout): responses, read-backs and webhooks show the cut text",
	CentsRounded:                 "a payment amount from 0.05 to below 100,000,000 is stored rounded to one decimal (150.55 becomes 150.6): responses, read-backs and webhooks show the rounded amount",
	PatternCharRefused:           "a valid payment initialization or payout whose reference holds `:`, which the MerchantReference pattern allows, is refused with 400 (code 1000) naming /reference",
	WebhookFieldLostForOneStatus: "payout.failed deliveries (and the event log's copy of them) lose data.object.narration; payouts read through the API and every other event type keep it",
}

// All lists every fault with its description, sorted by name.
func All() []Info {
	out := make([]Info, 0, len(descriptions))
	for f, d := range descriptions {
		out = append(out, Info{Fault: f, Description: d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Fault < out[j].Fault })
	return out
}

// Known reports whether f is one of the faults.
func (f Fault) Known() bool {
	_, ok := descriptions[f]
	return ok
}

// Description says which rule the fault breaks; empty for an unknown fault.
func (f Fault) Description() string { return descriptions[f] }

// Names lists the faults' names, sorted.
func Names() []string {
	var out []string
	for _, fi := range All() {
		out = append(out, string(fi.Fault))
	}
	return out
}

// Options returns the sandbox options that inject the faults. Give them to sandbox.New after every
// other option, so that none of those undoes a fault (NoWebhookRetry replaces the retry schedule,
// AcceptInvalidInput turns validation off).
func Options(fs ...Fault) ([]sandbox.Option, error) {
	var opts []sandbox.Option
	for _, f := range fs {
		build, ok := builders[f]
		if !ok {
			return nil, fmt.Errorf("unknown fault %q; known faults: %s", f, strings.Join(Names(), ", "))
		}
		opts = append(opts, build())
	}
	return opts, nil
}

// builders makes each fault's option. Faults that keep state (what a response showed before) get it
// fresh for every sandbox.
var builders = map[Fault]func() sandbox.Option{
	AcceptInvalidInput: func() sandbox.Option { return sandbox.WithValidation(false) },
	NoWebhookRetry:     func() sandbox.Option { return sandbox.WithRetrySchedule(nil) },

	WrongSuccessStatus:           middleware(wrongSuccessStatus),
	DropRequiredResponseField:    middleware(dropPayoutStatus),
	AuthNotEnforced:              middleware(authNotEnforced),
	SecretKeyNotChecked:          middleware(secretKeyNotChecked),
	ErrorNotEnvelope:             middleware(errorNotEnvelope),
	ErrorMissingFieldPointer:     middleware(errorMissingFieldPointer),
	IdempotencyIgnored:           middleware(idempotencyIgnored),
	IdempotencyConflictIgnored:   middleware(idempotencyConflictIgnored),
	ReplayHeaderMissing:          middleware(replayHeaderMissing),
	ValidationErrorUsesKey:       middleware(validationErrorUsesKey),
	RateLimitWithoutRetryAfter:   middleware(rateLimitWithoutRetryAfter),
	LoseFirstCreateResponse:      middleware(loseFirstCreateResponse),
	CrossMerchantVisible:         middleware(crossMerchantVisible),
	CompleteNotPendingAccepted:   middleware(completeNotPendingAccepted),
	SecretInEndpointRead:         middleware(secretInEndpointRead),
	FinalStateChanges:            middleware(finalStateChanges),
	WeakSecretAccepted:           middleware(weakSecretAccepted),
	LimitAsValidationError:       middleware(limitAsValidationError),
	AttemptsNewestFirst:          middleware(reversedList(api.OpListEventAttempts(), false)),
	EventsOldestFirst:            middleware(reversedList(api.OpListEvents(), true)),
	CursorRepeatsLastEvent:       middleware(cursorRepeatsLastEvent),
	EndpointsNewestFirst:         middleware(reversedList(api.OpListWebhookEndpoints(), false)),
	RateLimitFieldsOnSuccessOnly: middleware(rateLimitFieldsOnSuccessOnly),
	FieldErrorsStopAtFirst:       middleware(fieldErrorsStopAtFirst),
	NonASCIICrash:                middleware(onCreate(nonASCIICrash)),
	LargeAmountRefused:           middleware(onCreate(largeAmountRefused)),
	LongTextTruncated:            middleware(onCreate(longTextTruncated)),
	CentsRounded:                 middleware(onCreate(centsRounded)),
	PatternCharRefused:           middleware(onCreate(patternCharRefused)),
	SuppliedSecretIgnored:        suppliedSecretIgnored,

	DuplicateReferenceAccepted:   rules(func(r sandbox.Rules) sandbox.Rules { return referencesReusable{r} }),
	UnknownReferenceDataAccepted: rules(func(r sandbox.Rules) sandbox.Rules { return anyDestination{r} }),
	WebhookURLNotParsed:          rules(func(r sandbox.Rules) sandbox.Rules { return anyURL{r} }),
	WebhookToDisabledEndpoint:    rules(func(r sandbox.Rules) sandbox.Rules { return disabledReceives{r} }),
	RotationKeepsOlderSecrets:    rules(func(r sandbox.Rules) sandbox.Rules { return keepEarlierSecrets{r} }),

	BadSignature:            outgoing(signWithUnknownSecret),
	UnstableWebhookID:       outgoing(newIDPerRetry),
	StaleWebhookTimestamp:   outgoing(hourOldTimestamp),
	NoRotationDualSignature: outgoing(newestSecretOnly),
	MissingWebhookEvent:     outgoing(dropPaymentProcessing),
	ResendNewWebhookID:      outgoing(newIDPerResend),

	WebhookFieldLostForOneStatus: func() sandbox.Option {
		return sandbox.WithHooks(sandbox.Hooks{Middleware: dropMemberInEventLog(), Outgoing: dropMemberOfOneType})
	},
	WrongFailureReason: func() sandbox.Option {
		return sandbox.WithHooks(sandbox.Hooks{Middleware: wrongFailureReasonInResponses(), Outgoing: wrongFailureReasonInWebhooks})
	},
}

func middleware(make func() func(*sandbox.Server, http.Handler) http.Handler) func() sandbox.Option {
	return func() sandbox.Option { return sandbox.WithHooks(sandbox.Hooks{Middleware: make()}) }
}

func rules(wrap func(sandbox.Rules) sandbox.Rules) func() sandbox.Option {
	return func() sandbox.Option { return sandbox.WithHooks(sandbox.Hooks{Rules: wrap}) }
}

func outgoing(hook func(*sandbox.Outgoing)) func() sandbox.Option {
	return func() sandbox.Option { return sandbox.WithHooks(sandbox.Hooks{Outgoing: hook}) }
}
