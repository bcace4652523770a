package sandbox

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Nothing settles on its own in these tests: the controls do it.
var stillTimings = Timings{PromptDelay: time.Hour, PayoutDelay: time.Hour}

func TestSettlePayoutNow(t *testing.T) {
	e := newEnv(t, WithTimings(stillTimings))
	rc := newReceiver(t)
	id := e.client.createPayout(with(mobilePayout(creditedWallet(t)), "webhook_url", rc.url("/po")))
	settle := api.OpSettleSandboxPayout().URL(id)

	// The body's rules the schema cannot say: a failure has a reason, a success none.
	res := e.client.do(http.MethodPost, settle, map[string]any{"status": "failed"})
	assert.Equal(t, http.StatusBadRequest, res.status)
	assert.Equal(t, []string{"/failure_reason"}, res.fields(t))
	res = e.client.do(http.MethodPost, settle, map[string]any{"status": "success", "failure_reason": "account_blocked"})
	assert.Equal(t, http.StatusBadRequest, res.status)
	assert.Equal(t, []string{"/failure_reason"}, res.fields(t))

	// Another merchant cannot settle it.
	other := e.client.as(otherPublicKey, otherSecretKey)
	assert.Equal(t, http.StatusNotFound, other.do(http.MethodPost, settle, map[string]any{"status": "success"}).status)

	// The test value says this wallet is credited; the control overrides it, now.
	res = e.client.do(http.MethodPost, settle, map[string]any{"status": "failed", "failure_reason": "account_blocked"})
	require.Equal(t, http.StatusOK, res.status, "%s", res.body)
	assert.Equal(t, "failed", res.data(t)["status"])
	assert.Equal(t, "account_blocked", res.data(t)["failure_reason"])
	got, ok := e.srv.Payout(DefaultPublicKey, id)
	require.True(t, ok)
	assert.Equal(t, api.PayoutStatusFailed, got.Status)

	// The webhook goes out as for a real settlement.
	d := rc.waitFor(1, forObject(id))[0]
	assert.Equal(t, "payout.failed", d.event.Type)
	assert.Equal(t, "processing", d.event.Data.PreviousStatus)
	verify(t, d, webhook.MerchantSigningSecret(DefaultSecretKey))

	// Final is final.
	res = e.client.do(http.MethodPost, settle, map[string]any{"status": "success"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.status)
	assert.Equal(t, int(api.CodeInvalidState), res.code(t))
	assert.Equal(t, http.StatusNotFound, e.client.do(http.MethodPost, api.OpSettleSandboxPayout().URL("po_0000000000000000"), map[string]any{"status": "success"}).status)
}

func TestSettlePaymentNow(t *testing.T) {
	e := newEnv(t, WithTimings(stillTimings))
	rc := newReceiver(t)
	res := e.client.do(http.MethodPost, api.OpInitializePayment().URL(), paymentInit(approvingPhone(t), rc.url("/pay")))
	require.Equal(t, http.StatusCreated, res.status)
	ref := res.data(t)["paymentReference"].(string)
	settle := api.OpSettleSandboxPayment().URL(ref)

	// Pending: the prompt was not sent yet, and the answer says what to do.
	res = e.client.do(http.MethodPost, settle, map[string]any{"status": "success"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.status)
	assert.Contains(t, string(res.body), "complete it first")

	require.Equal(t, http.StatusAccepted, e.client.do(http.MethodPost, api.OpCompletePayment().URL(ref), map[string]any{}).status)
	res = e.client.do(http.MethodPost, settle, map[string]any{"status": "failed", "failure_reason": "insufficient_funds"})
	require.Equal(t, http.StatusOK, res.status, "%s", res.body)
	assert.Equal(t, "insufficient_funds", res.data(t)["failure_reason"])
	types := []string{}
	for _, d := range rc.waitFor(2, forObject(ref)) {
		types = append(types, d.event.Type)
	}
	assert.Equal(t, []string{"payment.processing", "payment.failed"}, types)
}

// A delivery failure fails every attempt to its URL, as if the receiver answered its status, without
// sending anything; deliveries to other URLs go through; deleting it lets the next retry deliver.
func TestDeliveryFailureFailsAttemptsUntilDeleted(t *testing.T) {
	e := newEnv(t, WithTimings(stillTimings),
		WithRetrySchedule([]time.Duration{20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, time.Second, time.Second}))
	rc := newReceiver(t)
	down, up := rc.url("/down"), rc.url("/up")

	res := e.client.do(http.MethodPost, api.OpCreateSandboxDeliveryFailure().URL(), map[string]any{"url": down, "status_code": 502, "duration_seconds": 600})
	require.Equal(t, http.StatusCreated, res.status, "%s", res.body)
	failure := res.data(t)
	assert.EqualValues(t, 502, failure["status_code"])
	list := e.client.do(http.MethodGet, api.OpListSandboxDeliveryFailures().URL(), nil)
	require.Equal(t, http.StatusOK, list.status)
	assert.Contains(t, string(list.body), failure["id"].(string))
	// Another merchant's deliveries to the same URL are not affected, nor can it see or end the failure.
	other := e.client.as(otherPublicKey, otherSecretKey)
	assert.NotContains(t, string(other.do(http.MethodGet, api.OpListSandboxDeliveryFailures().URL(), nil).body), failure["id"].(string))
	assert.Equal(t, http.StatusNotFound, other.do(http.MethodDelete, api.OpDeleteSandboxDeliveryFailure().URL(failure["id"].(string)), nil).status)

	failing := e.client.createPayout(with(mobilePayout(creditedWallet(t)), "webhook_url", down))
	working := e.client.createPayout(with(mobilePayout(creditedWallet(t)), "webhook_url", up))
	for _, id := range []string{failing, working} {
		require.Equal(t, http.StatusOK, e.client.do(http.MethodPost, api.OpSettleSandboxPayout().URL(id), map[string]any{"status": "success"}).status)
	}
	rc.waitFor(1, forObject(working))
	require.Eventually(t, func() bool { return len(attemptsTo(e.srv, down)) >= 3 }, 5*time.Second, 2*time.Millisecond)
	for _, a := range attemptsTo(e.srv, down) {
		assert.Equal(t, 502, a.StatusCode)
		assert.False(t, a.Delivered)
		assert.Contains(t, a.Error, "not sent: the sandbox fails deliveries to this URL")
	}
	assert.Empty(t, rc.deliveriesTo("/down"), "nothing is sent to a failing URL")

	require.Equal(t, http.StatusNoContent, e.client.do(http.MethodDelete, api.OpDeleteSandboxDeliveryFailure().URL(failure["id"].(string)), nil).status)
	d := rc.waitFor(1, forObject(failing))[0]
	assert.Equal(t, "/down", d.path)
	// The attempt is recorded once the dispatcher has read the answer, which is after the receiver saw
	// the request: wait for the record rather than race it.
	var last Attempt
	require.Eventually(t, func() bool {
		attempts := attemptsTo(e.srv, down)
		last = attempts[len(attempts)-1]
		return last.Delivered
	}, 5*time.Second, 2*time.Millisecond, "the last attempt to the URL is the delivered one")
	assert.Greater(t, last.Number, 1, "the retry after the failure ended delivered it, with the same webhook-id")
	assert.Equal(t, http.StatusNotFound, e.client.do(http.MethodDelete, api.OpDeleteSandboxDeliveryFailure().URL(failure["id"].(string)), nil).status)
}

// A failure ends by itself at expires_at.
func TestDeliveryFailureExpires(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	clock := &now
	e := newEnv(t, WithClock(func() time.Time { return *clock }))
	res := e.client.do(http.MethodPost, api.OpCreateSandboxDeliveryFailure().URL(), map[string]any{"url": "https://merchant.example.org/hooks"})
	require.Equal(t, http.StatusCreated, res.status)
	assert.EqualValues(t, 503, res.data(t)["status_code"], "the document's default status")
	assert.Equal(t, "2026-11-21T10:05:00Z", res.data(t)["expires_at"], "the document's default duration, 300 s")
	assert.Len(t, e.srv.DeliveryFailures(DefaultPublicKey), 1)
	later := now.Add(300 * time.Second)
	clock = &later
	assert.Empty(t, e.srv.DeliveryFailures(DefaultPublicKey))
}

func TestScenarioHeader(t *testing.T) {
	e := newEnv(t)
	scenario := func(v string) reqOpt { return withHeader(api.HeaderSandboxScenario, v) }
	count := func() int { return len(e.srv.Payouts(DefaultPublicKey)) }

	// 429 and 500 do nothing.
	res := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(creditedWallet(t)), scenario("rate_limited"))
	assert.Equal(t, http.StatusTooManyRequests, res.status)
	assert.Equal(t, int(api.CodeRateLimited), res.code(t))
	assert.Equal(t, "1", res.header.Get("Retry-After"))
	res = e.client.do(http.MethodGet, api.OpListCountries().URL(), nil, scenario("internal_error"))
	assert.Equal(t, http.StatusInternalServerError, res.status)
	assert.Equal(t, int(api.CodeInternalError), res.code(t))
	assert.Equal(t, 0, count())

	// Keys come first: a scenario does not hide a 401.
	assert.Equal(t, http.StatusUnauthorized, e.client.do(http.MethodGet, api.OpListCountries().URL(), nil, scenario("rate_limited"), withoutHeader(api.HeaderPublicKey)).status)

	// A value the sandbox does not know is a 400 naming the header, not a silent normal answer.
	for _, bad := range []string{"teapot", "rate_limited; delay_ms=5", "slow; delay_ms=-1", "slow; delay_ms=999999", "slow; wait=5"} {
		res = e.client.do(http.MethodGet, api.OpGetPayout().URL("po_0000000000000000"), nil, scenario(bad))
		assert.Equal(t, http.StatusBadRequest, res.status, bad)
		assert.Equal(t, []string{"header.malipo-sandbox-scenario"}, res.fields(t), bad)
	}
	// TestUnknownScenarioIsRefusedEverywhere: every operation, whether the API has a 400 or not.

	// drop_after_write: the payout is made and stored with its key, the answer never comes; the retry
	// with the same key gets the stored answer.
	_, err := e.client.try(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(creditedWallet(t)), scenario("drop_after_write"), withIdempotencyKey("drop-1"))
	require.Error(t, err)
	assert.ErrorIs(t, err, io.EOF, "the connection closed without an answer")
	assert.Equal(t, 1, count(), "the write was stored before the connection dropped")
	res = e.client.do(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(creditedWallet(t)), withIdempotencyKey("drop-1"))
	assert.Equal(t, http.StatusCreated, res.status)
	assert.Equal(t, "true", res.header.Get(api.HeaderIdempotentReplayed))
	assert.Equal(t, 1, count())

	// slow: the answer comes late, and a client that gave up before it still made the payout.
	res = e.client.do(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(creditedWallet(t)), scenario("slow; delay_ms=1"))
	assert.Equal(t, http.StatusCreated, res.status)
	impatient := e.client.as(DefaultPublicKey, DefaultSecretKey)
	impatient.hc.Timeout = 50 * time.Millisecond
	_, err = impatient.try(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(creditedWallet(t)), scenario("slow; delay_ms=30000"))
	var timeout net.Error
	require.ErrorAs(t, err, &timeout)
	assert.True(t, timeout.Timeout(), "the client gave up waiting: %v", err)
	assert.Equal(t, 3, count())
}

// attemptsTo returns the delivery attempts made to url, oldest first.
func attemptsTo(s *Server, url string) []Attempt {
	var out []Attempt
	for _, a := range s.Attempts() {
		if a.URL == url {
			out = append(out, a)
		}
	}
	return out
}

// deliveriesTo returns the deliveries the receiver got at path.
func (rc *receiver) deliveriesTo(path string) []received {
	var out []received
	for _, d := range rc.deliveries() {
		if d.path == path {
			out = append(out, d)
		}
	}
	return out
}

// The defaults of a delivery failure are the document's (the `default`s of SandboxDeliveryFailureRequest).
func TestDeliveryFailureDefaultsAreTheDocuments(t *testing.T) {
	doc := openapitest.Embedded(t)
	def := func(name string) int {
		var prop struct {
			Default *int `yaml:"default"`
		}
		openapitest.Decode(t, doc.At(t, "/components/schemas/SandboxDeliveryFailureRequest/properties/"+name), &prop)
		require.NotNil(t, prop.Default, "%s has a default", name)
		return *prop.Default
	}
	status, duration := def("status_code"), def("duration_seconds")
	assert.Equal(t, defaultFailureStatus, status)
	assert.Equal(t, defaultFailureDuration, time.Duration(duration)*time.Second)
}

// The scenario header's timings and Retry-After are the ones the "Sandbox controls" tag tells users.
func TestScenarioTimingsAreTheDocuments(t *testing.T) {
	desc := openapitest.Embedded(t).TagDescription(t, "Sandbox controls")
	require.NotEmpty(t, desc)
	assert.Contains(t, desc, fmt.Sprintf("`Retry-After: %d`", rateLimitRetryAfter))
	assert.Contains(t, desc, fmt.Sprintf("after %d seconds", int(slowDelay.Seconds())))
	assert.Contains(t, desc, fmt.Sprintf("(at most %d)", maxSlowDelay.Milliseconds()))
}

// An unknown scenario value, a misspelling most often, is a 400 on every operation (the validating
// client holds it to the document: each operation documents that 400) naming the header and listing
// the values it takes, nothing is done, and the sandbox's log says so: answered normally, it would pass
// for a retry path that was never exercised. listCountries and listSandboxDeliveryFailures had no 400
// before the document declared one for this; getPayout and processPayout had.
func TestUnknownScenarioIsRefusedEverywhere(t *testing.T) {
	logs := &recordingHandler{level: slog.LevelWarn}
	e := newEnv(t, WithLogger(slog.New(logs)))
	const misspelt = "rate-limited"
	var valid []string
	for _, sc := range api.SandboxScenarios() {
		valid = append(valid, string(sc))
	}
	ops := api.Operations()
	require.Contains(t, ops, api.OpListCountries())
	require.Contains(t, ops, api.OpListSandboxDeliveryFailures())
	require.Contains(t, ops, api.OpGetPayout())
	for _, op := range ops {
		ids := make([]string, strings.Count(op.Path, "{"))
		for i := range ids {
			ids[i] = "po_0000000000000000"
		}
		var body any
		if op.Method == http.MethodPost || op.Method == http.MethodPatch {
			body = mobilePayout(creditedWallet(t))
		}
		res := e.client.do(op.Method, op.URL(ids...), body, withHeader(api.HeaderSandboxScenario, misspelt))
		require.Equal(t, http.StatusBadRequest, res.status, "%s: %s", op.ID, res.body)
		assert.Equal(t, int(api.CodeValidationFailed), res.code(t), op.ID)
		assert.Equal(t, []string{"header.malipo-sandbox-scenario"}, res.fields(t), op.ID)
		reason := res.json(t)["errors"].([]any)[0].(map[string]any)["reason"].(string)
		assert.Contains(t, reason, `"`+misspelt+`"`, op.ID)
		assert.Contains(t, reason, strings.Join(valid, ", "), "%s: the answer lists every valid value", op.ID)
	}
	assert.Empty(t, e.srv.Payouts(DefaultPublicKey), "a refused scenario does nothing")

	logs.mu.Lock()
	defer logs.mu.Unlock()
	require.Len(t, logs.records, len(ops), "one warning per refused request")
	for _, r := range logs.records {
		attrs := map[string]string{}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
		assert.Equal(t, slog.LevelWarn, r.Level)
		assert.Equal(t, misspelt, attrs["value"], "the warning names the bad value")
		assert.Equal(t, strings.Join(valid, ", "), attrs["valid"], "the warning lists the valid values")
		assert.Equal(t, api.HeaderSandboxScenario, attrs["header"])
	}
}

// A scenario value as long as the server lets a header be is repeated only in part.
func TestUnknownScenarioEchoIsBounded(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("x", 10*maxEchoedScenario)
	res := e.client.do(http.MethodGet, api.OpListCountries().URL(), nil, withHeader(api.HeaderSandboxScenario, long))
	require.Equal(t, http.StatusBadRequest, res.status)
	assert.NotContains(t, string(res.body), long[:maxEchoedScenario+1])
}
