package sandbox

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// nextNotice waits for a notice of kind on ch, skipping others.
func nextNotice(t *testing.T, ch <-chan Notice, kind NoticeKind) Notice {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case n := <-ch:
			if n.Kind == kind {
				return n
			}
		case <-deadline:
			t.Fatalf("no %s notice", kind)
		}
	}
}

// A watcher hears of every kind of change of a merchant: a state-changing request, the event of a
// status change and each delivery attempt; a GET is not a change.
func TestSubscribeNotices(t *testing.T) {
	e := newEnv(t, WithTimings(stillTimings))
	rc := newReceiver(t)
	ch, cancel := e.srv.Subscribe(64)
	defer cancel()

	e.client.do(http.MethodGet, api.OpListCountries().Path, nil)
	id := e.client.createPayout(with(mobilePayout(creditedWallet(t)), "webhook_url", rc.url("/po")))
	n := nextNotice(t, ch, NoticeRequest)
	assert.Equal(t, DefaultPublicKey, n.Merchant)

	res := e.client.do(http.MethodPost, api.OpSettleSandboxPayout().URL(id), map[string]any{"status": "success"})
	require.Equal(t, http.StatusOK, res.status, "%s", res.body)
	ev := nextNotice(t, ch, NoticeEvent)
	assert.Equal(t, DefaultPublicKey, ev.Merchant)
	att := nextNotice(t, ch, NoticeAttempt)
	assert.Equal(t, ev.ID, att.ID)
	assert.Len(t, e.srv.EventAttempts(ev.ID), 1)
	assert.Equal(t, ev.ID, e.srv.RecentEvents(DefaultPublicKey, 1)[0].ID)
}

// A subscriber that never reads does not slow the API: its notices are dropped once its buffer is
// full, and the requests go on being answered.
func TestSubscriberThatNeverReadsBlocksNothing(t *testing.T) {
	e := newEnv(t, WithTimings(stillTimings))
	ch, cancel := e.srv.Subscribe(1)
	for range 5 {
		e.client.createPayout(mobilePayout(creditedWallet(t)))
	}
	assert.Len(t, ch, 1)
	cancel()
	cancel() // ending twice is harmless
	e.client.createPayout(mobilePayout(creditedWallet(t)))
	assert.Len(t, ch, 1, "an ended subscription receives nothing")
}
