package faults_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

func hasViolation(vs openapi.Violations, in, pointer string) bool {
	for _, v := range vs {
		if v.In == in && (pointer == "" || v.Pointer == pointer) {
			return true
		}
	}
	return false
}

// payoutWithHook is a credited mobile payout that reports to the receiver.
func (f *faulty) payoutWithHook() map[string]any {
	b := f.mobilePayout(f.creditedWallet())
	b["webhook_url"] = f.rc.url("/h")
	return b
}

// startPayment initializes a payment for the approving phone and returns its reference.
func (f *faulty) startPayment() string {
	f.t.Helper()
	phone := ""
	for _, v := range f.testValues().Payments {
		if v.Status == string(api.PaymentStatusSuccess) {
			phone = v.PhoneNumber
		}
	}
	r := f.do(http.MethodPost, api.OpInitializePayment().URL(), map[string]any{"currency": "ZMW", "country": "ZM", "narration": "Order 1042",
		"method": "mobilemoney", "amount": 150.5, "webhook_url": f.rc.url("/h"), "phone_number": phone})
	require.Equal(f.t, http.StatusCreated, r.status, "%s", r.body)
	return r.data(f.t)["paymentReference"].(string)
}

func (f *faulty) createEndpoint(body map[string]any) map[string]any {
	f.t.Helper()
	r := f.do(http.MethodPost, api.OpCreateWebhookEndpoint().URL(), body)
	require.Less(f.t, r.status, 300, "%s", r.body)
	return r.data(f.t)
}

func (f *faulty) rotate(id string, grace int) {
	f.t.Helper()
	r := f.do(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL(id), map[string]any{"grace_period_seconds": grace})
	require.Equal(f.t, http.StatusOK, r.status, "%s", r.body)
}

// endpointSecret is "whsec_" and the base64 of n random bytes.
func endpointSecret(t *testing.T, n int) string {
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

func merchantSecret(t *testing.T) webhook.Secret {
	sec, err := webhook.ParseSecret(sandbox.DefaultSecretKey)
	require.NoError(t, err)
	return sec
}

// breaks proves, for every fault, that the sandbox really breaks the rule the fault names. The
// contract suite's self-test (contracttests) proves the other half: that the suite notices.
var breaks = map[faults.Fault]func(t *testing.T, f *faulty){
	faults.DropRequiredResponseField: func(t *testing.T, f *faulty) {
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()))
		assert.NotContains(t, r.data(t), "status")
		assert.True(t, hasViolation(r.violations, openapi.InBody, "/data/status"), "%v", r.violations)
	},
	faults.WrongSuccessStatus: func(t *testing.T, f *faulty) {
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()))
		assert.Equal(t, http.StatusOK, r.status)
		assert.True(t, hasViolation(r.violations, openapi.InStatus, ""), "%v", r.violations)
	},
	faults.AcceptInvalidInput: func(t *testing.T, f *faulty) {
		b := f.mobilePayout(f.creditedWallet())
		b["amount"], b["colour"] = 0, "red"
		assert.Equal(t, http.StatusCreated, f.do(http.MethodPost, api.OpProcessPayout().URL(), b).status)
	},
	faults.AuthNotEnforced: func(t *testing.T, f *faulty) {
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()), without(api.HeaderPublicKey), without(api.HeaderSecretKey))
		assert.Equal(t, http.StatusCreated, r.status)
	},
	faults.SecretKeyNotChecked: func(t *testing.T, f *faulty) {
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()), header(api.HeaderSecretKey, "sk_wrong"))
		assert.Equal(t, http.StatusCreated, r.status)
		r = f.do(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()), without(api.HeaderSecretKey))
		assert.Equal(t, http.StatusUnauthorized, r.status, "a missing key is still reported")
	},
	faults.ErrorNotEnvelope: func(t *testing.T, f *faulty) {
		r := f.do(http.MethodGet, api.OpGetPayout().URL("po_0000000000000000"), nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		assert.Contains(t, r.header.Get("Content-Type"), "text/plain")
		assert.NotEmpty(t, r.violations)
	},
	faults.ErrorMissingFieldPointer: func(t *testing.T, f *faulty) {
		b := f.mobilePayout(f.creditedWallet())
		b["amount"] = 0
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), b)
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, string(r.body), `"errors":[]`)
	},
	faults.FieldErrorsStopAtFirst: func(t *testing.T, f *faulty) {
		b := f.mobilePayout(f.creditedWallet())
		b["amount"], b["unknown_member"] = 0, 1
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), b)
		assert.Equal(t, http.StatusBadRequest, r.status)
		var env struct{ Errors []any }
		require.NoError(t, json.Unmarshal(r.body, &env))
		assert.Len(t, env.Errors, 1, "two fields are wrong, one is named")
	},
	faults.RateLimitFieldsOnSuccessOnly: func(t *testing.T, f *faulty) {
		ok := f.do(http.MethodGet, api.OpListCountries().URL(), nil)
		assert.NotEmpty(t, ok.header.Get(api.HeaderRateLimitLimit))
		refused := f.do(http.MethodPost, api.OpProcessPayout().URL(), map[string]any{})
		assert.Equal(t, http.StatusBadRequest, refused.status)
		assert.Empty(t, refused.header.Get(api.HeaderRateLimitLimit))
	},
	faults.BadSignature: func(t *testing.T, f *faulty) {
		d := f.rc.waitFor(1, f.createPayout(f.payoutWithHook()))[0]
		assert.ErrorIs(t, webhook.Verifier{Secrets: []webhook.Secret{merchantSecret(t)}}.Verify(d.header, d.body), webhook.ErrNoMatchingSignature)
	},
	faults.NoWebhookRetry: func(t *testing.T, f *faulty) {
		f.rc.respond = func(int) int { return http.StatusInternalServerError }
		id := f.createPayout(f.payoutWithHook())
		f.rc.waitFor(1, id)
		f.idle() // a retry would keep the dispatcher busy
		assert.Len(t, f.rc.about(id), 1)
	},
	faults.UnstableWebhookID: func(t *testing.T, f *faulty) {
		f.rc.respond = func(nth int) int {
			return map[bool]int{true: http.StatusInternalServerError, false: http.StatusOK}[nth == 1]
		}
		got := f.rc.waitFor(2, f.createPayout(f.payoutWithHook()))
		assert.NotEqual(t, got[0].header.Get(webhook.HeaderID), got[1].header.Get(webhook.HeaderID))
		verifier := webhook.Verifier{Secrets: []webhook.Secret{merchantSecret(t)}}
		assert.NoError(t, verifier.Verify(got[1].header, got[1].body), "only the id changes: the retry is still signed")
	},
	faults.ResendNewWebhookID: func(t *testing.T, f *faulty) {
		id := f.createPayout(f.payoutWithHook())
		first := f.rc.waitFor(1, id)[0]
		f.idle()
		eventID := first.header.Get(webhook.HeaderID)
		r := f.do(http.MethodPost, api.OpResendEvent().URL(eventID), nil)
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
		again := f.rc.waitFor(2, id)[1]
		assert.NotEqual(t, eventID, again.header.Get(webhook.HeaderID), "the resend has a new webhook-id")
		verifier := webhook.Verifier{Secrets: []webhook.Secret{merchantSecret(t)}}
		assert.NoError(t, verifier.Verify(again.header, again.body), "only the id changes: the resend is still signed")
	},
	faults.IdempotencyIgnored: func(t *testing.T, f *faulty) {
		a := f.createPayout(f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
		b := f.createPayout(f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
		assert.NotEqual(t, a, b)
		assert.Len(t, f.srv.Payouts(sandbox.DefaultPublicKey), 2)
	},
	faults.IdempotencyConflictIgnored: func(t *testing.T, f *faulty) {
		f.createPayout(f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
		b := f.mobilePayout(f.creditedWallet())
		b["amount"] = 999
		assert.Equal(t, http.StatusCreated, f.do(http.MethodPost, api.OpProcessPayout().URL(), b, header(api.HeaderIdempotencyKey, "k")).status)
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
		assert.Equal(t, "true", r.header.Get(api.HeaderIdempotentReplayed), "the same body is still replayed")
	},
	faults.FinalStateChanges: func(t *testing.T, f *faulty) {
		id := f.createPayout(f.mobilePayout(f.creditedWallet()))
		f.idle()
		first := f.do(http.MethodGet, api.OpGetPayout().URL(id), nil).data(t)
		again := f.do(http.MethodGet, api.OpGetPayout().URL(id), nil).data(t)
		assert.Equal(t, string(api.PayoutStatusSuccess), first["status"])
		assert.Equal(t, string(api.PayoutStatusFailed), again["status"])
	},
	faults.CrossMerchantVisible: func(t *testing.T, f *faulty) {
		id := f.createPayout(f.mobilePayout(f.creditedWallet()))
		r := f.do(http.MethodGet, api.OpGetPayout().URL(id), nil, header(api.HeaderPublicKey, otherPublic), header(api.HeaderSecretKey, otherSecret))
		assert.Equal(t, http.StatusOK, r.status)
	},
	faults.MissingWebhookEvent: func(t *testing.T, f *faulty) {
		ref := f.startPayment()
		f.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil)
		got := f.rc.waitFor(1, ref)
		f.idle()
		assert.Equal(t, string(api.EventTypePaymentSuccess), got[0].event.Type)
		assert.Len(t, f.rc.about(ref), 1)
	},
	faults.WrongFailureReason: func(t *testing.T, f *faulty) {
		var failing openapi.MobilePayoutTestValue
		for _, v := range f.testValues().Payouts.MobileNumber {
			if v.FailureReason != "" {
				failing = v
			}
		}
		b := f.mobilePayout(failing.MomoPhoneNumber)
		b["webhook_url"] = f.rc.url("/h")
		id := f.createPayout(b)
		d := f.rc.waitFor(1, id)[0]
		assert.NotEqual(t, failing.FailureReason, d.event.Data.Object["failure_reason"])
		assert.NoError(t, webhook.Verifier{Secrets: []webhook.Secret{merchantSecret(t)}}.Verify(d.header, d.body), "the changed body is signed")
		assert.NotEqual(t, failing.FailureReason, f.do(http.MethodGet, api.OpGetPayout().URL(id), nil).data(t)["failure_reason"])
	},
	faults.WebhookToDisabledEndpoint: func(t *testing.T, f *faulty) {
		f.createEndpoint(map[string]any{"url": f.rc.url("/disabled"), "events": []string{string(api.EventTypePayoutSuccess)}, "enabled": false})
		id := f.createPayout(f.mobilePayout(f.creditedWallet()))
		assert.Equal(t, "/disabled", f.rc.waitFor(1, id)[0].path)
	},
	faults.NoRotationDualSignature: func(t *testing.T, f *faulty) {
		ep := f.createEndpoint(map[string]any{"url": f.rc.url("/r"), "events": []string{string(api.EventTypePayoutSuccess)}})
		f.rotate(ep["id"].(string), 3600)
		d := f.rc.waitFor(1, f.createPayout(f.mobilePayout(f.creditedWallet())))[0]
		assert.Len(t, webhook.Signatures(d.header.Get(webhook.HeaderSignature)), 1)
	},
	faults.RotationKeepsOlderSecrets: func(t *testing.T, f *faulty) {
		ep := f.createEndpoint(map[string]any{"url": f.rc.url("/r"), "events": []string{string(api.EventTypePayoutSuccess)}})
		f.rotate(ep["id"].(string), 3600)
		f.rotate(ep["id"].(string), 0)
		d := f.rc.waitFor(1, f.createPayout(f.mobilePayout(f.creditedWallet())))[0]
		assert.Len(t, webhook.Signatures(d.header.Get(webhook.HeaderSignature)), 2, "the first secret still signs after the second rotation")
	},
	faults.WebhookURLNotParsed: func(t *testing.T, f *faulty) {
		b := f.mobilePayout(f.creditedWallet())
		b["webhook_url"] = "http://[x"
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), b)
		assert.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	},
	faults.LoseFirstCreateResponse: func(t *testing.T, f *faulty) {
		// Without keep-alive the transport cannot retry on its own, so the drop is visible.
		f.hc = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		_, err := f.call(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
		require.Error(t, err, "the first response is lost")
		require.Len(t, f.srv.Payouts(sandbox.DefaultPublicKey), 1, "but the payout was created")
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
		assert.Equal(t, http.StatusCreated, r.status)
		assert.Equal(t, "true", r.header.Get(api.HeaderIdempotentReplayed))
		assert.Len(t, f.srv.Payouts(sandbox.DefaultPublicKey), 1)
	},
	faults.DuplicateReferenceAccepted: func(t *testing.T, f *faulty) {
		b := f.mobilePayout(f.creditedWallet())
		b["reference"] = "dup"
		f.createPayout(b)
		assert.Equal(t, http.StatusCreated, f.do(http.MethodPost, api.OpProcessPayout().URL(), b).status)
	},
	faults.CompleteNotPendingAccepted: func(t *testing.T, f *faulty) {
		ref := f.startPayment()
		f.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil)
		r := f.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil)
		assert.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	},
	faults.UnknownReferenceDataAccepted: func(t *testing.T, f *faulty) {
		b := map[string]any{"amount": 2500, "countryId": "ctry_xx", "transfer_to": "bank", "bank_id": "bank_xx", "account_number": "1234"}
		assert.Equal(t, http.StatusCreated, f.do(http.MethodPost, api.OpProcessPayout().URL(), b).status)
	},
	faults.ValidationErrorUsesKey: func(t *testing.T, f *faulty) {
		bad := f.mobilePayout(f.creditedWallet())
		bad["amount"] = 0
		assert.Equal(t, http.StatusBadRequest, f.do(http.MethodPost, api.OpProcessPayout().URL(), bad, header(api.HeaderIdempotencyKey, "k")).status)
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
		assert.Equal(t, http.StatusBadRequest, r.status, "the corrected request gets the first 400 again")
		assert.Empty(t, f.srv.Payouts(sandbox.DefaultPublicKey))
	},
	faults.ReplayHeaderMissing: func(t *testing.T, f *faulty) {
		f.createPayout(f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
		assert.Equal(t, http.StatusCreated, r.status)
		assert.Empty(t, r.header.Get(api.HeaderIdempotentReplayed))
		assert.Len(t, f.srv.Payouts(sandbox.DefaultPublicKey), 1, "still a replay")
	},
	faults.RateLimitWithoutRetryAfter: func(t *testing.T, f *faulty) {
		r := f.do(http.MethodGet, api.OpListCountries().URL(), nil, header(api.HeaderSandboxScenario, string(api.ScenarioRateLimited)))
		assert.Equal(t, http.StatusTooManyRequests, r.status)
		assert.Empty(t, r.header.Get(api.HeaderRetryAfter))
	},
	faults.SecretInEndpointRead: func(t *testing.T, f *faulty) {
		ep := f.createEndpoint(map[string]any{"url": "https://x.example/h", "events": []string{string(api.EventTypePayoutSuccess)}})
		assert.Equal(t, ep["secret"], f.do(http.MethodGet, api.OpGetWebhookEndpoint().URL(ep["id"].(string)), nil).data(t)["secret"])
	},
	faults.SuppliedSecretIgnored: func(t *testing.T, f *faulty) {
		supplied := endpointSecret(t, 32)
		ep := f.createEndpoint(map[string]any{"url": f.rc.url("/own"), "events": []string{string(api.EventTypePayoutSuccess)}, "secret": supplied})
		assert.Equal(t, supplied, ep["secret"], "the response shows the supplied secret")
		d := f.rc.waitFor(1, f.createPayout(f.mobilePayout(f.creditedWallet())))[0]
		sec, err := webhook.ParseEndpointSecret(supplied)
		require.NoError(t, err)
		assert.ErrorIs(t, webhook.Verifier{Secrets: []webhook.Secret{sec}}.Verify(d.header, d.body), webhook.ErrNoMatchingSignature)
	},
	faults.WeakSecretAccepted: func(t *testing.T, f *faulty) {
		weak := endpointSecret(t, webhook.MinSecretBytes-1)
		ep := f.createEndpoint(map[string]any{"url": f.rc.url("/weak"), "events": []string{string(api.EventTypePayoutSuccess)}, "secret": weak})
		assert.Equal(t, weak, ep["secret"], "a 23-byte secret is taken")
		r := f.do(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL(ep["id"].(string)), map[string]any{"secret": "not-a-secret"})
		assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
	},
	faults.AttemptsNewestFirst: func(t *testing.T, f *faulty) {
		f.rc.respond = func(nth int) int {
			return map[bool]int{true: http.StatusInternalServerError, false: http.StatusOK}[nth == 1]
		}
		first := f.rc.waitFor(2, f.createPayout(f.payoutWithHook()))[0]
		f.idle()
		r := f.do(http.MethodGet, api.OpListEventAttempts().URL(first.header.Get(webhook.HeaderID)), nil)
		attempts := listOf(t, r)
		require.Len(t, attempts, 2)
		assert.Equal(t, []any{true, false}, []any{attempts[0]["delivered"], attempts[1]["delivered"]}, "the retry, delivered, is listed before the attempt that failed")
		assert.Equal(t, []any{2.0, 1.0}, []any{attempts[0]["number"], attempts[1]["number"]})
		assert.Empty(t, r.violations, "the list is still valid")
	},
	faults.EventsOldestFirst: func(t *testing.T, f *faulty) {
		ref := f.startPayment()
		f.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil)
		f.idle()
		r := f.do(http.MethodGet, api.OpListEvents().URL()+"?object_id="+ref, nil)
		items := itemsOf(t, r)
		require.Len(t, items, 2)
		assert.Equal(t, []any{string(api.EventTypePaymentProcessing), string(api.EventTypePaymentSuccess)}, []any{items[0]["type"], items[1]["type"]},
			"the payment's first event is listed first")
		assert.Empty(t, r.violations, "the page is still valid")
	},
	faults.CursorRepeatsLastEvent: func(t *testing.T, f *faulty) {
		for range 2 {
			ref := f.startPayment()
			f.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil)
		}
		f.idle()
		first := f.do(http.MethodGet, api.OpListEvents().URL()+"?limit=2", nil)
		page := itemsOf(t, first)
		require.Len(t, page, 2)
		cursor, _ := first.data(t)["next_cursor"].(string)
		require.NotEmpty(t, cursor)
		next := itemsOf(t, f.do(http.MethodGet, api.OpListEvents().URL()+"?limit=2&cursor="+cursor, nil))
		require.NotEmpty(t, next)
		assert.Equal(t, page[1]["id"], next[0]["id"], "the next page starts with the last event of the one before")
		single := f.do(http.MethodGet, api.OpListEvents().URL()+"?limit=1&cursor="+cursor, nil)
		again, _ := single.data(t)["next_cursor"].(string)
		assert.Equal(t, cursor, again, "a page of one event continues where it started: at itself")
	},
	faults.EndpointsNewestFirst: func(t *testing.T, f *faulty) {
		var made []any
		for i := range 3 {
			ep := f.createEndpoint(map[string]any{"url": f.rc.url("/e" + strconv.Itoa(i)), "events": []string{string(api.EventTypePayoutSuccess)}, "enabled": false})
			made = append(made, ep["id"])
		}
		r := f.do(http.MethodGet, api.OpListWebhookEndpoints().URL(), nil)
		var listed []any
		for _, ep := range listOf(t, r) {
			listed = append(listed, ep["id"])
		}
		assert.Equal(t, []any{made[2], made[1], made[0]}, listed, "the newest endpoint first")
		assert.Empty(t, r.violations, "the list is still valid")
	},
	faults.NonASCIICrash:                breaksNonASCII,
	faults.LargeAmountRefused:           breaksLargeAmount,
	faults.LongTextTruncated:            breaksLongText,
	faults.CentsRounded:                 breaksCents,
	faults.PatternCharRefused:           breaksPatternChar,
	faults.WebhookFieldLostForOneStatus: breaksWebhookField,
	faults.StaleWebhookTimestamp: func(t *testing.T, f *faulty) {
		d := f.rc.waitFor(1, f.createPayout(f.payoutWithHook()))[0]
		assert.ErrorIs(t, webhook.Verifier{Secrets: []webhook.Secret{merchantSecret(t)}}.Verify(d.header, d.body), webhook.ErrTimestampTooOld)
	},
	faults.LimitAsValidationError: func(t *testing.T, f *faulty) {
		body := map[string]any{"url": f.rc.url("/capped"), "events": []string{string(api.EventTypePayoutSuccess)}, "enabled": false}
		r := f.do(http.MethodPost, api.OpCreateWebhookEndpoint().URL(), body)
		for n := 0; r.status == http.StatusCreated && n < 256; n++ { // up to the cap, whatever it is
			r = f.do(http.MethodPost, api.OpCreateWebhookEndpoint().URL(), body)
		}
		assert.Equal(t, http.StatusBadRequest, r.status, "the create past the cap: %s", r.body)
		var env struct{ Code api.ErrorCode }
		require.NoError(t, json.Unmarshal(r.body, &env))
		assert.Equal(t, api.CodeValidationFailed, env.Code)
	},
}

// listOf is a reply's data array.
func listOf(t *testing.T, r reply) []map[string]any {
	t.Helper()
	var env struct {
		Data []map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.body, &env), "%s", r.body)
	return env.Data
}

// itemsOf is the events of a reply's event page.
func itemsOf(t *testing.T, r reply) []map[string]any {
	t.Helper()
	var env struct {
		Data struct {
			Items []map[string]any `json:"items"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.body, &env), "%s", r.body)
	return env.Data.Items
}

func TestEveryFaultBreaksItsRule(t *testing.T) {
	for _, fi := range faults.All() {
		t.Run(string(fi.Fault), func(t *testing.T) {
			t.Parallel()
			assert.NotEmpty(t, fi.Description)
			check, ok := breaks[fi.Fault]
			require.True(t, ok, "fault %s has no test proving it breaks its rule", fi.Fault)
			check(t, newFaulty(t, fi.Fault))
		})
	}
	assert.Len(t, breaks, len(faults.All()))
}

// TestWithoutFaultsNothingBreaks is the control: the harness's requests break no rule of a sandbox
// without faults.
func TestWithoutFaultsNothingBreaks(t *testing.T) {
	f := newFaulty(t)
	f.createPayout(f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
	r := f.do(http.MethodPost, api.OpProcessPayout().URL(), f.mobilePayout(f.creditedWallet()), header(api.HeaderIdempotencyKey, "k"))
	assert.Equal(t, "true", r.header.Get(api.HeaderIdempotentReplayed))
	assert.Empty(t, r.violations)
	r = f.do(http.MethodGet, api.OpGetPayout().URL("po_0000000000000000"), nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Empty(t, r.violations)
	d := f.rc.waitFor(1, f.createPayout(f.payoutWithHook()))[0]
	assert.NoError(t, webhook.Verifier{Secrets: []webhook.Secret{merchantSecret(t)}}.Verify(d.header, d.body))
}

func TestUnknownFaultIsRefusedWithTheKnownOnes(t *testing.T) {
	_, err := faults.Options("no-such-fault")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown fault "no-such-fault"`)
	assert.Contains(t, err.Error(), string(faults.BadSignature))
}
