package faultproxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/faultproxy"
)

// upstream is a target that counts the requests it received and answers 201 with a body.
func upstream(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Echo", r.Header.Get("Idempotency-Key"))
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(append([]byte("got "), body...))
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func start(t *testing.T, cfg faultproxy.Config) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

// send posts one request on a fresh connection (no keep-alive, so that Go's transport cannot
// silently resend it) and returns the response or the error.
func send(t *testing.T, url string, timeout time.Duration) (*http.Response, []byte, error) {
	t.Helper()
	c := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	req, err := http.NewRequest(http.MethodPost, url+"/v/x", strings.NewReader("hello"))
	require.NoError(t, err)
	req.Header.Set("Idempotency-Key", "k1")
	res, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	return res, body, err
}

// Each fault does what its documentation says: whether the target saw the request, and what the
// client gets.
func TestEachFault(t *testing.T) {
	tests := []struct {
		kind       faultproxy.Kind
		forwarded  bool
		wantStatus int // 0: a transport error
	}{
		{faultproxy.ResetBeforeForward, false, 0},
		{faultproxy.ResetAfterForward, true, 0},
		{faultproxy.BadGateway, false, http.StatusBadGateway},
		{faultproxy.Unavailable, false, http.StatusServiceUnavailable},
		{faultproxy.BadGatewayAfterForward, true, http.StatusBadGateway},
		{faultproxy.RateLimited, false, http.StatusTooManyRequests},
		{faultproxy.SlowAnswer, true, 0},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			up, got := upstream(t)
			p := start(t, faultproxy.Config{Target: up.URL, Rate: 1, Kinds: []faultproxy.Kind{tt.kind}, MaxConsecutive: 1,
				RetryAfter: time.Second, SlowDelay: time.Minute})
			res, _, err := send(t, p.URL, 300*time.Millisecond)
			if tt.wantStatus == 0 {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.wantStatus, res.StatusCode)
				if tt.kind == faultproxy.RateLimited {
					assert.Equal(t, "1", res.Header.Get("Retry-After"))
				}
			}
			assert.Equal(t, tt.forwarded, got.Load() == 1, "did the target get the request")
			// The fault was the only one in a row: the same request is now forwarded untouched.
			res, body, err := send(t, p.URL, 5*time.Second)
			require.NoError(t, err)
			assert.Equal(t, http.StatusCreated, res.StatusCode)
			assert.Equal(t, "got hello", string(body))
			assert.Equal(t, "k1", res.Header.Get("X-Echo"))
			st := p.Stats()
			assert.Equal(t, map[faultproxy.Kind]int{tt.kind: 1}, st.Faults)
			assert.Equal(t, 2, st.Requests[http.MethodPost])
			assert.Equal(t, int(got.Load()), st.Forwarded)
		})
	}
}

// The schedule depends on the seed and the request identities only: two proxies with one seed fault
// the same requests; another seed faults others.
func TestScheduleIsDeterministic(t *testing.T) {
	run := func(seed uint64) []int {
		up, _ := upstream(t)
		p := start(t, faultproxy.Config{Target: up.URL, Seed: seed, Rate: 0.5, Kinds: []faultproxy.Kind{faultproxy.BadGateway},
			MaxConsecutive: 3})
		var statuses []int
		for i := range 40 {
			req, err := http.NewRequest(http.MethodGet, p.URL+"/v/"+string(rune('a'+i%20)), nil)
			require.NoError(t, err)
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_ = res.Body.Close()
			statuses = append(statuses, res.StatusCode)
		}
		return statuses
	}
	first := run(7)
	assert.Equal(t, first, run(7))
	assert.NotEqual(t, first, run(8))
	assert.Contains(t, first, http.StatusBadGateway)
	assert.Contains(t, first, http.StatusCreated)
}

func TestStartRejectsBadConfig(t *testing.T) {
	_, err := faultproxy.Start(faultproxy.Config{Target: "nope", Rate: 2, Kinds: []faultproxy.Kind{"x", faultproxy.SlowAnswer}})
	require.Error(t, err)
	for _, want := range []string{"Target", "Rate", "MaxConsecutive", `unknown fault "x"`, "SlowDelay"} {
		assert.Contains(t, err.Error(), want)
	}
}
