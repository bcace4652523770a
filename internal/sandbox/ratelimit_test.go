package sandbox

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// TestRateLimit: the RateLimit fields count down on every answer to a merchant's requests, the request
// past the limit is a 429 whose Retry-After ends the window, the next window starts again, each
// merchant counts alone, and every response (the 429 too) is valid against the document.
func TestRateLimit(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)}
	e := newEnv(t, WithRateLimit(3), WithClock(clock.Now))
	countries := api.OpListCountries().URL()
	fields := func(r result) []string {
		return []string{r.header.Get(api.HeaderRateLimitLimit), r.header.Get(api.HeaderRateLimitRemaining), r.header.Get(api.HeaderRateLimitReset)}
	}
	for i, want := range [][]string{{"3", "2", "60"}, {"3", "1", "50"}, {"3", "0", "40"}} {
		r := e.client.do(http.MethodGet, countries, nil)
		require.Equal(t, http.StatusOK, r.status, "request %d of 3: %s", i+1, r.body)
		assert.Equal(t, want, fields(r), "request %d", i+1)
		clock.advance(10 * time.Second)
	}
	// 30 s into the window: the fourth request is refused until it ends.
	r := e.client.do(http.MethodGet, countries, nil)
	require.Equal(t, http.StatusTooManyRequests, r.status, "%s", r.body)
	assert.Equal(t, int(api.CodeRateLimited), r.code(t))
	assert.Equal(t, []string{"3", "0", "30"}, fields(r))
	assert.Equal(t, "30", r.header.Get(api.HeaderRetryAfter))

	other := e.client.as(otherPublicKey, otherSecretKey).do(http.MethodGet, countries, nil)
	require.Equal(t, http.StatusOK, other.status, "another merchant's keys count alone: %s", other.body)
	assert.Equal(t, []string{"3", "2", "60"}, fields(other), "its window starts with its first request")

	clock.advance(30 * time.Second)
	r = e.client.do(http.MethodGet, countries, nil)
	require.Equal(t, http.StatusOK, r.status, "a new window: %s", r.body)
	assert.Equal(t, []string{"3", "2", "60"}, fields(r))

	// A request whose keys are refused is not a merchant's: no fields to report.
	r = e.client.as(DefaultPublicKey, "sk_test_wrong").do(http.MethodGet, api.OpListWebhookEndpoints().URL(), nil)
	require.Equal(t, http.StatusUnauthorized, r.status)
	assert.Empty(t, r.header.Get(api.HeaderRateLimitLimit))
}

// TestRateLimitOff: WithRateLimit(0) limits nothing and sends no RateLimit fields, as the document
// allows an implementation that does not limit.
func TestRateLimitOff(t *testing.T) {
	e := newEnv(t, WithRateLimit(0))
	for range 5 {
		r := e.client.do(http.MethodGet, api.OpListCountries().URL(), nil)
		require.Equal(t, http.StatusOK, r.status)
		assert.Empty(t, r.header.Get(api.HeaderRateLimitLimit))
	}
	_, err := New(WithRateLimit(-1))
	require.ErrorContains(t, err, "give 0 (no limit) or a positive number")
}
