package webhook

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// receiverEnv is a Receiver around a handler that counts the events it was given.
type receiverEnv struct {
	rc      *Receiver
	secret  Secret
	now     time.Time
	calls   atomic.Int32
	status  atomic.Int32 // what the handler answers; 0 means 204
	gotBody atomic.Value
}

func newReceiverEnv(t *testing.T) *receiverEnv {
	t.Helper()
	secret, err := ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	require.NoError(t, err)
	e := &receiverEnv{secret: secret, now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	v := Verifier{Secrets: []Secret{secret}, Now: func() time.Time { return e.now }}
	e.rc = NewReceiver(v, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.calls.Add(1)
		b, _ := io.ReadAll(r.Body)
		e.gotBody.Store(string(b))
		if s := e.status.Load(); s != 0 {
			w.WriteHeader(int(s))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	return e
}

// deliver sends one delivery signed at ts with secrets (the env's own when none) and returns the answer.
func (e *receiverEnv) deliver(id string, ts time.Time, body string, secrets ...Secret) *httptest.ResponseRecorder {
	if len(secrets) == 0 {
		secrets = []Secret{e.secret}
	}
	req := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(body))
	SetHeaders(req.Header, id, ts, []byte(body), secrets...)
	w := httptest.NewRecorder()
	e.rc.ServeHTTP(w, req)
	return w
}

func TestReceiverHandsAVerifiedDeliveryOnOnce(t *testing.T) {
	e := newReceiverEnv(t)
	body := `{"id":"evt_1","type":"payout.success"}`
	w := e.deliver("evt_1", e.now, body)
	assert.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, body, e.gotBody.Load(), "the handler gets the body exactly as received")
	// A redelivery (a retry: same id, fresh timestamp) is acknowledged without a second handling.
	e.now = e.now.Add(time.Minute)
	w = e.deliver("evt_1", e.now, body)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, int32(1), e.calls.Load())
}

func TestReceiverRejectsWhatDoesNotVerify(t *testing.T) {
	other, err := NewSecret()
	require.NoError(t, err)
	cases := map[string]struct {
		mutate func(r *http.Request)
		want   string
	}{
		"no signature": {func(r *http.Request) { r.Header.Del(HeaderSignature) }, "missing header"},
		"no timestamp": {func(r *http.Request) { r.Header.Del(HeaderTimestamp) }, "missing header"},
		"unknown version": {func(r *http.Request) {
			r.Header.Set(HeaderSignature, strings.Replace(r.Header.Get(HeaderSignature), "v1,", "v2,", 1))
		}, "no matching signature"},
		"other secret": {func(r *http.Request) {
			SetHeaders(r.Header, "evt_2", time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), []byte(`{}`), other)
		}, "no matching signature"},
		"old timestamp":     {func(r *http.Request) { r.Header.Set(HeaderTimestamp, "1") }, "timestamp too old"},
		"garbage timestamp": {func(r *http.Request) { r.Header.Set(HeaderTimestamp, "soon") }, "invalid timestamp"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			e := newReceiverEnv(t)
			req := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(`{}`))
			SetHeaders(req.Header, "evt_2", e.now, []byte(`{}`), e.secret)
			c.mutate(req)
			w := httptest.NewRecorder()
			e.rc.ServeHTTP(w, req)
			assert.Equal(t, http.StatusUnauthorized, w.Code)
			assert.Contains(t, w.Body.String(), c.want)
			assert.NotContains(t, w.Body.String(), e.secret.Reveal())
			assert.Zero(t, e.calls.Load(), "the handler never sees an unverified delivery")
		})
	}
}

func TestReceiverAcceptsARotationWhenAnySignatureVerifies(t *testing.T) {
	e := newReceiverEnv(t)
	old, err := NewSecret()
	require.NoError(t, err)
	w := e.deliver("evt_3", e.now, `{}`, old, e.secret)
	assert.Equal(t, http.StatusNoContent, w.Code)
}

// A handler that fails leaves the id unremembered: the retry is handled afresh, not acknowledged and lost.
func TestReceiverRemembersOnlyAcknowledgedEvents(t *testing.T) {
	e := newReceiverEnv(t)
	e.status.Store(http.StatusInternalServerError)
	assert.Equal(t, http.StatusInternalServerError, e.deliver("evt_4", e.now, `{}`).Code)
	e.status.Store(0)
	assert.Equal(t, http.StatusNoContent, e.deliver("evt_4", e.now, `{}`).Code)
	assert.Equal(t, int32(2), e.calls.Load())
}

func TestReceiverBoundsTheBody(t *testing.T) {
	e := newReceiverEnv(t)
	e.rc.MaxBodyBytes = 16
	w := e.deliver("evt_5", e.now, strings.Repeat("x", 17))
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	assert.Zero(t, e.calls.Load())
}

func TestReceiverAnswersOnlyPOST(t *testing.T) {
	e := newReceiverEnv(t)
	w := httptest.NewRecorder()
	e.rc.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/hooks", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	assert.Equal(t, http.MethodPost, w.Header().Get("Allow"))
}

// Deliveries of one id at once (a retry overtaking a slow first attempt) reach the handler once. The
// first is held in the handler until the three duplicates are all waiting for it, which each shows by
// watching its request's context (what a request waiting for a webhook-id to be free does), so the
// test proves the four overlapped rather than trusting a sleep to have let them.
func TestReceiverHandlesConcurrentDuplicatesOnce(t *testing.T) {
	e := newReceiverEnv(t)
	const duplicates = 3
	entered, release := make(chan struct{}, 1+duplicates), make(chan struct{})
	releaseOnce := sync.OnceFunc(func() { close(release) })
	t.Cleanup(releaseOnce) // a failed test lets its deliveries end too
	inner := e.rc.Handler
	e.rc.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		inner.ServeHTTP(w, r)
	})
	deliver := func(ctx context.Context) int {
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/hooks", strings.NewReader(`{}`))
		SetHeaders(req.Header, "evt_6", e.now, []byte(`{}`), e.secret)
		w := httptest.NewRecorder()
		e.rc.ServeHTTP(w, req)
		return w.Code
	}
	within := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			require.FailNow(t, what+" within 10 s", "entries into the handler not yet counted: %d", len(entered))
		}
	}

	var wg sync.WaitGroup
	codes := make([]int, 1+duplicates)
	wg.Go(func() { codes[0] = deliver(context.Background()) })
	within("the first delivery did not reach the handler", entered)

	waiting := make(chan struct{}, duplicates)
	for i := 1; i <= duplicates; i++ {
		ctx := &watchedContext{Context: context.Background(), watched: waiting}
		wg.Go(func() { codes[i] = deliver(ctx) })
	}
	for range duplicates {
		within("a duplicate did not wait for the delivery in the handler", waiting)
	}
	assert.Empty(t, entered, "a duplicate reached the handler while the first was in it")

	releaseOnce()
	wg.Wait()
	assert.Equal(t, int32(1), e.calls.Load())
	assert.Equal(t, http.StatusNoContent, codes[0], "the first is handled")
	for _, c := range codes[1:] {
		assert.Equal(t, http.StatusOK, c, "a duplicate is acknowledged as already handled")
	}
}

// watchedContext reports, once, that a request has started watching its context, which the Receiver
// does only while it waits for another request of the same webhook-id.
type watchedContext struct {
	context.Context
	once    sync.Once
	watched chan<- struct{}
}

func (c *watchedContext) Done() <-chan struct{} {
	c.once.Do(func() { c.watched <- struct{}{} })
	return c.Context.Done()
}

func TestReceiverWithoutSecretsIsAServerError(t *testing.T) {
	rc := NewReceiver(Verifier{}, http.NotFoundHandler())
	req := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(`{}`))
	w := httptest.NewRecorder()
	rc.ServeHTTP(w, req)
	assert.Equal(t, http.StatusInternalServerError, w.Code)
}

func TestMemoryStoreExpiresAndStaysBounded(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := NewMemoryStore(time.Hour, 3)
	m.now = func() time.Time { return now }
	for i := range 5 {
		require.NoError(t, m.Remember(ctx, fmt.Sprint("evt_", i)))
	}
	assert.Equal(t, 3, m.Len(), "the capacity bounds it")
	seen, _ := m.Seen(ctx, "evt_0")
	assert.False(t, seen, "the oldest is forgotten first")
	seen, _ = m.Seen(ctx, "evt_4")
	assert.True(t, seen)
	now = now.Add(time.Hour)
	seen, _ = m.Seen(ctx, "evt_4")
	assert.False(t, seen, "expired after the TTL")
	assert.Zero(t, m.Len())
}
