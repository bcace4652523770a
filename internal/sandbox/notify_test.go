package sandbox

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
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
// A regression that made publishing wait for the subscriber would hang the requests, so they run
// with a bounded wait that fails the test instead of hanging it.
func TestSubscriberThatNeverReadsBlocksNothing(t *testing.T) {
	e := newEnv(t, WithTimings(stillTimings))
	ch, cancel := e.srv.Subscribe(1)
	body, err := json.Marshal(mobilePayout(creditedWallet(t)))
	require.NoError(t, err)
	creates := func(n int) {
		t.Helper()
		statuses := make(chan int, n)
		go func() {
			for range n {
				res, err := e.client.try(http.MethodPost, api.OpProcessPayout().URL(), body)
				if err != nil {
					statuses <- 0
					continue
				}
				statuses <- res.status
			}
		}()
		deadline := time.After(10 * time.Second)
		for range n {
			select {
			case status := <-statuses:
				require.Equal(t, http.StatusCreated, status)
			case <-deadline:
				t.Fatal("a create did not finish in 10 s: publishing waits for a subscriber that never reads")
			}
		}
	}
	creates(5)
	assert.Len(t, ch, 1)
	cancel()
	cancel() // ending twice is harmless
	creates(1)
	assert.Len(t, ch, 1, "an ended subscription receives nothing")
}

// RecentPayouts is the newest n by last change, newest first, whatever the map's order.
func TestRecentPayoutsAreTheNewest(t *testing.T) {
	e := newEnv(t, WithTimings(stillTimings))
	var ids []string
	for range 7 {
		ids = append(ids, e.client.createPayout(mobilePayout(creditedWallet(t))))
	}
	// Settling the first one changes it (times have whole seconds, so ties are broken by id).
	res := e.client.do(http.MethodPost, api.OpSettleSandboxPayout().URL(ids[0]), map[string]any{"status": "success"})
	require.Equal(t, http.StatusOK, res.status, "%s", res.body)

	all := e.srv.Payouts(DefaultPublicKey)
	slices.SortFunc(all, func(a, b Payout) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), strings.Compare(b.PayoutID, a.PayoutID))
	})
	for _, n := range []int{1, 3, 7, 10} {
		got := e.srv.RecentPayouts(DefaultPublicKey, n)
		want := all[:min(n, len(all))]
		require.Len(t, got, len(want))
		for i := range want {
			assert.Equal(t, want[i].PayoutID, got[i].PayoutID, "n=%d, position %d", n, i)
		}
	}
	assert.Empty(t, e.srv.RecentPayouts(otherPublicKey, 5))
	assert.Empty(t, e.srv.RecentPayments(DefaultPublicKey, 5))
}
