package sandbox

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// bound reads a bound from the document, as the sandbox does.
func bound(t *testing.T, pointer string) int {
	t.Helper()
	n, err := testSpec(t).Bound(pointer)
	require.NoError(t, err)
	require.Positive(t, n, pointer)
	return n
}

// A merchant can have as many webhook endpoints as the list's maxItems and no more: the next create
// is 409 limit_reached and creates nothing; after a delete there is room again. Another merchant's
// endpoints do not count.
func TestWebhookEndpointsAreCappedPerMerchant(t *testing.T) {
	e := newEnv(t)
	limit := bound(t, boundEndpoints)
	create := func(c *client, i int) result {
		return c.do(http.MethodPost, api.OpCreateWebhookEndpoint().URL(), map[string]any{
			"url": fmt.Sprintf("https://merchant.example.org/hooks/%d", i), "events": []string{string(api.EventTypePayoutSuccess)}})
	}
	var first string
	for i := range limit {
		res := create(e.client, i)
		require.Equal(t, http.StatusCreated, res.status, "create %d of %d: %s", i+1, limit, res.body)
		if i == 0 {
			first = res.data(t)["id"].(string)
		}
	}
	res := create(e.client, limit)
	require.Equal(t, http.StatusConflict, res.status, "%s", res.body)
	assert.Equal(t, int(api.CodeLimitReached), res.code(t))
	list := e.client.do(http.MethodGet, api.OpListWebhookEndpoints().URL(), nil)
	require.Equal(t, http.StatusOK, list.status)
	assert.Len(t, list.json(t)["data"], limit, "the refused create made nothing")

	other := e.client.as(otherPublicKey, otherSecretKey)
	assert.Equal(t, http.StatusCreated, create(other, 0).status, "another merchant's endpoints do not count")

	require.Equal(t, http.StatusNoContent, e.client.do(http.MethodDelete, api.OpDeleteWebhookEndpoint().URL(first), nil).status)
	assert.Equal(t, http.StatusCreated, create(e.client, limit+1).status, "a delete makes room")
}

// Delivery failures in force are capped like endpoints; an expired or deleted one makes room.
func TestDeliveryFailuresAreCappedPerMerchant(t *testing.T) {
	e := newEnv(t)
	limit := bound(t, boundFailures)
	create := func(i int) result {
		return e.client.do(http.MethodPost, api.OpCreateSandboxDeliveryFailure().URL(),
			map[string]any{"url": fmt.Sprintf("https://merchant.example.org/down/%d", i)})
	}
	var first string
	for i := range limit {
		res := create(i)
		require.Equal(t, http.StatusCreated, res.status, "%s", res.body)
		if i == 0 {
			first = res.data(t)["id"].(string)
		}
	}
	res := create(limit)
	require.Equal(t, http.StatusConflict, res.status, "%s", res.body)
	assert.Equal(t, int(api.CodeLimitReached), res.code(t))
	require.Equal(t, http.StatusNoContent, e.client.do(http.MethodDelete, api.OpDeleteSandboxDeliveryFailure().URL(first), nil).status)
	assert.Equal(t, http.StatusCreated, create(limit+1).status)
}

// An error envelope stays within the document's bounds whatever the request held: a body with more
// unknown members than errors' maxItems, each named longer than a field's maxLength, is answered with
// the first field errors only, each cut (the client validates the answer against the document too).
func TestErrorEnvelopeStaysWithinItsBounds(t *testing.T) {
	e := newEnv(t)
	maxErrors, maxField := bound(t, boundFieldErrors), bound(t, boundField)
	body := map[string]any{"url": "https://merchant.example.org/hooks", "events": []string{string(api.EventTypePayoutSuccess)}}
	for i := range maxErrors + 20 {
		body[fmt.Sprintf("%s%03d", strings.Repeat("é", maxField), i)] = true
	}
	res := e.client.do(http.MethodPost, api.OpCreateWebhookEndpoint().URL(), body)
	require.Equal(t, http.StatusBadRequest, res.status, "%.300s", res.body)
	fields := res.fields(t)
	require.Len(t, fields, maxErrors)
	for _, f := range fields {
		require.LessOrEqual(t, utf8.RuneCountInString(f), maxField)
		require.True(t, utf8.ValidString(f), "cut between characters: %q", f)
	}
}

func TestClipCountsCharacters(t *testing.T) {
	assert.Equal(t, "ab", clip("ab", 2))
	assert.Equal(t, "éé", clip("ééé", 2), "two characters, four bytes")
	assert.Empty(t, clip("x", 0))
}

// An event's attempts list shows its most recent ones, up to the list's maxItems, oldest first.
func TestAttemptsListTheMostRecent(t *testing.T) {
	e := newEnv(t)
	limit := bound(t, boundAttempts)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hook.Close)
	id := e.client.createPayout(with(mobilePayout(creditedWallet(t)), "webhook_url", hook.URL+"/h"))
	e.client.waitFinal(id)
	e.idle()
	items, _, _ := e.client.listEventsPage(t, map[string][]string{"object_id": {id}})
	require.Len(t, items, 1)
	evID := items[0]["id"].(string)
	for range limit + 5 { // the first delivery and limit+5 resends: 6 more attempts than are listed
		require.Equal(t, http.StatusAccepted, e.client.do(http.MethodPost, api.OpResendEvent().URL(evID), nil).status)
	}
	e.idle()
	res := e.client.do(http.MethodGet, api.OpListEventAttempts().URL(evID), nil)
	require.Equal(t, http.StatusOK, res.status)
	as := res.json(t)["data"].([]any)
	require.Len(t, as, limit)
	for _, a := range as {
		assert.Equal(t, true, a.(map[string]any)["resend"], "the first delivery is the oldest attempt, no longer listed")
	}
}
