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

// Two deliveries of one id at once (a retry overtaking a slow first attempt) reach the handler once.
func TestReceiverHandlesConcurrentDuplicatesOnce(t *testing.T) {
	e := newReceiverEnv(t)
	release := make(chan struct{})
	inner := e.rc.Handler
	e.rc.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		inner.ServeHTTP(w, r)
	})
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Go(func() { codes[i] = e.deliver("evt_6", e.now, `{}`).Code })
	}
	time.Sleep(20 * time.Millisecond) // let them all arrive; the assertion does not depend on it
	close(release)
	wg.Wait()
	assert.Equal(t, int32(1), e.calls.Load())
	for _, c := range codes {
		assert.True(t, c == http.StatusNoContent || c == http.StatusOK, "got %d", c)
	}
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
