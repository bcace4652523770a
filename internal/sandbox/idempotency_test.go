package sandbox

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

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

// TestIdempotencySweep forgets stored keys in the order they expire, a bounded number per sweep,
// never a key that a new first request has taken over, and keeps its queue as short as the live keys.
func TestIdempotencySweep(t *testing.T) {
	m, err := newMerchant(DefaultPublicKey, DefaultSecretKey)
	require.NoError(t, err)
	resp := jsonResponse(http.StatusCreated, []byte(`{}`))
	const n = 3 * idemSweepBatch
	for i := range n {
		key := fmt.Sprint("k", i)
		e := &idemEntry{done: make(chan struct{})}
		m.idempotency[key] = e
		m.storeFirstResponse(&Server{}, key, e, resp) // sweeps too, but nothing has expired yet
	}
	require.Len(t, m.idempotency, n, "nothing has expired yet")
	has := func(i int) bool { _, ok := m.idempotency[fmt.Sprint("k", i)]; return ok }
	first := m.idempotency["k0"]
	assert.Nil(t, first.done, "a stored entry lets go of its channel")

	// Only the first half has expired at mid.
	mid := m.idempotency[fmt.Sprint("k", n/2-1)].expires.Add(time.Nanosecond)
	// k0 is taken over by a new first request after expiring; its old queue entry must not delete it.
	replacement := &idemEntry{done: make(chan struct{})}
	m.idempotency["k0"] = replacement
	m.sweepIdempotency(mid)
	assert.Len(t, m.idempotency, n-idemSweepBatch+1, "one sweep forgets at most idemSweepBatch keys; k0's new entry stays")
	assert.Same(t, replacement, m.idempotency["k0"])
	assert.False(t, has(1), "the oldest go first")
	assert.False(t, has(idemSweepBatch-1))
	assert.True(t, has(idemSweepBatch))

	for range 3 {
		m.sweepIdempotency(mid)
	}
	assert.Len(t, m.idempotency, n/2+1, "the keys that expired by mid are forgotten, no others")
	assert.False(t, has(n/2-1))
	assert.True(t, has(n/2))

	end := m.idemExpiry[len(m.idemExpiry)-1].e.expires.Add(time.Nanosecond)
	for range 3 {
		m.sweepIdempotency(end)
	}
	assert.Len(t, m.idempotency, 1, "every stored key expired")
	assert.Same(t, replacement, m.idempotency["k0"])
	assert.Empty(t, m.idemExpiry[m.idemHead:])
	assert.LessOrEqual(t, len(m.idemExpiry), 64, "the queue is cut back, not kept for the merchant's whole history")
}
