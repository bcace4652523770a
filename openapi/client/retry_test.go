package client

import (
	"context"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/h2non/gock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

func connReset() error { return &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET} }

// failFirst describes how the first attempt of a call fails.
type failFirst struct {
	name       string
	offStatus  int  // a status the document does not describe for the operation (a gateway's)
	transport  bool // no response at all
	reply      func(*gock.Request)
	wantReplay bool
}

var transientFailures = []failFirst{
	{name: "connection reset", transport: true, reply: func(r *gock.Request) { r.ReplyError(connReset()) }},
	{name: "connection closed early (EOF)", transport: true, reply: func(r *gock.Request) { r.ReplyError(io.EOF) }},
	{name: "gateway 503", offStatus: 503, reply: func(r *gock.Request) {
		r.Reply(503).SetHeader("Content-Type", "text/html").BodyString("<html>503 Service Temporarily Unavailable</html>")
	}, wantReplay: true},
	{name: "gateway 502", offStatus: 502, reply: func(r *gock.Request) { r.Reply(502) }},
	{name: "gateway 504", offStatus: 504, reply: func(r *gock.Request) { r.Reply(504) }},
	{name: "500 internal error", reply: func(r *gock.Request) {
		r.Reply(500).JSON(failure(api.CodeInternalError, "An internal error occurred; retry with the same Idempotency-Key.", ""))
	}, wantReplay: true},
	{name: "429 rate limited", reply: func(r *gock.Request) {
		r.Reply(429).SetHeader("Retry-After", "0").JSON(failure(api.CodeRateLimited, "Too many requests; retry after 0 seconds.", ""))
	}},
	{name: "409 first request still running", reply: func(r *gock.Request) {
		r.Reply(409).JSON(failure(api.CodeIdempotencyKeyInUse, "The first request with this Idempotency-Key is still running.", ""))
	}, wantReplay: true},
}

// TestPayoutIsRetriedWithTheSameIdempotencyKey fails the first attempt of a payout in every transient
// way and checks the retry carries the same generated (or given) key and the same body, so the
// service replays the first outcome instead of paying twice.
func TestPayoutIsRetriedWithTheSameIdempotencyKey(t *testing.T) {
	for _, given := range []string{"", "order-1042-refund"} {
		for _, f := range transientFailures {
			name := f.name + " (generated key)"
			if given != "" {
				name = f.name + " (caller's key)"
			}
			t.Run(name, func(t *testing.T) {
				h := newHarness(t)
				if f.offStatus != 0 {
					h.allowOffContract(f.offStatus, "a gateway in front of the service")
				}
				f.reply(h.mock(http.MethodPost, api.OpProcessPayout().URL()))
				ok := h.mock(http.MethodPost, api.OpProcessPayout().URL()).Reply(201).JSON(success("Payout is processing", payoutProcessing))
				if f.wantReplay {
					ok.SetHeader("Idempotent-Replayed", "true")
				}
				var meta Meta
				opts := []CallOption{WithMeta(&meta)}
				if given != "" {
					opts = append(opts, WithIdempotencyKey(given))
				}
				payout, err := h.client().ProcessPayout(context.Background(), bankPayout(), opts...)
				require.NoError(t, err)
				assert.Equal(t, "po_5d1e7b3c2a9f8e40", payout.PayoutID)

				reqs := h.requests()
				require.Len(t, reqs, 2)
				key := reqs[0].header.Get("Idempotency-Key")
				if given != "" {
					assert.Equal(t, given, key)
				} else {
					assert.Regexp(t, uuidV4, key)
				}
				assert.Equal(t, key, reqs[1].header.Get("Idempotency-Key"), "the retry carries the same key")
				assert.Equal(t, reqs[0].body, reqs[1].body, "the retry carries the same body")
				assert.Equal(t, Meta{StatusCode: 201, Replayed: f.wantReplay, IdempotencyKey: key, Attempts: 2,
					Message: "Payout is processing", Header: meta.Header}, meta)
				if f.offStatus != 0 {
					assert.NotEmpty(t, h.flaggedResponses())
				}
			})
		}
	}
}

// TestEachLogicalCallGetsItsOwnKey makes sure a generated key is per call, not per client.
func TestEachLogicalCallGetsItsOwnKey(t *testing.T) {
	h := newHarness(t)
	for range 2 {
		h.mock(http.MethodPost, api.OpProcessPayout().URL()).Reply(201).JSON(success("Payout is processing", payoutProcessing))
	}
	c := h.client()
	for range 2 {
		_, err := c.ProcessPayout(context.Background(), bankPayout())
		require.NoError(t, err)
	}
	reqs := h.requests()
	require.Len(t, reqs, 2)
	assert.NotEqual(t, reqs[0].header.Get("Idempotency-Key"), reqs[1].header.Get("Idempotency-Key"))
}

// TestPOSTWithoutKeyIsNeverRetried turns key generation off: a POST without a key must fail after one
// attempt, whatever the failure, because the service may have acted on it. With a key it is retried.
func TestPOSTWithoutKeyIsNeverRetried(t *testing.T) {
	for _, f := range transientFailures {
		t.Run(f.name, func(t *testing.T) {
			h := newHarness(t)
			h.allowPending = true
			if f.offStatus != 0 {
				h.allowOffContract(f.offStatus, "a gateway in front of the service")
			}
			f.reply(h.mock(http.MethodPost, api.OpProcessPayout().URL()))
			h.mock(http.MethodPost, api.OpProcessPayout().URL()).Reply(201).JSON(success("Payout is processing", payoutProcessing))

			var meta Meta
			_, err := h.client(WithoutAutoIdempotencyKey()).ProcessPayout(context.Background(), bankPayout(), WithMeta(&meta))
			require.Error(t, err)
			reqs := h.requests()
			require.Len(t, reqs, 1, "a keyless POST is sent once")
			assert.Empty(t, reqs[0].header.Values("Idempotency-Key"))
			assert.Equal(t, 1, meta.Attempts)
			assert.Empty(t, meta.IdempotencyKey)
			assert.Len(t, gock.Pending(), 1, "the success mock was never reached")
			if f.transport { // transport failures explain what to do
				assert.Contains(t, err.Error(), "not retried, because a POST without an Idempotency-Key may have been acted on")
			}
		})
	}
	t.Run("a given key makes it retryable again", func(t *testing.T) {
		h := newHarness(t)
		h.mock(http.MethodPost, api.OpProcessPayout().URL()).ReplyError(connReset())
		h.mock(http.MethodPost, api.OpProcessPayout().URL()).Reply(201).JSON(success("Payout is processing", payoutProcessing))
		_, err := h.client(WithoutAutoIdempotencyKey()).ProcessPayout(context.Background(), bankPayout(), WithIdempotencyKey("k-1"))
		require.NoError(t, err)
		assert.Len(t, h.requests(), 2)
	})
}

// TestIdempotentMethodsAreRetried checks GET, PATCH and DELETE are retried without a key.
func TestIdempotentMethodsAreRetried(t *testing.T) {
	cases := []struct {
		name   string
		method string
		path   string
		ok     func(*gock.Request)
		call   func(context.Context, *Client) error
	}{
		{"GET", http.MethodGet, api.OpGetPayout().URL("po_5d1e7b3c2a9f8e40"),
			func(r *gock.Request) { r.Reply(200).JSON(success("Payout retrieved", payoutProcessing)) }, getPayout},
		{"PATCH", http.MethodPatch, api.OpUpdateWebhookEndpoint().URL("we_2b7c9d1e4f6a8b30"),
			func(r *gock.Request) { r.Reply(200).JSON(success("Webhook endpoint updated", endpoint)) },
			func(ctx context.Context, c *Client) error {
				_, err := c.UpdateWebhookEndpoint(ctx, "we_2b7c9d1e4f6a8b30", WebhookEndpointUpdateRequest{Enabled: ptr(true)})
				return err
			}},
		{"DELETE", http.MethodDelete, api.OpDeleteWebhookEndpoint().URL("we_2b7c9d1e4f6a8b30"),
			func(r *gock.Request) { r.Reply(204) },
			func(ctx context.Context, c *Client) error { return c.DeleteWebhookEndpoint(ctx, "we_2b7c9d1e4f6a8b30") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.mock(tc.method, tc.path).ReplyError(connReset())
			h.mock(tc.method, tc.path).Reply(500).JSON(failure(api.CodeInternalError, "An internal error occurred.", ""))
			tc.ok(h.mock(tc.method, tc.path))
			require.NoError(t, tc.call(context.Background(), h.client()))
			reqs := h.requests()
			require.Len(t, reqs, 3)
			for _, r := range reqs {
				assert.Empty(t, r.header.Values("Idempotency-Key"))
			}
		})
	}
}

// TestRetriesAreBounded exhausts MaxAttempts and checks the last failure is returned, saying so.
func TestRetriesAreBounded(t *testing.T) {
	t.Run("5xx", func(t *testing.T) {
		h := newHarness(t)
		for range 3 {
			h.mock(http.MethodGet, api.OpListCountries().URL()).Reply(500).JSON(failure(api.CodeInternalError, "An internal error occurred.", ""))
		}
		_, err := h.client().ListCountries(context.Background())
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 3, apiErr.Attempts)
		assert.Equal(t, "malipo: list countries: 500 internal_error (code 9000): An internal error occurred. (after 3 attempts)", err.Error())
		assert.Len(t, h.recordedWaits(), 2, "two waits between three attempts")
	})
	t.Run("connection errors", func(t *testing.T) {
		h := newHarness(t)
		for range 3 {
			h.mock(http.MethodGet, api.OpListCountries().URL()).ReplyError(connReset())
		}
		_, err := h.client().ListCountries(context.Background())
		require.Error(t, err)
		assert.ErrorIs(t, err, syscall.ECONNRESET)
		assert.Contains(t, err.Error(), "malipo: list countries: after 3 attempts: ")
	})
}

// TestPermanentFailuresAreNotRetried checks that answers another attempt cannot change are returned
// at once, even for a POST with a key.
func TestPermanentFailuresAreNotRetried(t *testing.T) {
	cases := []struct {
		status int
		code   ErrorCode
	}{
		{400, api.CodeValidationFailed}, {401, api.CodeInvalidAPIKey}, {409, api.CodeIdempotencyKeyReused},
		{409, api.CodeDuplicateReference}, {413, api.CodePayloadTooLarge}, {415, api.CodeUnsupportedMediaType},
	}
	for _, tc := range cases {
		t.Run(tc.code.String(), func(t *testing.T) {
			h := newHarness(t)
			h.mock(http.MethodPost, api.OpProcessPayout().URL()).Reply(tc.status).JSON(failure(tc.code, "No.", ""))
			_, err := h.client().ProcessPayout(context.Background(), bankPayout())
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.code, apiErr.Code)
			assert.Len(t, h.requests(), 1)
		})
	}
}

// TestRetryAfterIsHonoured checks the wait before a retry follows Retry-After (seconds or HTTP date),
// capped by MaxBackoff, and falls back to the back-off when the header is absent or unusable.
func TestRetryAfterIsHonoured(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 15, 0, 0, time.UTC)
	cases := []struct {
		name       string
		status     int
		retryAfter string
		wantWait   time.Duration // exact, or 0 to expect the back-off range
	}{
		{"429 with seconds", 429, "2", 2 * time.Second},
		{"429 with zero", 429, "0", 0},
		{"429 above MaxBackoff is capped", 429, "120", 10 * time.Second},
		{"503 with an HTTP date", 503, now.Add(3 * time.Second).Format(http.TimeFormat), 3 * time.Second},
		{"503 with a date in the past", 503, now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"429 without the header uses the back-off", 429, "", -1},
		{"429 with garbage uses the back-off", 429, "soon", -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			if tc.status == 503 {
				h.allowOffContract(503, "a gateway that asks clients to come back later")
			}
			if tc.retryAfter == "soon" {
				h.allowOffContract(429, "a server whose Retry-After is not the documented integer")
			}
			r := h.mock(http.MethodGet, api.OpListCountries().URL()).Reply(tc.status)
			if tc.status == 429 {
				r.JSON(failure(api.CodeRateLimited, "Too many requests.", ""))
			}
			if tc.retryAfter != "" {
				r.SetHeader("Retry-After", tc.retryAfter)
			}
			h.mock(http.MethodGet, api.OpListCountries().URL()).Reply(200).JSON(success("Countries retrieved", "[]"))
			c := h.client(WithRetryPolicy(RetryPolicy{MaxAttempts: 2, MinBackoff: 100 * time.Millisecond, MaxBackoff: 10 * time.Second}))
			c.now = func() time.Time { return now }
			countries, err := c.ListCountries(context.Background())
			require.NoError(t, err)
			assert.Empty(t, countries)
			waits := h.recordedWaits()
			require.Len(t, waits, 1)
			if tc.wantWait >= 0 {
				assert.Equal(t, tc.wantWait, waits[0])
			} else {
				assert.GreaterOrEqual(t, waits[0], 50*time.Millisecond)
				assert.LessOrEqual(t, waits[0], 100*time.Millisecond)
			}
		})
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 15, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false}, {"  ", 0, false}, {"2", 2 * time.Second, true}, {" 7 ", 7 * time.Second, true},
		{"-1", 0, false}, {"1.5", 0, false}, {"soon", 0, false},
		{"99999999999999999999", 0, false},
		{"9999999999999", 365 * 24 * time.Hour, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{now.Add(5 * time.Second).Format(time.RFC850), 5 * time.Second, true},
	}
	for _, tc := range cases {
		got, ok := retryAfter(tc.in, now)
		assert.Equal(t, tc.ok, ok, "%q", tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}

func TestBackoffIsJitteredExponentialAndCapped(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 10, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	for attempt := 1; attempt <= 8; attempt++ {
		base := min(p.MinBackoff<<(attempt-1), p.MaxBackoff)
		seen := map[time.Duration]bool{}
		for range 200 {
			d := p.backoff(attempt)
			assert.GreaterOrEqual(t, d, base/2, "attempt %d", attempt)
			assert.LessOrEqual(t, d, base, "attempt %d", attempt)
			seen[d] = true
		}
		assert.Greater(t, len(seen), 1, "attempt %d is jittered", attempt)
	}
	assert.Equal(t, time.Duration(0), RetryPolicy{MaxAttempts: 3}.backoff(5), "zero back-offs stay zero")
	huge := RetryPolicy{MaxAttempts: 100, MinBackoff: time.Hour, MaxBackoff: 2 * time.Hour}
	assert.LessOrEqual(t, huge.backoff(90), 2*time.Hour, "no overflow")
}

func TestRetryableNetErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"reset", connReset(), true},
		{"refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"EOF", io.EOF, true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"broken pipe", syscall.EPIPE, true},
		{"attempt timeout", context.DeadlineExceeded, true},
		{"cancelled", context.Canceled, false},
		{"unknown host", &net.DNSError{Err: "no such host", Name: "nope.invalid", IsNotFound: true}, false},
		{"DNS timeout", &net.DNSError{Err: "timeout", Name: "api", IsTimeout: true}, true},
		{"no mock", gock.ErrCannotMatch, false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, retryableNetError(tc.err), tc.name)
	}
}
