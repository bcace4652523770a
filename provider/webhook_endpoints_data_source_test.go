package provider

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// createEndpoints creates the endpoints through the API, as a merchant's earlier tooling would have,
// and returns them as the API now lists them (the secrets are dropped: nothing here needs them).
func createEndpoints(t *testing.T, sb *testSandbox, reqs ...client.WebhookEndpointCreateRequest) []client.WebhookEndpoint {
	t.Helper()
	c := sb.client(t)
	for _, r := range reqs {
		_, err := c.CreateWebhookEndpoint(t.Context(), r)
		require.NoError(t, err)
	}
	listed, err := c.ListWebhookEndpoints(t.Context())
	require.NoError(t, err)
	require.Len(t, listed, len(reqs))
	return listed
}

func ptr[T any](v T) *T { return &v }

// endpointCheck is the exact object the data source shows for e: every attribute, no secret.
func endpointCheck(e client.WebhookEndpoint) knownvalue.Check {
	attrs := endpointAttrChecks(e)
	attrs["updated_at"] = knownvalue.StringExact(e.UpdatedAt.UTC().Format(time.RFC3339))
	return knownvalue.ObjectExact(attrs)
}

// endpointsAre checks that data.malipo_webhook_endpoints.<name> lists exactly these endpoints, in order.
func endpointsAre(name string, want ...client.WebhookEndpoint) statecheck.StateCheck {
	checks := make([]knownvalue.Check, len(want))
	for i, e := range want {
		checks[i] = endpointCheck(e)
	}
	return statecheck.ExpectKnownValue("data.malipo_webhook_endpoints."+name, tfjsonpath.New("endpoints"), knownvalue.ListExact(checks))
}

// malipo_webhook_endpoints lists every endpoint of the merchant, oldest first; each filter keeps the
// endpoints it names and drops the others, filters combine, and no match is an empty list. Mistyped
// filters fail at plan time.
func TestAccWebhookEndpointsDataSource(t *testing.T) {
	sb := startSandbox(t)
	eps := createEndpoints(t, sb,
		client.WebhookEndpointCreateRequest{URL: "https://payments.example.org/hooks/payouts",
			Events:      []client.EventType{api.EventTypePayoutSuccess, api.EventTypePayoutFailed},
			Description: ptr("Finance team payout notifications")},
		client.WebhookEndpointCreateRequest{URL: "https://payments.example.org/hooks/payments",
			Events: []client.EventType{api.EventTypePaymentSuccess}, Enabled: ptr(false)},
		client.WebhookEndpointCreateRequest{URL: "https://ops.example.org/hooks/all", Events: api.EventTypeValues()},
	)
	payouts, payments, ops := eps[0], eps[1], eps[2]

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      sb.providerConfig() + `data "malipo_webhook_endpoints" "x" { event = "payout.sent" }`,
				ExpectError: regexp.MustCompile(`Attribute event value must be one of`),
			},
			{
				Config:      sb.providerConfig() + `data "malipo_webhook_endpoints" "x" { url_prefix = "payments.example.org/" }`,
				ExpectError: regexp.MustCompile(`Attribute url_prefix must be the start of an http or https URL`),
			},
			{
				Config: sb.providerConfig() + `
data "malipo_webhook_endpoints" "x" {
  url        = "https://ops.example.org/hooks/all"
  url_prefix = "https://ops.example.org/"
}`,
				ExpectError: regexp.MustCompile(`(?s)Attribute "url_prefix" cannot be specified when "url" is specified`),
			},
			{
				Config: sb.providerConfig() + `
data "malipo_webhook_endpoints" "all" {}

data "malipo_webhook_endpoints" "payments_host" {
  url_prefix = "https://payments.example.org/"
}

data "malipo_webhook_endpoints" "exact" {
  url = "https://ops.example.org/hooks/all"
}

data "malipo_webhook_endpoints" "exact_is_not_prefix" {
  url = "https://ops.example.org/hooks"
}

data "malipo_webhook_endpoints" "payout_failed" {
  event = "payout.failed"
}

data "malipo_webhook_endpoints" "paused" {
  enabled = false
}

data "malipo_webhook_endpoints" "delivering_payments" {
  url_prefix = "https://payments.example.org/"
  event      = "payment.success"
  enabled    = true
}

data "malipo_webhook_endpoints" "nothing" {
  url_prefix = "https://elsewhere.example.org/"
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					endpointsAre("all", payouts, payments, ops),
					endpointsAre("payments_host", payouts, payments),
					endpointsAre("exact", ops),
					endpointsAre("exact_is_not_prefix"),
					endpointsAre("payout_failed", payouts, ops),
					endpointsAre("paused", payments),
					endpointsAre("delivering_payments"),
					endpointsAre("nothing"),
				},
			},
		},
	})
}

// A service without the optional webhook-endpoint operations answers 404; the error says so and what
// to do, rather than only "not found".
func TestAccWebhookEndpointsDataSource_serviceWithoutEndpoints(t *testing.T) {
	listURL := api.OpListWebhookEndpoints().URL()
	sb := startSandbox(t, sandbox.WithHooks(sandbox.Hooks{
		Middleware: func(_ *sandbox.Server, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && r.URL.Path == listURL {
					// Route the list where no operation is, so the sandbox answers its own 404.
					r = r.Clone(r.Context())
					r.URL.Path += "-not-offered"
				}
				next.ServeHTTP(w, r)
			})
		},
	}))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      sb.providerConfig() + `data "malipo_webhook_endpoints" "all" {}`,
			ExpectError: regexp.MustCompile(`(?s)Unable to List Webhook Endpoints.*does not offer webhook endpoints`),
		}},
	})
}

func TestEndpointFilterMatches(t *testing.T) {
	e := &client.WebhookEndpoint{URL: "https://payments.example.org/hooks/payouts",
		Events: []client.EventType{api.EventTypePayoutSuccess}, Enabled: true}
	tests := []struct {
		name   string
		filter endpointFilter
		want   bool
	}{
		{"no filter", endpointFilter{}, true},
		{"exact url", endpointFilter{url: ptr(e.URL)}, true},
		{"exact url is not a prefix", endpointFilter{url: ptr("https://payments.example.org/hooks")}, false},
		{"url compares case", endpointFilter{url: ptr("https://PAYMENTS.example.org/hooks/payouts")}, false},
		{"prefix", endpointFilter{urlPrefix: ptr("https://payments.example.org/")}, true},
		{"other prefix", endpointFilter{urlPrefix: ptr("http://payments.example.org/")}, false},
		{"subscribed event", endpointFilter{event: ptr(string(api.EventTypePayoutSuccess))}, true},
		{"event not subscribed", endpointFilter{event: ptr(string(api.EventTypePayoutFailed))}, false},
		{"enabled", endpointFilter{enabled: ptr(true)}, true},
		{"paused only", endpointFilter{enabled: ptr(false)}, false},
		{"all match", endpointFilter{urlPrefix: ptr("https://"), event: ptr(string(api.EventTypePayoutSuccess)), enabled: ptr(true)}, true},
		{"one of several fails", endpointFilter{urlPrefix: ptr("https://"), event: ptr(string(api.EventTypePayoutFailed)), enabled: ptr(true)}, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.filter.matches(e), tt.name)
	}
}
