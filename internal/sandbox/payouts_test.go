package sandbox

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// TestPayoutLifecycle drives every payout test value of the contract, both kinds, plus the
// merchant's own wallet and unlisted numbers, from processing to the final status.
func TestPayoutLifecycle(t *testing.T) {
	tv := testValues(t)
	type outcomeCase struct {
		name           string
		body           map[string]any
		status, reason string
	}
	const unlistedWallet, unlistedAccount = "260961234567", "12345678"
	cases := []outcomeCase{
		{"own wallet", mobilePayout(""), "success", ""},
		{"unlisted wallet", mobilePayout(unlistedWallet), "success", ""},
		{"unlisted account", bankPayout(unlistedAccount), "success", ""},
	}
	for _, v := range tv.Payouts.MobileNumber {
		require.NotEqual(t, unlistedWallet, v.MomoPhoneNumber, "the unlisted wallet became a test value")
		cases = append(cases, outcomeCase{"mobile " + v.MomoPhoneNumber, mobilePayout(v.MomoPhoneNumber), v.Status, v.FailureReason})
	}
	for _, v := range tv.Payouts.Bank {
		require.NotEqual(t, unlistedAccount, v.AccountNumber, "the unlisted account became a test value")
		cases = append(cases, outcomeCase{"bank " + v.AccountNumber, bankPayout(v.AccountNumber), v.Status, v.FailureReason})
	}
	e := newEnv(t)
	rc := newReceiver(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ref := "po-ref-" + string(rune('a'+i))
			body := with(tc.body, "webhook_url", rc.url("/payouts"), "reference", ref, "narration", "Test payout")
			res := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), body)
			require.Equal(t, http.StatusCreated, res.status, "%s", res.body)
			p := res.data(t)
			id := p["payout_id"].(string)
			assert.Regexp(t, `^po_[0-9a-f]{16}$`, id)
			assert.Equal(t, "processing", p["status"])
			assert.Equal(t, "ZMW", p["currency"], "the payout's currency is its country's")
			assert.EqualValues(t, body["amount"], p["amount"])

			final := e.client.waitFinal(id)
			assert.Equal(t, tc.status, final["status"])
			assert.Equal(t, "payout", final["type"])

			res = e.client.do(http.MethodGet, api.OpGetPayout().URL(id), nil)
			require.Equal(t, http.StatusOK, res.status)
			assert.Equal(t, tc.status, res.data(t)["status"])
			if tc.reason != "" {
				assert.Equal(t, tc.reason, res.data(t)["failure_reason"])
			} else {
				assert.NotContains(t, res.data(t), "failure_reason")
			}
			byRef := e.client.do(http.MethodGet, api.OpGetTransactionStatus().URL(ref), nil)
			assert.Equal(t, id, byRef.data(t)["id"])

			rc.waitFor(1, forObject(id))
			e.idle() // a second, wrong event would have arrived by now
			got := rc.waitFor(0, forObject(id))
			require.Len(t, got, 1, "creation is not a status change: one event only")
			assert.Equal(t, "payout."+tc.status, got[0].event.Type)
			assert.Equal(t, "processing", got[0].event.Data.PreviousStatus)
			verify(t, got[0], DefaultSecretKey)

			stored, ok := e.srv.Payout(DefaultPublicKey, id)
			require.True(t, ok)
			assert.Equal(t, tc.status, string(stored.Status))
		})
	}
}

func TestPayoutRules(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"unknown country", with(mobilePayout(""), "countryId", "ctry_xx"), "/countryId"},
		{"unknown bank", with(bankPayout("1234"), "bank_id", "bank_xx"), "/bank_id"},
		{"bank of another country", with(bankPayout("1234"), "bank_id", "bank_ke_kcb"), "/bank_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), tt.body)
			assert.Equal(t, http.StatusBadRequest, res.status)
			assert.Equal(t, int(api.CodeValidationFailed), res.code(t))
			assert.Equal(t, []string{tt.field}, res.fields(t))
		})
	}
	t.Run("currency follows the country", func(t *testing.T) {
		res := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), with(bankPayout("1234"), "countryId", "ctry_ke", "bank_id", "bank_ke_kcb"))
		require.Equal(t, http.StatusCreated, res.status)
		assert.Equal(t, "KES", res.data(t)["currency"])
	})
	t.Run("duplicate reference", func(t *testing.T) {
		id := e.client.createPayout(with(mobilePayout(""), "reference", "inv-88"))
		res := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), with(bankPayout("1234"), "reference", "inv-88"))
		assert.Equal(t, http.StatusConflict, res.status)
		assert.Equal(t, int(api.CodeDuplicateReference), res.code(t))
		assert.Equal(t, id, res.json(t)["data"].(map[string]any)["existing_id"])
	})
	t.Run("foreign payouts are not found", func(t *testing.T) {
		id := e.client.createPayout(mobilePayout(""))
		other := e.client.as(otherPublicKey, otherSecretKey)
		for _, path := range []string{api.OpGetPayout().URL(id), api.OpGetTransactionStatus().URL(id), api.OpGetPayout().URL("po_0000000000000000")} {
			res := other.do(http.MethodGet, path, nil)
			assert.Equal(t, http.StatusNotFound, res.status, path)
			assert.Equal(t, int(api.CodeNotFound), res.code(t))
		}
		_, ok := e.srv.Payout(otherPublicKey, id)
		assert.False(t, ok)
	})
	t.Run("final states never change", func(t *testing.T) {
		id := e.client.createPayout(mobilePayout(""))
		e.client.waitFinal(id)
		before, _ := e.srv.Payout(DefaultPublicKey, id)
		e.srv.settlePayout(e.srv.merchants[0], id) // a late timer must not move a final payout
		after, _ := e.srv.Payout(DefaultPublicKey, id)
		assert.Equal(t, before, after)
	})
}
