package sandbox

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// listEventsOf lists with the query and returns the page.
func (c *client) listEventsPage(t *testing.T, query url.Values) (items []map[string]any, more bool, cursor string) {
	t.Helper()
	path := api.OpListEvents().URL()
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	res := c.do(http.MethodGet, path, nil)
	require.Equal(t, http.StatusOK, res.status, "%s", res.body)
	data := res.data(t)
	for _, it := range data["items"].([]any) {
		items = append(items, it.(map[string]any))
	}
	cursor, _ = data["next_cursor"].(string)
	return items, data["has_more"] == true, cursor
}

// The event log lists the merchant's events newest first, filters by type and object, pages with a
// cursor that neither repeats nor skips an event, and shows each event's body as delivered.
func TestEventsAreListedFilteredAndPaged(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t)
	var ids []string
	for range 5 {
		ids = append(ids, e.client.createPayout(with(mobilePayout(creditedWallet(t)), "webhook_url", rc.url("/h"))))
	}
	for _, id := range ids {
		e.client.waitFinal(id)
	}
	failed := e.client.createPayout(mobilePayout(walletTestValue(t, api.PayoutStatusFailed).MomoPhoneNumber))
	e.client.waitFinal(failed)
	e.idle()

	all, more, _ := e.client.listEventsPage(t, nil)
	require.Len(t, all, 6)
	assert.False(t, more)
	assert.Equal(t, failed, all[0]["object_id"], "newest first")

	byType, _, _ := e.client.listEventsPage(t, url.Values{"type": {string(api.EventTypePayoutFailed)}})
	require.Len(t, byType, 1)
	assert.Equal(t, failed, byType[0]["object_id"])

	byObject, _, _ := e.client.listEventsPage(t, url.Values{"object_id": {ids[2]}})
	require.Len(t, byObject, 1)
	assert.Equal(t, string(api.EventTypePayoutSuccess), byObject[0]["type"])

	// The payload is the body the receiver got, byte for byte as JSON.
	d := rc.waitFor(1, forObject(ids[2]))[0]
	payload, err := json.Marshal(byObject[0]["payload"])
	require.NoError(t, err)
	assert.JSONEq(t, string(d.body), string(payload))
	assert.Equal(t, d.header.Get(webhook.HeaderID), byObject[0]["id"])

	// Pages of two: every event once, in order, even with new events arriving between pages.
	var seen []any
	query := url.Values{"limit": {"2"}}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10)
		items, more, cursor := e.client.listEventsPage(t, query)
		for _, it := range items {
			seen = append(seen, it["id"])
		}
		if pages == 0 {
			e.client.waitFinal(e.client.createPayout(mobilePayout(creditedWallet(t)))) // newer than every page
		}
		if !more {
			assert.Empty(t, cursor)
			break
		}
		require.NotEmpty(t, cursor)
		query.Set("cursor", cursor)
	}
	var want []any
	for _, it := range all {
		want = append(want, it["id"])
	}
	assert.Equal(t, want, seen)

	// Time bounds: nothing before the first event, everything from it on.
	first := all[len(all)-1]["created_at"].(string)
	before, _, _ := e.client.listEventsPage(t, url.Values{"created_before": {first}})
	assert.Empty(t, before)
	from, _, _ := e.client.listEventsPage(t, url.Values{"created_after": {first}})
	assert.Len(t, from, 7)
}

func TestEventQueriesTheLogCannotReadAre400(t *testing.T) {
	e := newEnv(t)
	for name, value := range map[string]string{"cursor": "evt_not_a_cursor", "created_after": "yesterday", "limit": "0"} {
		res := e.client.do(http.MethodGet, api.OpListEvents().URL()+"?"+url.Values{name: {value}}.Encode(), nil)
		assert.Equal(t, http.StatusBadRequest, res.status, "%s=%s: %s", name, value, res.body)
		assert.Equal(t, []string{"query." + name}, res.fields(t), "%s=%s", name, value)
	}
}

// Every attempt is listed with its destination, the receiver's status, latency and the first KiB of
// its answer; a resend goes out again with the same webhook-id and is listed as a new delivery.
func TestAttemptsAreRecordedAndResendKeepsTheWebhookID(t *testing.T) {
	e := newEnv(t)
	answers := make(chan int, 10)
	answers <- http.StatusInternalServerError
	var got []http.Header
	gotCh := make(chan http.Header, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotCh <- r.Header.Clone()
		status := http.StatusOK
		select {
		case status = <-answers:
		default:
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(strings.Repeat("x", 2*MaxResponseBodyKept)))
	}))
	t.Cleanup(hook.Close)
	id := e.client.createPayout(with(mobilePayout(creditedWallet(t)), "webhook_url", hook.URL+"/h"))
	e.client.waitFinal(id)
	e.idle()
	items, _, _ := e.client.listEventsPage(t, url.Values{"object_id": {id}})
	require.Len(t, items, 1)
	evID := items[0]["id"].(string)

	attempts := func() []any {
		res := e.client.do(http.MethodGet, api.OpListEventAttempts().URL(evID), nil)
		require.Equal(t, http.StatusOK, res.status, "%s", res.body)
		return res.json(t)["data"].([]any)
	}
	as := attempts()
	require.Len(t, as, 2, "a 500, then the retry")
	a0, a1 := as[0].(map[string]any), as[1].(map[string]any)
	assert.EqualValues(t, 500, a0["status_code"])
	assert.Equal(t, false, a0["delivered"])
	assert.EqualValues(t, 1, a0["number"])
	assert.EqualValues(t, 2, a1["number"])
	assert.Equal(t, true, a1["delivered"])
	assert.Equal(t, strings.Repeat("x", MaxResponseBodyKept), a0["response_body"])
	assert.Equal(t, map[string]any{"kind": "webhook_url", "url": hook.URL + "/h"}, a0["destination"])
	assert.Contains(t, a0, "duration_ms")

	res := e.client.do(http.MethodPost, api.OpResendEvent().URL(evID), nil)
	require.Equal(t, http.StatusAccepted, res.status, "%s", res.body)
	assert.Len(t, res.data(t)["deliveries"], 1)
	e.idle()
	close(gotCh)
	for h := range gotCh {
		got = append(got, h)
	}
	require.Len(t, got, 3)
	assert.Equal(t, evID, got[2].Get(webhook.HeaderID), "a resend carries the event's id")
	as = attempts()
	require.Len(t, as, 3)
	assert.Equal(t, true, as[2].(map[string]any)["resend"])
	assert.EqualValues(t, 1, as[2].(map[string]any)["number"])
}

// A resend to one endpoint goes there whatever it subscribes to; an unknown endpoint, or another
// merchant's event, is 404.
func TestResendToOneEndpointAndIsolation(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t)
	id := e.client.createPayout(mobilePayout(creditedWallet(t)))
	e.client.waitFinal(id)
	e.idle()
	items, _, _ := e.client.listEventsPage(t, url.Values{"object_id": {id}})
	require.Len(t, items, 1)
	evID := items[0]["id"].(string)

	created := e.client.do(http.MethodPost, api.OpCreateWebhookEndpoint().URL(), map[string]any{"url": rc.url("/only"), "events": []string{"payment.failed"}})
	require.Equal(t, http.StatusCreated, created.status, "%s", created.body)
	endpointID := created.data(t)["id"].(string)

	res := e.client.do(http.MethodPost, api.OpResendEvent().URL(evID), map[string]any{"endpoint_id": endpointID})
	require.Equal(t, http.StatusAccepted, res.status, "%s", res.body)
	d := rc.waitFor(1, nil)[0]
	assert.Equal(t, evID, d.header.Get(webhook.HeaderID))
	verify(t, d, created.data(t)["secret"].(string))

	res = e.client.do(http.MethodPost, api.OpResendEvent().URL(evID), map[string]any{"endpoint_id": "we_0000000000000000"})
	assert.Equal(t, http.StatusNotFound, res.status)

	other := e.client.as(otherPublicKey, otherSecretKey)
	for _, path := range []string{api.OpGetEvent().URL(evID), api.OpListEventAttempts().URL(evID)} {
		assert.Equal(t, http.StatusNotFound, other.do(http.MethodGet, path, nil).status, path)
	}
	assert.Equal(t, http.StatusNotFound, other.do(http.MethodPost, api.OpResendEvent().URL(evID), nil).status)
	items, _, _ = other.listEventsPage(t, nil)
	assert.Empty(t, items, "another merchant's events are never listed")
	got := e.client.do(http.MethodGet, api.OpGetEvent().URL(evID), nil)
	require.Equal(t, http.StatusOK, got.status)
	assert.Equal(t, id, got.data(t)["object_id"])
	assert.WithinDuration(t, time.Now(), mustTime(t, got.data(t)["created_at"].(string)), time.Minute)
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return v
}
