package store

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func jsonResponse(status int, body []byte) *Response {
	return &Response{Status: status, JSON: true, Body: body}
}

// TestIdempotencySweep forgets stored keys in the order they expire, a bounded number per sweep,
// never a key that a new first request has stored again, and frees the memory of what it forgot.
func TestIdempotencySweep(t *testing.T) {
	st := newIdemStore()
	resp := jsonResponse(http.StatusCreated, []byte(`{}`))
	const batch = 64
	const n = 3 * batch
	var expires []int64
	for i := range n {
		key := fmt.Sprint("k", i)
		st.keep(key, st.start(key, [32]byte{}), resp, int64(time.Second/time.Millisecond)*int64(i+1))
		_, kept, _ := st.find(key, 0)
		require.NotNil(t, kept)
		expires = append(expires, kept.expires)
	}
	require.Equal(t, n, st.len(), "nothing has expired yet")
	require.Empty(t, st.running, "a stored key is no longer running")
	require.True(t, slices.IsSorted(expires), "records are kept in order of expiry")
	has := func(i int) bool { _, kept := st.stored(fmt.Sprint("k", i)); return kept != nil }

	// Only the first half has expired at mid.
	mid := expires[n/2-1] + 1
	// k0 is stored again by a new first request after expiring; its old record must not delete it.
	st.keep("k0", st.start("k0", [32]byte{1}), resp, expires[n-1]+1)
	var forgotten []string
	st.sweep(mid, batch, func(key string) { forgotten = append(forgotten, key) })
	assert.Equal(t, n-batch+1, st.len(), "one sweep forgets at most batch keys")
	assert.Len(t, forgotten, batch, "each forgotten key is reported (the data file deletes it)")
	_, k0, _ := st.find("k0", mid)
	require.NotNil(t, k0, "k0's new response stays")
	assert.Equal(t, [32]byte{1}, k0.fingerprint)
	assert.False(t, has(1), "the oldest go first")
	assert.False(t, has(batch-1))
	assert.True(t, has(batch))

	for range 3 {
		st.sweep(mid, batch, nil)
	}
	assert.Equal(t, n/2+1, st.len(), "the keys that expired by mid are forgotten, no others")
	assert.False(t, has(n/2-1))
	assert.True(t, has(n/2))

	for range 3 {
		st.sweep(expires[n-1]+1, batch, nil)
	}
	assert.Equal(t, 1, st.len(), "every key stored first expired")
	_, k0, _ = st.find("k0", expires[n-1]+1)
	require.NotNil(t, k0)
	assert.Equal(t, [32]byte{1}, k0.fingerprint)
	assert.Len(t, st.index, 1)
	assert.LessOrEqual(t, len(st.records.chunks), 1, "the records' chunks are let go")
	assert.LessOrEqual(t, len(st.bytes.chunks), 1, "the bytes' chunks are let go")
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
		assert.Equal(t, body(i), st.response(num, kept).Body)
	}
	// key-0 expires and comes again: its new record replaces the old one.
	st.keep("key-0", st.start("key-0", [32]byte{9}), jsonResponse(http.StatusCreated, body(9)), 200)
	st.sweep(103, 10, nil) // key-0 (old), key-1 and key-2 expired
	assert.Equal(t, 3, st.len())
	for i, want := range map[int][]byte{0: body(9), 3: body(3), 4: body(4)} {
		_, kept, num := st.find(fmt.Sprint("key-", i), 103)
		require.NotNil(t, kept, "key-%d", i)
		assert.Equal(t, want, st.response(num, kept).Body, "key-%d", i)
	}
	for _, i := range []int{1, 2} {
		_, kept, _ := st.find(fmt.Sprint("key-", i), 0)
		assert.Nil(t, kept, "key-%d expired", i)
	}
	st.sweep(math.MaxInt64, 10, nil) // everything has expired
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
	limited.Header = http.Header{"Retry-After": {"1"}}
	st.keep("a", st.start("a", [32]byte{}), limited, 10)
	st.keep("b", st.start("b", [32]byte{}), jsonResponse(http.StatusCreated, big), 10)
	st.keep("c", st.start("c", [32]byte{}), &Response{Status: http.StatusNoContent}, 10)

	_, kept, num := st.find("a", 0)
	got := st.response(num, kept)
	assert.Equal(t, http.StatusTooManyRequests, got.Status)
	assert.Equal(t, "1", got.Header.Get("Retry-After"))
	assert.JSONEq(t, `{"status":false}`, string(got.Body))
	got.Header.Set("Idempotent-Replayed", "true")
	got.Body[0] = 'X'
	again := st.response(num, kept)
	assert.Len(t, again.Header, 1, "what a replay does to its copy does not change the stored headers")
	assert.JSONEq(t, `{"status":false}`, string(again.Body), "nor the stored body")

	_, kept, num = st.find("b", 0)
	assert.Equal(t, big, st.response(num, kept).Body)
	_, kept, num = st.find("c", 0)
	got = st.response(num, kept)
	assert.Equal(t, http.StatusNoContent, got.Status)
	assert.False(t, got.JSON)
	assert.Empty(t, got.Body)
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
	runs := make([]*KeyRun, n)
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
