package client

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// TestContextCancellation checks that a cancelled or expired context stops a call promptly wherever
// it is — before sending, while waiting for a response, or while waiting to retry — and that the error
// says so (errors.Is) without further attempts.
func TestContextCancellation(t *testing.T) {
	t.Run("already cancelled: nothing is sent", func(t *testing.T) {
		h := newHarness(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := h.client().ProcessPayout(ctx, bankPayout())
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, "malipo: process payout: not sent: context canceled", err.Error())
		assert.Empty(t, h.requests())
	})

	t.Run("while waiting for the response", func(t *testing.T) {
		h := newHarness(t)
		h.mock(http.MethodGet, api.OpGetPayout().URL("po_5d1e7b3c2a9f8e40")).Reply(200).Delay(10 * time.Second).
			JSON(success("Payout retrieved", payoutProcessing))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		start := time.Now()
		err := getPayout(ctx, h.client())
		require.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(start), 2*time.Second, "the call returns promptly")
		assert.Len(t, h.requests(), 1, "a cancelled call is not retried")
	})

	t.Run("while waiting to retry", func(t *testing.T) {
		h := newHarness(t)
		h.allowOffContract(503, "a gateway that asks clients to come back in a minute")
		h.mock(http.MethodPost, api.OpProcessPayout().URL()).Reply(503).SetHeader("Retry-After", "60")
		c := h.client(WithRetryPolicy(RetryPolicy{MaxAttempts: 3, MinBackoff: time.Second, MaxBackoff: time.Minute}))
		c.sleep = sleepCtx // really wait, so that only cancellation can end the wait
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(30*time.Millisecond, cancel)
		start := time.Now()
		_, err := c.ProcessPayout(ctx, bankPayout())
		require.ErrorIs(t, err, context.Canceled)
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr, "the last attempt's failure is kept")
		assert.Equal(t, 503, apiErr.StatusCode)
		assert.Equal(t, 60*time.Second, apiErr.RetryAfter)
		assert.Contains(t, err.Error(), "malipo: process payout: context canceled while waiting to retry; attempt 1 failed: 503 Service Unavailable")
		assert.Less(t, time.Since(start), 2*time.Second)
		assert.Len(t, h.requests(), 1)
	})

	t.Run("deadline during the back-off", func(t *testing.T) {
		h := newHarness(t)
		h.mock(http.MethodGet, api.OpListCountries().URL()).Reply(500).JSON(failure(api.CodeInternalError, "An internal error occurred.", ""))
		c := h.client(WithRetryPolicy(RetryPolicy{MaxAttempts: 3, MinBackoff: 5 * time.Second, MaxBackoff: 5 * time.Second}))
		c.sleep = sleepCtx
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := c.ListCountries(ctx)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Len(t, h.requests(), 1)
	})
}

// TestRequestTimeoutIsPerAttempt stalls the first attempt past WithRequestTimeout and checks it is
// abandoned and retried (a payout with the same key), while the call's own context is unaffected.
func TestRequestTimeoutIsPerAttempt(t *testing.T) {
	h := newHarness(t)
	h.mock(http.MethodPost, api.OpProcessPayout().URL()).Reply(201).Delay(10 * time.Second).
		JSON(success("Payout is processing", payoutProcessing))
	h.mock(http.MethodPost, api.OpProcessPayout().URL()).Reply(201).SetHeader("Idempotent-Replayed", "true").
		JSON(success("Payout is processing", payoutProcessing))
	start := time.Now()
	var meta Meta
	_, err := h.client(WithRequestTimeout(30*time.Millisecond)).ProcessPayout(context.Background(), bankPayout(), WithMeta(&meta))
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
	reqs := h.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, reqs[0].header.Get("Idempotency-Key"), reqs[1].header.Get("Idempotency-Key"))
	assert.True(t, meta.Replayed)

	t.Run("every attempt timing out says so", func(t *testing.T) {
		h := newHarness(t)
		for range 2 {
			h.mock(http.MethodGet, api.OpListCountries().URL()).Reply(200).Delay(10 * time.Second).JSON(success("Countries retrieved", "[]"))
		}
		c := h.client(WithRequestTimeout(10*time.Millisecond), WithRetryPolicy(RetryPolicy{MaxAttempts: 2}))
		_, err := c.ListCountries(context.Background())
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Contains(t, err.Error(), "malipo: list countries: after 2 attempts: attempt timed out after 10ms (WithRequestTimeout)")
	})
}
