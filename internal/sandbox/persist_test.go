package sandbox

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
// made after the restart, with the same webhook-id.
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
	first := newEnv(t, WithDataDir(dir), WithRetrySchedule([]time.Duration{time.Hour}))
	id := first.client.createPayout(with(mobilePayout(creditedWallet(t)), "webhook_url", rc.url("/po")))
	failed := rc.waitFor(1, forObject(id))
	first.ts.Close()
	require.NoError(t, first.srv.Close())

	down.Store(false)
	second := newEnv(t, WithDataDir(dir))
	got := rc.waitFor(2, forObject(id))
	assert.Equal(t, failed[0].event.ID, got[1].event.ID, "the same event, delivered after the restart")
	second.idle()
}
