package sandbox

import (
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// TestDataDirSurvivesRestart: what a sandbox with a data directory created and changed is there after
// a restart on the same directory, and what it still owed happens: settlements that were due, with
// their webhooks signed by the secrets the merchant was given.
func TestDataDirSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	rc := newReceiver(t)
	first := newEnv(t, WithDataDir(dir), WithTimings(stillTimings))

	// A payout still processing (with an Idempotency-Key), a payment whose push prompt is unanswered,
	// an endpoint, another merchant's payout, and one payout settled now (an event in the log).
	body := with(mobilePayout(creditedWallet(t)), "reference", "inv-restart", "webhook_url", rc.url("/po"))
	created := first.client.do(http.MethodPost, api.OpProcessPayout().URL(), body, withIdempotencyKey("restart-1"))
	require.Equal(t, http.StatusCreated, created.status, "%s", created.body)
	payoutID := created.data(t)["payout_id"].(string)
	pay := first.client.do(http.MethodPost, api.OpInitializePayment().URL(), paymentInit(approvingPhone(t), rc.url("/pay")))
	require.Equal(t, http.StatusCreated, pay.status, "%s", pay.body)
	payRef := pay.data(t)["paymentReference"].(string)
	require.Equal(t, http.StatusAccepted, first.client.do(http.MethodPost, api.OpCompletePayment().URL(payRef), nil).status)
	ep := first.client.do(http.MethodPost, api.OpCreateWebhookEndpoint().URL(), map[string]any{"url": rc.url("/ep"), "events": []string{"payout.success", "payout.failed"}})
	require.Equal(t, http.StatusCreated, ep.status, "%s", ep.body)
	epID, epSecret := ep.data(t)["id"].(string), ep.data(t)["secret"].(string)
	other := first.client.as(otherPublicKey, otherSecretKey)
	otherID := other.createPayout(mobilePayout(creditedWallet(t)))
	settledID := first.client.createPayout(mobilePayout(creditedWallet(t)))
	require.Equal(t, http.StatusOK, first.client.do(http.MethodPost, api.OpSettleSandboxPayout().URL(settledID), map[string]any{"status": "success"}).status)
	rc.waitFor(1, forObject(settledID))
	before := first.srv.Events(DefaultPublicKey)
	require.Len(t, before, 2, "payment.processing and the settled payout's payout.success")
	first.ts.Close()
	require.NoError(t, first.srv.Close())

	// The restart: settlements are overdue with the new timings, so they happen at once.
	second := newEnv(t, WithDataDir(dir))
	c := second.client
	got, ok := second.srv.Payout(DefaultPublicKey, settledID)
	require.True(t, ok, "the settled payout is there")
	assert.Equal(t, api.PayoutStatusSuccess, got.Status)
	_, ok = second.srv.Payout(otherPublicKey, otherID)
	assert.True(t, ok, "the other merchant's payout is there, and still its own")
	assert.Equal(t, http.StatusNotFound, c.do(http.MethodGet, api.OpGetPayout().URL(otherID), nil).status)

	replay := c.do(http.MethodPost, api.OpProcessPayout().URL(), body, withIdempotencyKey("restart-1"))
	assert.Equal(t, http.StatusCreated, replay.status)
	assert.Equal(t, "true", replay.header.Get(api.HeaderIdempotentReplayed), "the key's first response is replayed")
	assert.Equal(t, string(created.body), string(replay.body))
	dup := c.do(http.MethodPost, api.OpProcessPayout().URL(), body)
	assert.Equal(t, int(api.CodeDuplicateReference), dup.code(t), "the reference is still held")

	// The processing payout settles and is reported to its webhook_url and to the endpoint, signed
	// with the endpoint's secret from before the restart; the payment's customer answers.
	assert.Equal(t, "success", c.waitFinal(payoutID)["status"])
	assert.Equal(t, "success", c.waitFinal(payRef)["status"])
	atEndpoint := rc.waitFor(1, func(d received) bool { return d.path == "/ep" && forObject(payoutID)(d) })
	verify(t, atEndpoint[0], epSecret)
	rc.waitFor(1, func(d received) bool { return d.path == "/po" && forObject(payoutID)(d) })
	assert.Equal(t, http.StatusOK, c.do(http.MethodGet, api.OpGetWebhookEndpoint().URL(epID), nil).status)

	// The event log goes on from where it was: the old events first, same ids and numbers.
	after := second.srv.Events(DefaultPublicKey)
	require.GreaterOrEqual(t, len(after), len(before)+2)
	for i, ev := range before {
		assert.Equal(t, ev.ID, after[i].ID)
		assert.Equal(t, ev.Seq, after[i].Seq)
	}
	assert.Greater(t, after[len(before)].Seq, before[len(before)-1].Seq)

	// A second sandbox on the directory in use is refused, and says why.
	_, err := New(WithDataDir(dir))
	var dde *DataDirError
	require.ErrorAs(t, err, &dde)
	assert.Contains(t, err.Error(), "in use by another malipo sandbox")
}

// TestDataDirKeepsUndeliveredWebhooks: a delivery the shutdown abandoned stays in the outbox and is
// made after the restart, with the same webhook-id, continuing its retry schedule: the attempt after
// the restart is attempt 2, due when the schedule said, not a new attempt 1 at once. The attempts
// made before the restart are still listed after it.
func TestDataDirKeepsUndeliveredWebhooks(t *testing.T) {
	dir := t.TempDir()
	rc := newReceiver(t)
	var down atomic.Bool
	down.Store(true)
	rc.respond = func(received, int) (int, time.Duration) {
		if down.Load() {
			return http.StatusServiceUnavailable, 0
		}
		return http.StatusOK, 0
	}
	const retryAfter = 2 * time.Second
	first := newEnv(t, WithDataDir(dir), WithRetrySchedule([]time.Duration{retryAfter, time.Hour}))
	id := first.client.createPayout(with(mobilePayout(creditedWallet(t)), "webhook_url", rc.url("/po")))
	failed := rc.waitFor(1, forObject(id))
	eventID := failed[0].event.ID
	require.Eventually(t, func() bool { return len(first.srv.EventAttempts(eventID)) == 1 }, 5*time.Second, time.Millisecond)
	first.ts.Close()
	require.NoError(t, first.srv.Close())

	down.Store(false)
	second := newEnv(t, WithDataDir(dir), WithRetrySchedule([]time.Duration{retryAfter, time.Hour}))
	before := second.srv.EventAttempts(eventID)
	require.Len(t, before, 1, "the attempt made before the restart is kept")
	assert.Equal(t, 1, before[0].Number)
	assert.Equal(t, http.StatusServiceUnavailable, before[0].StatusCode)
	got := rc.waitFor(2, forObject(id))
	assert.Equal(t, eventID, got[1].event.ID, "the same event, delivered after the restart")
	assert.GreaterOrEqual(t, got[1].at.Sub(failed[0].at), retryAfter-100*time.Millisecond,
		"the retry waits for its turn in the schedule, as it would have without the restart")
	second.idle()
	after := second.srv.EventAttempts(eventID)
	require.Len(t, after, 2)
	assert.Equal(t, 2, after[1].Number, "the schedule goes on from the attempt before the restart")
	assert.True(t, after[1].Delivered)
}

// TestDataDirKeepsDeliveryFailures: a delivery failure (a sandbox control) is in force after a
// restart until it expires, as before it.
func TestDataDirKeepsDeliveryFailures(t *testing.T) {
	dir := t.TempDir()
	first := newEnv(t, WithDataDir(dir), WithSeedData(false))
	res := first.client.do(http.MethodPost, api.OpCreateSandboxDeliveryFailure().URL(), map[string]any{"url": "https://merchant.example.org/down", "status_code": 502})
	require.Equal(t, http.StatusCreated, res.status, "%s", res.body)
	want := first.srv.DeliveryFailures(DefaultPublicKey)
	require.Len(t, want, 1)
	first.ts.Close()
	require.NoError(t, first.srv.Close())

	second := newEnv(t, WithDataDir(dir), WithSeedData(false))
	assert.Equal(t, want, second.srv.DeliveryFailures(DefaultPublicKey))
}

// TestCrashBetweenPayoutAndKeyReplays: a payout and its Idempotency-Key's response are one write (one
// store transaction, one bbolt transaction), so no crash falls between them. The data file here loses
// every write from the payout's on, as a crash just before it reached the disk would; the retry after
// the restart with the same key then creates the payout (201), where a key written after its payout
// would have met the payout's claimed reference without the key: 409.
func TestCrashBetweenPayoutAndKeyReplays(t *testing.T) {
	var mu sync.Mutex
	var groups [][]string
	lose := func(buckets []string) bool {
		mu.Lock()
		defer mu.Unlock()
		groups = append(groups, buckets)
		return slices.Contains(buckets, "payouts")
	}
	dir := t.TempDir()
	first := newEnv(t, WithDataDir(dir), WithSeedData(false), withStoreOptions(store.LoseWritesAfter(lose)))
	body := with(mobilePayout(creditedWallet(t)), "reference", "inv-crash")
	created := first.client.do(http.MethodPost, api.OpProcessPayout().URL(), body, withIdempotencyKey("crash-1"))
	require.Equal(t, http.StatusCreated, created.status, "%s", created.body)
	first.ts.Close()
	require.NoError(t, first.srv.Close())
	mu.Lock()
	var payoutWrite []string
	for _, g := range groups {
		if slices.Contains(g, "payouts") {
			payoutWrite = g
		}
	}
	mu.Unlock()
	assert.Contains(t, payoutWrite, "idempotency", "the key's response is written with the payout")

	second := newEnv(t, WithDataDir(dir), WithSeedData(false))
	retry := second.client.do(http.MethodPost, api.OpProcessPayout().URL(), body, withIdempotencyKey("crash-1"))
	assert.Equal(t, http.StatusCreated, retry.status, "the retry creates the payout the crash lost: %s", retry.body)
	assert.Len(t, second.srv.Payouts(DefaultPublicKey), 1)
}
