package sandbox

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// TestPaymentLifecycle drives every payment test value of the contract (and a number it does not
// list) through init → complete → final status, and checks the status API and the webhooks.
func TestPaymentLifecycle(t *testing.T) {
	tv := testValues(t)
	type outcomeCase struct{ phone, status, reason string }
	const unlisted = "260971234567"
	cases := []outcomeCase{{phone: unlisted, status: "success"}} // not listed: succeeds
	for _, v := range tv.Payments {
		require.NotEqual(t, unlisted, v.PhoneNumber, "the unlisted number became a test value")
		cases = append(cases, outcomeCase{v.PhoneNumber, v.Status, v.FailureReason})
	}
	e := newEnv(t)
	rc := newReceiver(t)
	for i, tc := range cases {
		t.Run(tc.phone, func(t *testing.T) {
			t.Parallel()
			phoneAtInit := i%2 == 0 // half give the number at init, half at complete
			initBody := paymentInit("", rc.url("/hooks"))
			if phoneAtInit {
				initBody = paymentInit(tc.phone, rc.url("/hooks"))
			}
			res := e.client.do(http.MethodPost, api.OpInitializePayment().URL(), initBody)
			require.Equal(t, http.StatusCreated, res.status, "%s", res.body)
			p := res.data(t)
			ref := p["paymentReference"].(string)
			assert.Equal(t, "pending", p["status"])
			assert.Regexp(t, `^pay_[0-9a-f]{16}$`, ref)
			assert.NotEmpty(t, p["reference"], "a reference is generated when omitted")

			var completeBody any
			if !phoneAtInit {
				completeBody = map[string]any{"phone_number": tc.phone}
			}
			res = e.client.do(http.MethodPost, api.OpCompletePayment().URL(ref), completeBody, withoutHeader("secret-key"))
			require.Equal(t, http.StatusAccepted, res.status, "%s", res.body)
			assert.Equal(t, "processing", res.data(t)["status"])
			assert.Equal(t, tc.phone, res.data(t)["phone_number"])

			final := e.client.waitFinal(ref)
			assert.Equal(t, tc.status, final["status"])
			assert.Equal(t, "payment", final["type"])
			if tc.reason != "" {
				assert.Equal(t, tc.reason, final["failure_reason"])
			} else {
				assert.NotContains(t, final, "failure_reason")
			}
			// The status check also answers to the merchant reference.
			byRef := e.client.do(http.MethodGet, api.OpGetTransactionStatus().URL(p["reference"].(string)), nil)
			require.Equal(t, http.StatusOK, byRef.status)
			assert.Equal(t, ref, byRef.data(t)["id"])

			rc.waitFor(2, forObject(ref))
			e.idle() // a third, wrong event would have arrived by now
			got := rc.waitFor(0, forObject(ref))
			require.Len(t, got, 2, "one event per status change")
			assert.Equal(t, "payment.processing", got[0].event.Type)
			assert.Equal(t, "pending", got[0].event.Data.PreviousStatus)
			assert.Equal(t, "payment."+tc.status, got[1].event.Type)
			assert.Equal(t, "processing", got[1].event.Data.PreviousStatus)
			if tc.reason != "" {
				assert.Equal(t, tc.reason, got[1].event.Data.Object["failure_reason"])
			}
			for _, d := range got {
				verify(t, d, DefaultSecretKey)
				assert.Equal(t, d.event.ID, d.header.Get("webhook-id"))
				assert.Equal(t, "malipo-sandbox", d.header.Get("User-Agent"))
			}
		})
	}
}

func TestPaymentRules(t *testing.T) {
	e := newEnv(t, WithTimings(Timings{PromptDelay: 0, PayoutDelay: 0}))
	hook := "https://merchant.example.org/hooks"
	mustInit := func(body map[string]any) map[string]any {
		t.Helper()
		res := e.client.do(http.MethodPost, api.OpInitializePayment().URL(), body)
		require.Equal(t, http.StatusCreated, res.status, "%s", res.body)
		return res.data(t)
	}

	t.Run("echoes the request", func(t *testing.T) {
		phone := approvingPhone(t)
		p := mustInit(with(paymentInit(phone, hook), "reference", "order-echo"))
		for k, v := range map[string]any{"reference": "order-echo", "currency": "ZMW", "country": "ZM", "method": "mobilemoney",
			"narration": "Order 1042", "amount": 150.5, "phone_number": phone, "webhook_url": hook, "redirect_url": ""} {
			assert.Equal(t, v, p[k], k)
		}
	})
	t.Run("duplicate reference", func(t *testing.T) {
		first := mustInit(with(paymentInit("", hook), "reference", "order-dup"))
		res := e.client.do(http.MethodPost, api.OpInitializePayment().URL(), with(paymentInit("", hook), "reference", "order-dup"))
		assert.Equal(t, http.StatusConflict, res.status)
		assert.Equal(t, int(api.CodeDuplicateReference), res.code(t))
		assert.Equal(t, []string{"/reference"}, res.fields(t))
		assert.Equal(t, first["paymentReference"], res.json(t)["data"].(map[string]any)["existing_id"])
		// References are shared between payments and payouts.
		res = e.client.do(http.MethodPost, api.OpProcessPayout().URL(), with(mobilePayout(""), "reference", "order-dup"))
		assert.Equal(t, int(api.CodeDuplicateReference), res.code(t))
	})
	t.Run("reference of another merchant is free", func(t *testing.T) {
		mustInit(with(paymentInit("", hook), "reference", "order-shared"))
		res := e.client.as(otherPublicKey, otherSecretKey).do(http.MethodPost, api.OpInitializePayment().URL(), with(paymentInit("", hook), "reference", "order-shared"))
		assert.Equal(t, http.StatusCreated, res.status)
	})
	// The document constrains a payment's country and currency by their patterns only
	// (PaymentInitRequest's description): a country the reference data does not list, and a currency
	// that is not that country's, are accepted as given.
	for name, body := range map[string]map[string]any{
		"country outside the reference data": with(paymentInit("", hook), "country", "FR", "currency", "EUR"),
		"currency of another country":        with(paymentInit("", hook), "currency", "KES"),
	} {
		t.Run(name, func(t *testing.T) {
			p := mustInit(body)
			assert.Equal(t, body["country"], p["country"])
			assert.Equal(t, body["currency"], p["currency"])
		})
	}
	t.Run("complete needs a phone number", func(t *testing.T) {
		p := mustInit(paymentInit("", hook))
		res := e.client.do(http.MethodPost, api.OpCompletePayment().URL(p["paymentReference"].(string)), nil)
		assert.Equal(t, http.StatusBadRequest, res.status)
		assert.Equal(t, []string{"/phone_number"}, res.fields(t))
	})
	t.Run("complete only once", func(t *testing.T) {
		p := mustInit(paymentInit(approvingPhone(t), hook))
		ref := p["paymentReference"].(string)
		res := e.client.do(http.MethodPost, api.OpCompletePayment().URL(ref), `{}`)
		require.Equal(t, http.StatusAccepted, res.status)
		res = e.client.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil)
		assert.Equal(t, http.StatusUnprocessableEntity, res.status)
		assert.Equal(t, int(api.CodeInvalidState), res.code(t))
		e.client.waitFinal(ref)
		res = e.client.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil)
		assert.Equal(t, int(api.CodeInvalidState), res.code(t), "a final payment cannot be completed either")
	})
	t.Run("unknown and foreign payments are not found", func(t *testing.T) {
		p := mustInit(paymentInit(approvingPhone(t), hook))
		ref := p["paymentReference"].(string)
		other := e.client.as(otherPublicKey, otherSecretKey)
		for _, path := range []string{api.OpCompletePayment().URL("pay_0000000000000000"), api.OpCompletePayment().URL(ref)} {
			res := other.do(http.MethodPost, path, nil)
			assert.Equal(t, http.StatusNotFound, res.status)
			assert.Equal(t, int(api.CodeNotFound), res.code(t))
		}
		res := other.do(http.MethodGet, api.OpGetTransactionStatus().URL(ref), nil)
		assert.Equal(t, http.StatusNotFound, res.status)
		got, ok := e.srv.Payment(DefaultPublicKey, ref)
		require.True(t, ok)
		assert.Equal(t, api.PaymentStatusPending, got.Status, "the other merchant's attempt changed nothing")
	})
}
