package contracttests_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Each test here is a row of the false alarms an independent implementation met (issue 23): a choice
// the document leaves open, made differently from the reference sandbox, that the suite used to fail.
// Each runs the checks concerned against a sandbox that makes that choice, through the sandbox's seams.

// Events of one object may arrive in any order: a payment's final event before its payment.processing.
func TestStateChecksAcceptEventsInAnyOrder(t *testing.T) {
	hold := sandbox.Hooks{Outgoing: func(o *sandbox.Outgoing) {
		if o.EventType == api.EventTypePaymentProcessing && o.Number == 1 {
			o.Delay = 300 * time.Millisecond
		}
	}}
	results := runWith(t, nil, `^state\.payment\.(success|declined_transaction)\.`, sandbox.WithIndependentDeliveries(), sandbox.WithHooks(hold))
	require.Len(t, results, 2)
	for id, r := range results {
		assert.Equal(t, report.Passed, r.Outcome, "%s: %v", id, outcomes(results)[id])
	}
}

// The control: the same run with payment.processing never sent fails, naming the missing event.
func TestStateChecksStillNeedEveryEvent(t *testing.T) {
	drop := sandbox.Hooks{Outgoing: func(o *sandbox.Outgoing) {
		if o.EventType == api.EventTypePaymentProcessing {
			o.Drop = true
		}
	}}
	results := runWithWait(t, 2*time.Second, `^state\.payment\.success\.`, sandbox.WithHooks(drop))
	require.Len(t, results, 1)
	for _, r := range results {
		require.Equal(t, report.Failed, r.Outcome)
		assert.Contains(t, outcomes(results)[r.ID], "waiting for payment.processing and payment.success webhooks; last seen: payment.success(")
	}
}

// A retry schedule like Svix's (seconds, then minutes) is within the document's bound on the first
// retry; a run whose --wait ends before that bound says the retry was not observable, with the --wait
// that would observe it, and a longer wait sees it.
func TestRetryChecksFollowTheDocumentsBound(t *testing.T) {
	svixLike := sandbox.WithRetrySchedule([]time.Duration{1500 * time.Millisecond, 5 * time.Minute, 30 * time.Minute})

	short := runWithWait(t, time.Second, `^webhooks\.retry-after-500$`, svixLike)
	r := short["webhooks.retry-after-500"]
	require.Equal(t, report.Skipped, r.Outcome, "%v", outcomes(short))
	assert.Contains(t, r.SkipReason, "not observable within --wait 1s")
	assert.Contains(t, r.SkipReason, "--wait 1m")

	long := runWithWait(t, 4*time.Second, `^webhooks\.retry-after-500$`, svixLike)
	assert.Equal(t, report.Passed, long["webhooks.retry-after-500"].Outcome, "%v", outcomes(long))
}

// webhooks.all-types-observed judges the target only by the checks the run selected: under a --run
// that creates no payout, no payout event is missing.
func TestAllTypesObservedSkipsWhatTheRunDidNotSelect(t *testing.T) {
	results := runWith(t, nil, `^(state\.payment\.success\..*|webhooks\.all-types-observed)$`)
	r := results["webhooks.all-types-observed"]
	require.Equal(t, report.Skipped, r.Outcome, "%v", outcomes(results))
	assert.Contains(t, r.SkipReason, "payout.success")
	assert.Contains(t, r.SkipReason, "not selected")
	assert.NotContains(t, r.SkipReason, "payment.success", "payment.success was observed")
}

// A payment's country and currency are constrained by their patterns only (PaymentInitRequest): no
// check asserts that they must be reference data, and the sandbox accepts a country it does not list.
func TestPaymentCountryIsNotReferenceData(t *testing.T) {
	checks, err := contracttests.All()
	require.NoError(t, err)
	for _, c := range checks {
		assert.NotEqual(t, "negative.initializePayment.unknown-country", c.ID, "the document does not say a payment's country must be reference data")
	}
	cfg, stop, err := contracttests.StartEmbeddedWith()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, stop()) })
	body := `{"currency":"XXX","country":"QQ","narration":"x","method":"mobilemoney","amount":1,"webhook_url":"https://merchant.example.org/h"}`
	req, err := http.NewRequest(http.MethodPost, cfg.BaseURL+api.OpInitializePayment().URL(), strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderPublicKey, cfg.Keys.Public)
	req.Header.Set(api.HeaderSecretKey, cfg.Keys.Secret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
}

// runWithWait is runWith with the run's --wait set.
func runWithWait(t *testing.T, wait time.Duration, run string, opts ...sandbox.Option) map[string]report.Result {
	t.Helper()
	return runConfigured(t, nil, run, func(cfg *contracttests.Config) { cfg.EventuallyTimeout = wait }, opts...)
}

// The document does not say whether a request's unreadable body or its path's unknown id is refused
// first: an implementation that looks the object up first answers 404 to a malformed body sent to an
// id that names nothing. The malformed-body checks send to objects that exist, so either order passes.
func TestMalformedBodyChecksDoNotDependOnRefusalOrder(t *testing.T) {
	lookupFirst := sandbox.Hooks{Middleware: func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/conform-") || strings.Contains(r.URL.Path, "/unknown") {
				body, _ := json.Marshal(map[string]any{"status": "error", "code": api.CodeNotFound, "message": "not found",
					"errors": []map[string]string{{"field": "path.id", "reason": "no such object"}}})
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(api.CodeNotFound.HTTPStatus())
				_, _ = w.Write(body)
				return
			}
			next.ServeHTTP(w, r)
		})
	}}
	results := runWith(t, nil, `^negative\.\w+\.(malformed-json|wrong-content-type)$`, sandbox.WithHooks(lookupFirst))
	require.Len(t, results, 12)
	for id, r := range results {
		assert.Equal(t, report.Passed, r.Outcome, "%s: %v", id, outcomes(results)[id])
	}
}

// Every operation may answer 429 with Retry-After (the document's TooManyRequests): a target that
// limits a suite's burst of requests is judged on its answer after the wait, as a client that honours
// Retry-After sees it.
func TestRateLimitedAnswersAreRetriedAfterTheirWait(t *testing.T) {
	var n atomic.Int64
	limit := sandbox.Hooks{Middleware: func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(api.HeaderSandboxScenario) == "" && n.Add(1)%3 == 0 {
				body, _ := json.Marshal(map[string]any{"status": "error", "code": api.CodeRateLimited, "message": "slow down", "errors": []any{}})
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set(api.HeaderRetryAfter, "0")
				w.WriteHeader(api.CodeRateLimited.HTTPStatus())
				_, _ = w.Write(body)
				return
			}
			next.ServeHTTP(w, r)
		})
	}}
	results := runWith(t, nil, `^(idempotency\.processPayout\.(replay|conflict)|state\.payout\.mobile\.success\..*|negative\.processPayout\.bank\.amount\.below-minimum|auth\.getPayout\.no-keys|scenarios\.getPayout\.rate-limited)$`,
		sandbox.WithHooks(limit))
	require.Len(t, results, 6)
	for id, r := range results {
		assert.Equal(t, report.Passed, r.Outcome, "%s: %v", id, outcomes(results)[id])
	}
	assert.Positive(t, n.Load()/3, "the target limited no request, so the test proved nothing")
}

// A payout of one kind with a field of the other (bank_id on a mobile payout) breaks its branch's
// additionalProperties: the derived other-kind checks catch an implementation that validates the
// union as one loose object, which no example of the document and no unknown field name shows.
func TestOtherKindFieldsAreRefused(t *testing.T) {
	loose := sandbox.Hooks{Middleware: func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == api.OpProcessPayout().Method && r.URL.Path == api.OpProcessPayout().URL() {
				var body map[string]any
				raw, _ := io.ReadAll(r.Body)
				if json.Unmarshal(raw, &body) == nil {
					other := []string{"bank_id", "account_number"}
					if body["transfer_to"] == string(api.TransferToBank) {
						other = []string{"momo_phone_number"}
					}
					for _, f := range other {
						delete(body, f) // accepted, and ignored
					}
					raw, _ = json.Marshal(body)
				}
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(raw)), int64(len(raw))
			}
			next.ServeHTTP(w, r)
		})
	}}
	results := runWith(t, nil, `\.other-kind$`, sandbox.WithHooks(loose))
	require.Len(t, results, 3)
	for id, r := range results {
		assert.Equal(t, report.Failed, r.Outcome, "%s: a loose implementation must fail it", id)
	}
}
