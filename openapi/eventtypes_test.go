package openapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The Events tag promises new event types without a new API version. The page every generated
// client decodes in `make interop` (tools/interop/unknown-event-page.json, served by fake-events.mjs),
// which holds two types this version does not declare, is a valid listEvents answer; what a client
// sends (a subscription) stays the declared types.
func TestAnEventPageWithUnknownTypesIsValid(t *testing.T) {
	page, err := os.ReadFile("../tools/interop/unknown-event-page.json")
	require.NoError(t, err)
	require.Contains(t, string(page), `"type": "refund.succeeded"`, "the page holds a type the document does not declare")
	for _, e := range api.EventTypeValues() {
		require.NotContains(t, []string{"refund.succeeded", "payout.reversed"}, string(e), "the page's new types are new")
	}
	spec, err := openapi.Default()
	require.NoError(t, err)
	validate := func(body string) openapi.Violations {
		r := httptest.NewRequest(http.MethodGet, api.OpListEvents().URL(), nil)
		resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body))}
		return spec.ValidateResponse(r, resp)
	}
	assert.Empty(t, validate(string(page)))
	// An event type is still `<object>.<change>`: the check can fail.
	assert.NotEmpty(t, validate(strings.Replace(string(page), `"type": "refund.succeeded"`, `"type": "Refund Succeeded"`, 1)))

	r := httptest.NewRequest(http.MethodPost, api.OpCreateWebhookEndpoint().URL(),
		strings.NewReader(`{"url":"https://merchant.example.org/hooks/x","events":["refund.succeeded"]}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(api.HeaderPublicKey, "pk_test_x")
	r.Header.Set(api.HeaderSecretKey, "sk_test_x")
	vs := spec.ValidateRequest(r)
	require.NotEmpty(t, vs, "a subscription names the types this version declares")
	assert.Contains(t, vs.Error(), "/events/0")
}
