package sandbox

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
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

// TestIdempotencySweep forgets stored keys in the order they expire, a bounded number per sweep,
// never a key that a new first request has stored again, and frees the memory of what it forgot.
func TestIdempotencySweep(t *testing.T) {
	m, err := newMerchant(DefaultPublicKey, DefaultSecretKey)
	require.NoError(t, err)
	resp := jsonResponse(http.StatusCreated, []byte(`{}`))
	const n = 3 * idemSweepBatch
	var expires []int64
	for i := range n {
		key := fmt.Sprint("k", i)
		m.storeFirstResponse(&Server{}, key, m.idem.start(key, [32]byte{}), resp) // sweeps too, but nothing has expired yet
		_, kept, _ := m.idem.find(key, 0)
		require.NotNil(t, kept)
		expires = append(expires, kept.expires)
	}
	require.Equal(t, n, m.idem.len(), "nothing has expired yet")
	require.Empty(t, m.idem.running, "a stored key is no longer running")
	require.True(t, slices.IsSorted(expires), "records are kept in order of expiry")
	has := func(i int) bool { _, kept := m.idem.stored(fmt.Sprint("k", i)); return kept != nil }

	// Only the first half has expired at mid.
	mid := expires[n/2-1] + 1
	// k0 is stored again by a new first request after expiring; its old record must not delete it.
	m.idem.keep("k0", m.idem.start("k0", [32]byte{1}), resp, expires[n-1]+1)
	m.idem.sweep(mid, idemSweepBatch)
	assert.Equal(t, n-idemSweepBatch+1, m.idem.len(), "one sweep forgets at most idemSweepBatch keys")
	_, k0, _ := m.idem.find("k0", mid)
	require.NotNil(t, k0, "k0's new response stays")
	assert.Equal(t, [32]byte{1}, k0.fingerprint)
	assert.False(t, has(1), "the oldest go first")
	assert.False(t, has(idemSweepBatch-1))
	assert.True(t, has(idemSweepBatch))

	for range 3 {
		m.idem.sweep(mid, idemSweepBatch)
	}
	assert.Equal(t, n/2+1, m.idem.len(), "the keys that expired by mid are forgotten, no others")
	assert.False(t, has(n/2-1))
	assert.True(t, has(n/2))

	for range 3 {
		m.idem.sweep(expires[n-1]+1, idemSweepBatch)
	}
	assert.Equal(t, 1, m.idem.len(), "every key stored first expired")
	_, k0, _ = m.idem.find("k0", expires[n-1]+1)
	require.NotNil(t, k0)
	assert.Equal(t, [32]byte{1}, k0.fingerprint)
	assert.Len(t, m.idem.index, 1)
	assert.LessOrEqual(t, len(m.idem.records.chunks), 1, "the records' chunks are let go")
	assert.LessOrEqual(t, len(m.idem.bytes.chunks), 1, "the bytes' chunks are let go")
}

// TestIdempotencyStoreHashCollisions gives every key the same hash: each key must still get its own
// response, and forgetting one must not forget another.
func TestIdempotencyStoreHashCollisions(t *testing.T) {
	st := newIdemStore()
	st.hash = func(*idemStore, string) idemHash { return idemHash{7, 7} }
	body := func(i int) []byte { return []byte(fmt.Sprintf(`{"n":%d}`, i)) }
	for i := range 5 {
		key := fmt.Sprint("key-", i)
		st.keep(key, st.start(key, [32]byte{byte(i)}), jsonResponse(http.StatusCreated, body(i)), int64(100+i))
	}
	for i := range 5 {
		_, kept, num := st.find(fmt.Sprint("key-", i), 0)
		require.NotNil(t, kept, "key-%d", i)
		assert.Equal(t, byte(i), kept.fingerprint[0])
		assert.Equal(t, body(i), st.replay(num, kept).body)
	}
	// key-0 expires and comes again: its new record replaces the old one.
	st.keep("key-0", st.start("key-0", [32]byte{9}), jsonResponse(http.StatusCreated, body(9)), 200)
	st.sweep(103, 10) // key-0 (old), key-1 and key-2 expired
	assert.Equal(t, 3, st.len())
	for i, want := range map[int][]byte{0: body(9), 3: body(3), 4: body(4)} {
		_, kept, num := st.find(fmt.Sprint("key-", i), 103)
		require.NotNil(t, kept, "key-%d", i)
		assert.Equal(t, want, st.replay(num, kept).body, "key-%d", i)
	}
	for _, i := range []int{1, 2} {
		_, kept, _ := st.find(fmt.Sprint("key-", i), 0)
		assert.Nil(t, kept, "key-%d expired", i)
	}
	st.sweep(math.MaxInt64, 10) // everything has expired
	assert.Zero(t, st.len())
	assert.Empty(t, st.index)
	assert.Empty(t, st.spill)
}

// TestIdempotencyReplayKeepsHeadersAndBody replays a stored response with headers of its own (a 429's
// Retry-After) and a body larger than a chunk of the byte log, exactly.
func TestIdempotencyReplayKeepsHeadersAndBody(t *testing.T) {
	st := newIdemStore()
	big := bytes.Repeat([]byte("x"), 3*idemByteChunk)
	limited := jsonResponse(http.StatusTooManyRequests, []byte(`{"status":false}`))
	limited.set(api.HeaderRetryAfter, "1")
	st.keep("a", st.start("a", [32]byte{}), limited, 10)
	st.keep("b", st.start("b", [32]byte{}), jsonResponse(http.StatusCreated, big), 10)
	st.keep("c", st.start("c", [32]byte{}), &response{status: http.StatusNoContent}, 10)

	_, kept, num := st.find("a", 0)
	got := st.replay(num, kept)
	assert.Equal(t, http.StatusTooManyRequests, got.status)
	assert.Equal(t, "1", got.header.Get(api.HeaderRetryAfter))
	assert.Equal(t, "true", got.header.Get(api.HeaderIdempotentReplayed))
	assert.JSONEq(t, `{"status":false}`, string(got.body))
	assert.Len(t, limited.header, 1, "replaying does not change the stored headers")

	_, kept, num = st.find("b", 0)
	assert.Equal(t, big, st.replay(num, kept).body)
	_, kept, num = st.find("c", 0)
	got = st.replay(num, kept)
	assert.Equal(t, http.StatusNoContent, got.status)
	assert.False(t, got.json)
	assert.Empty(t, got.body)
	assert.Zero(t, cap(got.body), "a replayed body cannot be appended to over its neighbour")
}

// TestKeptResponseHoldsNoPointer: a stored key must cost the garbage collector nothing, which is why
// the store exists (see idemStore).
func TestKeptResponseHoldsNoPointer(t *testing.T) {
	assert.False(t, hasPointers(reflect.TypeFor[keptResponse]()), "keptResponse must hold no pointer, string, slice or map")
	assert.False(t, hasPointers(reflect.TypeFor[idemHash]()))
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// TestStoringAKeyAllocatesNoObjectOfItsOwn: a stored key lives in the store's chunks, not in heap
// objects of its own (amortized: a chunk now and then, the index's growth).
func TestStoringAKeyAllocatesNoObjectOfItsOwn(t *testing.T) {
	st := newIdemStore()
	const n = 20000
	keys := make([]string, n)
	runs := make([]*idemRun, n)
	for i := range keys {
		keys[i] = fmt.Sprint("key-", i)
		runs[i] = st.start(keys[i], [32]byte{})
	}
	resp := jsonResponse(http.StatusCreated, bytes.Repeat([]byte("b"), 400))
	i := 0
	allocs := testing.AllocsPerRun(n-1, func() {
		st.keep(keys[i], runs[i], resp, int64(i))
		i++
	})
	assert.Less(t, allocs, 0.05, "heap objects allocated per stored key")
	assert.Zero(t, testing.AllocsPerRun(100, func() { st.find(keys[n/2], 0) }), "a lookup, which every request with a key makes, allocates nothing")
}
