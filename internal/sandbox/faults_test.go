package sandbox

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// faultEnv is a sandbox with one fault; its client and receiver collect violations instead of
// failing, because breaking the contract is the point.
func faultEnv(t *testing.T, f Fault, opts ...Option) (*env, *receiver) {
	t.Helper()
	e := newEnv(t, append([]Option{WithFault(f)}, opts...)...)
	e.client = newClient(t, e.ts.URL, false)
	rc := newReceiver(t)
	rc.strict = false
	return e, rc
}

func hasViolation(vs openapi.Violations, in, pointer string) bool {
	for _, v := range vs {
		if v.In == in && (pointer == "" || v.Pointer == pointer) {
			return true
		}
	}
	return false
}

// faultChecks proves, for every fault, that the sandbox really breaks the rule it names.
var faultChecks = map[Fault]func(t *testing.T){
	FaultDropRequiredResponseField: func(t *testing.T) {
		e, _ := faultEnv(t, FaultDropRequiredResponseField)
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", mobilePayout(""))
		assert.NotContains(t, res.data(t), "status")
		assert.True(t, hasViolation(e.client.violations(), openapi.InBody, "/data/status"), "%v", e.client.violations())
	},
	FaultWrongSuccessStatus: func(t *testing.T) {
		e, _ := faultEnv(t, FaultWrongSuccessStatus)
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", mobilePayout(""))
		assert.Equal(t, http.StatusOK, res.status)
		assert.True(t, hasViolation(e.client.violations(), openapi.InStatus, ""), "%v", e.client.violations())
	},
	FaultAcceptInvalidInput: func(t *testing.T) {
		e, _ := faultEnv(t, FaultAcceptInvalidInput)
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", with(mobilePayout(""), "amount", 0, "colour", "red"))
		assert.Equal(t, http.StatusCreated, res.status)
	},
	FaultAuthNotEnforced: func(t *testing.T) {
		e, _ := faultEnv(t, FaultAuthNotEnforced)
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", mobilePayout(""), withoutHeader("public-key"), withoutHeader("secret-key"))
		assert.Equal(t, http.StatusCreated, res.status)
	},
	FaultSecretKeyNotChecked: func(t *testing.T) {
		e, _ := faultEnv(t, FaultSecretKeyNotChecked)
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", mobilePayout(""), withHeader("secret-key", "sk_wrong"))
		assert.Equal(t, http.StatusCreated, res.status)
		res = e.client.do(http.MethodPost, "/v1/payment/payouts/process", mobilePayout(""), withoutHeader("secret-key"))
		assert.Equal(t, http.StatusUnauthorized, res.status, "a missing key is still reported")
	},
	FaultErrorNotEnvelope: func(t *testing.T) {
		e, _ := faultEnv(t, FaultErrorNotEnvelope)
		res := e.client.do(http.MethodGet, "/v1/payment/payouts/po_0000000000000000", nil)
		assert.Equal(t, http.StatusNotFound, res.status)
		assert.Contains(t, res.header.Get("Content-Type"), "text/plain")
		assert.NotEmpty(t, e.client.violations())
	},
	FaultErrorMissingFieldPointer: func(t *testing.T) {
		e, _ := faultEnv(t, FaultErrorMissingFieldPointer)
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", with(mobilePayout(""), "amount", 0))
		assert.Equal(t, http.StatusBadRequest, res.status)
		assert.Empty(t, res.fields(t))
	},
	FaultBadSignature: func(t *testing.T) {
		e, rc := faultEnv(t, FaultBadSignature)
		id := e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/h")))
		d := rc.waitFor(1, forObject(id))[0]
		sec, _ := webhook.ParseSecret(DefaultSecretKey)
		assert.ErrorIs(t, webhook.Verifier{Secrets: []webhook.Secret{sec}}.Verify(d.header, d.body), webhook.ErrNoMatchingSignature)
	},
	FaultNoWebhookRetry: func(t *testing.T) {
		e, rc := faultEnv(t, FaultNoWebhookRetry)
		rc.respond = func(received, int) (int, time.Duration) { return http.StatusInternalServerError, 0 }
		id := e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/h")))
		rc.waitFor(1, forObject(id))
		e.idle() // a retry would keep the dispatcher busy
		assert.Len(t, rc.waitFor(0, forObject(id)), 1)
	},
	FaultUnstableWebhookID: func(t *testing.T) {
		e, rc := faultEnv(t, FaultUnstableWebhookID)
		calls := 0
		rc.respond = func(received, int) (int, time.Duration) {
			calls++
			if calls == 1 {
				return http.StatusInternalServerError, 0
			}
			return http.StatusOK, 0
		}
		id := e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/h")))
		got := rc.waitFor(2, forObject(id))
		assert.NotEqual(t, got[0].header.Get("webhook-id"), got[1].header.Get("webhook-id"))
	},
	FaultIdempotencyIgnored: func(t *testing.T) {
		e, _ := faultEnv(t, FaultIdempotencyIgnored)
		a := e.client.createPayout(mobilePayout(""), withIdempotencyKey("k"))
		b := e.client.createPayout(mobilePayout(""), withIdempotencyKey("k"))
		assert.NotEqual(t, a, b)
		assert.Len(t, e.srv.Payouts(DefaultPublicKey), 2)
	},
	FaultIdempotencyConflictIgnored: func(t *testing.T) {
		e, _ := faultEnv(t, FaultIdempotencyConflictIgnored)
		e.client.createPayout(mobilePayout(""), withIdempotencyKey("k"))
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", with(mobilePayout(""), "amount", 999), withIdempotencyKey("k"))
		assert.Equal(t, http.StatusCreated, res.status)
	},
	FaultFinalStateChanges: func(t *testing.T) {
		e, rc := faultEnv(t, FaultFinalStateChanges)
		id := e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/h")))
		got := rc.waitFor(2, forObject(id))
		assert.Equal(t, "payout.success", got[0].event.Type)
		assert.Equal(t, "payout.failed", got[1].event.Type)
		p, _ := e.srv.Payout(DefaultPublicKey, id)
		assert.Equal(t, api.PayoutStatusFailed, p.Status)
	},
	FaultCrossMerchantVisible: func(t *testing.T) {
		e, _ := faultEnv(t, FaultCrossMerchantVisible)
		id := e.client.createPayout(mobilePayout(""))
		res := e.client.as(otherPublicKey, otherSecretKey).do(http.MethodGet, "/v1/payment/payouts/"+id, nil)
		assert.Equal(t, http.StatusOK, res.status)
	},
	FaultMissingWebhookEvent: func(t *testing.T) {
		e, rc := faultEnv(t, FaultMissingWebhookEvent)
		res := e.client.do(http.MethodPost, "/v1/payment/init", paymentInit("260970000001", rc.url("/h")))
		ref := res.data(t)["paymentReference"].(string)
		e.client.do(http.MethodPost, "/v1/payment/pay/"+ref, nil)
		got := rc.waitFor(1, forObject(ref))
		e.idle()
		assert.Equal(t, "payment.success", got[0].event.Type)
		assert.Len(t, rc.waitFor(0, forObject(ref)), 1)
	},
	FaultWrongFailureReason: func(t *testing.T) {
		e, _ := faultEnv(t, FaultWrongFailureReason)
		tv, _ := testSpec(t).TestValues()
		v := tv.Payouts.MobileNumber[1]
		require.Equal(t, "failed", v.Status)
		id := e.client.createPayout(mobilePayout(v.MomoPhoneNumber))
		final := e.client.waitFinal(id)
		assert.NotEqual(t, v.FailureReason, final["failure_reason"])
	},
	FaultWebhookToDisabledEndpoint: func(t *testing.T) {
		e, rc := faultEnv(t, FaultWebhookToDisabledEndpoint)
		createEndpoint(t, e.client, map[string]any{"url": rc.url("/disabled"), "events": []string{"payout.success"}, "enabled": false})
		id := e.client.createPayout(mobilePayout(""))
		assert.Equal(t, "/disabled", rc.waitFor(1, forObject(id))[0].path)
	},
	FaultNoRotationDualSignature: func(t *testing.T) {
		e, rc := faultEnv(t, FaultNoRotationDualSignature)
		ep := createEndpoint(t, e.client, map[string]any{"url": rc.url("/r"), "events": []string{"payout.success"}})
		e.client.do(http.MethodPost, "/v1/webhooks/"+ep["id"].(string)+"/rotate-secret", map[string]any{"grace_period_seconds": 3600})
		id := e.client.createPayout(mobilePayout(""))
		d := rc.waitFor(1, forObject(id))[0]
		assert.Len(t, webhook.Signatures(d.header.Get("webhook-signature")), 1)
	},
	FaultRotationKeepsOlderSecrets: func(t *testing.T) {
		e, rc := faultEnv(t, FaultRotationKeepsOlderSecrets)
		ep := createEndpoint(t, e.client, map[string]any{"url": rc.url("/r"), "events": []string{"payout.success"}})
		for _, grace := range []int{3600, 0} {
			e.client.do(http.MethodPost, "/v1/webhooks/"+ep["id"].(string)+"/rotate-secret", map[string]any{"grace_period_seconds": grace})
		}
		id := e.client.createPayout(mobilePayout(""))
		d := rc.waitFor(1, forObject(id))[0]
		assert.Len(t, webhook.Signatures(d.header.Get("webhook-signature")), 2, "the first secret still signs after the second rotation")
	},
	FaultWebhookURLNotParsed: func(t *testing.T) {
		e, _ := faultEnv(t, FaultWebhookURLNotParsed)
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", with(mobilePayout(""), "webhook_url", "http://[x"))
		assert.Equal(t, http.StatusCreated, res.status, "%s", res.body)
	},
	FaultLoseFirstCreateResponse: func(t *testing.T) {
		e, _ := faultEnv(t, FaultLoseFirstCreateResponse)
		// Without keep-alive the transport cannot retry on its own, so the drop is visible.
		e.client.hc.Transport.(*validatingTransport).next = &http.Transport{DisableKeepAlives: true}
		_, err := e.client.try(http.MethodPost, "/v1/payment/payouts/process", mobilePayout(""), withIdempotencyKey("k"))
		require.Error(t, err, "the first response is lost")
		require.Len(t, e.srv.Payouts(DefaultPublicKey), 1, "but the payout was created")
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", mobilePayout(""), withIdempotencyKey("k"))
		assert.Equal(t, http.StatusCreated, res.status)
		assert.Equal(t, "true", res.header.Get("Idempotent-Replayed"))
		assert.Len(t, e.srv.Payouts(DefaultPublicKey), 1)
	},
	FaultDuplicateReferenceAccepted: func(t *testing.T) {
		e, _ := faultEnv(t, FaultDuplicateReferenceAccepted)
		e.client.createPayout(with(mobilePayout(""), "reference", "dup"))
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", with(mobilePayout(""), "reference", "dup"))
		assert.Equal(t, http.StatusCreated, res.status)
	},
	FaultCompleteNotPendingAccepted: func(t *testing.T) {
		e, _ := faultEnv(t, FaultCompleteNotPendingAccepted)
		res := e.client.do(http.MethodPost, "/v1/payment/init", paymentInit("260970000001", "https://x.example/h"))
		ref := res.data(t)["paymentReference"].(string)
		e.client.do(http.MethodPost, "/v1/payment/pay/"+ref, nil)
		res = e.client.do(http.MethodPost, "/v1/payment/pay/"+ref, nil)
		assert.Equal(t, http.StatusAccepted, res.status)
	},
	FaultUnknownReferenceDataAccepted: func(t *testing.T) {
		e, _ := faultEnv(t, FaultUnknownReferenceDataAccepted)
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", with(bankPayout("1234"), "countryId", "ctry_xx", "bank_id", "bank_xx"))
		assert.Equal(t, http.StatusCreated, res.status)
	},
	FaultReplayHeaderMissing: func(t *testing.T) {
		e, _ := faultEnv(t, FaultReplayHeaderMissing)
		e.client.createPayout(mobilePayout(""), withIdempotencyKey("k"))
		res := e.client.do(http.MethodPost, "/v1/payment/payouts/process", mobilePayout(""), withIdempotencyKey("k"))
		assert.Equal(t, http.StatusCreated, res.status)
		assert.Empty(t, res.header.Get("Idempotent-Replayed"))
		assert.Len(t, e.srv.Payouts(DefaultPublicKey), 1, "still a replay")
	},
	FaultSecretInEndpointRead: func(t *testing.T) {
		e, _ := faultEnv(t, FaultSecretInEndpointRead)
		ep := createEndpoint(t, e.client, map[string]any{"url": "https://x.example/h", "events": []string{"payout.success"}})
		res := e.client.do(http.MethodGet, "/v1/webhooks/"+ep["id"].(string), nil)
		assert.Equal(t, ep["secret"], res.data(t)["secret"])
	},
	FaultStaleWebhookTimestamp: func(t *testing.T) {
		e, rc := faultEnv(t, FaultStaleWebhookTimestamp)
		id := e.client.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/h")))
		d := rc.waitFor(1, forObject(id))[0]
		sec, _ := webhook.ParseSecret(DefaultSecretKey)
		assert.ErrorIs(t, webhook.Verifier{Secrets: []webhook.Secret{sec}}.Verify(d.header, d.body), webhook.ErrTimestampTooOld)
	},
}

func TestFaults(t *testing.T) {
	for _, fi := range Faults() {
		t.Run(string(fi.Fault), func(t *testing.T) {
			assert.NotEmpty(t, fi.Description)
			check, ok := faultChecks[fi.Fault]
			require.True(t, ok, "fault %s has no test proving it breaks its rule", fi.Fault)
			check(t)
		})
	}
	assert.Len(t, faultChecks, len(Faults()))
	assert.GreaterOrEqual(t, len(Faults()), 16)
}

// TestNoFaultNoViolation is the control: the same requests without a fault break nothing (the
// strict client of newEnv fails on any violation).
func TestNoFaultNoViolation(t *testing.T) {
	e := newEnv(t)
	e.client.createPayout(mobilePayout(""), withIdempotencyKey("k"))
	e.client.createPayout(mobilePayout(""), withIdempotencyKey("k"))
	e.client.do(http.MethodGet, "/v1/payment/payouts/po_0000000000000000", nil)
	assert.Empty(t, e.client.violations())
}
