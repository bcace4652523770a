package sandbox

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

func TestIdempotency(t *testing.T) {
	e := newEnv(t)
	t.Run("replay", func(t *testing.T) {
		first := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(""), withIdempotencyKey("key-replay"))
		require.Equal(t, http.StatusCreated, first.status)
		assert.Empty(t, first.header.Get("Idempotent-Replayed"))
		again := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(""), withIdempotencyKey("key-replay"))
		assert.Equal(t, http.StatusCreated, again.status)
		assert.Equal(t, "true", again.header.Get("Idempotent-Replayed"))
		assert.Equal(t, first.body, again.body, "the first response, byte for byte")
	})
	t.Run("canonical body", func(t *testing.T) {
		a := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), `{"amount":5,"countryId":"ctry_zm","transfer_to":"mobile_number"}`, withIdempotencyKey("key-canon"))
		b := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), "{\n  \"transfer_to\": \"mobile_number\", \"countryId\": \"ctry_zm\", \"amount\": 5\n}", withIdempotencyKey("key-canon"))
		assert.Equal(t, "true", b.header.Get("Idempotent-Replayed"))
		assert.Equal(t, a.body, b.body)
	})
	t.Run("different body", func(t *testing.T) {
		e.client.do(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(""), withIdempotencyKey("key-conflict"))
		res := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), with(mobilePayout(""), "amount", 121), withIdempotencyKey("key-conflict"))
		assert.Equal(t, http.StatusConflict, res.status)
		assert.Equal(t, int(api.CodeIdempotencyKeyReused), res.code(t))
		assert.Equal(t, []string{"header.idempotency-key"}, res.fields(t))
	})
	t.Run("errors of the operation are replayed too", func(t *testing.T) {
		e.client.createPayout(with(mobilePayout(""), "reference", "idem-dup"))
		a := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), with(mobilePayout(""), "reference", "idem-dup"), withIdempotencyKey("key-err"))
		b := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), with(mobilePayout(""), "reference", "idem-dup"), withIdempotencyKey("key-err"))
		assert.Equal(t, int(api.CodeDuplicateReference), a.code(t))
		assert.Equal(t, a.body, b.body)
		assert.Equal(t, "true", b.header.Get("Idempotent-Replayed"))
	})
	t.Run("validation failures are not stored", func(t *testing.T) {
		bad := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), with(mobilePayout(""), "amount", 0), withIdempotencyKey("key-fix"))
		require.Equal(t, http.StatusBadRequest, bad.status)
		good := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(""), withIdempotencyKey("key-fix"))
		assert.Equal(t, http.StatusCreated, good.status, "the corrected request runs")
	})
	t.Run("scoped per merchant and operation", func(t *testing.T) {
		a := e.client.do(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(""), withIdempotencyKey("key-scope"))
		b := e.client.as(otherPublicKey, otherSecretKey).do(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(""), withIdempotencyKey("key-scope"))
		c := e.client.do(http.MethodPost, api.OpCreateWebhookEndpoint().URL(), map[string]any{"url": "https://x.example/h", "events": []string{"payout.success"}}, withIdempotencyKey("key-scope"))
		assert.Equal(t, http.StatusCreated, b.status)
		assert.Empty(t, b.header.Get("Idempotent-Replayed"))
		assert.NotEqual(t, a.data(t)["payout_id"], b.data(t)["payout_id"])
		assert.Equal(t, http.StatusCreated, c.status)
	})
	t.Run("complete-payment replay", func(t *testing.T) {
		p := e.client.do(http.MethodPost, api.OpInitializePayment().URL(), paymentInit(approvingPhone(t), "https://x.example/h"))
		ref := p.data(t)["paymentReference"].(string)
		a := e.client.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil, withoutHeader("secret-key"), withIdempotencyKey("key-pay"))
		b := e.client.do(http.MethodPost, api.OpCompletePayment().URL(ref), nil, withoutHeader("secret-key"), withIdempotencyKey("key-pay"))
		assert.Equal(t, http.StatusAccepted, a.status)
		assert.Equal(t, http.StatusAccepted, b.status, "a replay, not a 422")
		assert.Equal(t, "true", b.header.Get("Idempotent-Replayed"))
	})
}

// TestIdempotencyConcurrent sends 100 identical payouts with one key at once: exactly one payout
// exists afterwards and every request gets its 201.
func TestIdempotencyConcurrent(t *testing.T) {
	e := newEnv(t, WithMerchant("pk_test_concurrent", "sk_test_concurrent"))
	c := e.client.as("pk_test_concurrent", "sk_test_concurrent")
	const n = 100
	var wg sync.WaitGroup
	results := make([]result, n)
	errs := make([]error, n)
	body := with(mobilePayout(creditedWallet(t)), "reference", "concurrent-1")
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = c.try(http.MethodPost, api.OpProcessPayout().URL(), body, withIdempotencyKey("key-parallel"))
		}()
	}
	wg.Wait()
	ids := map[string]int{}
	replayed := 0
	for i := range n {
		require.NoError(t, errs[i])
		require.Equal(t, http.StatusCreated, results[i].status, "%s", results[i].body)
		ids[fmt.Sprint(results[i].data(t)["payout_id"])]++
		if results[i].header.Get("Idempotent-Replayed") == "true" {
			replayed++
		}
	}
	assert.Len(t, ids, 1, "one payout id in all responses")
	assert.Equal(t, n-1, replayed)
	assert.Len(t, e.srv.Payouts("pk_test_concurrent"), 1, "exactly one payout was created")
}
