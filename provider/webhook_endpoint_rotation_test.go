package provider

import (
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// A rotation that fails keeps the old secret_rotation in state, so that the error's advice ("run
// apply again to retry the rotation") is true: the next plan asks for the rotation again.
func TestAccWebhookEndpointResource_failedRotationIsPlannedAgain(t *testing.T) {
	var failRotations atomic.Bool
	sb := startSandbox(t, sandbox.WithHooks(sandbox.Hooks{
		Middleware: func(_ *sandbox.Server, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if failRotations.Load() && r.Method == api.OpRotateWebhookEndpointSecret().Method && strings.HasSuffix(r.URL.Path, "/rotate-secret") {
					http.Error(w, "rotation unavailable", http.StatusServiceUnavailable)
					return
				}
				next.ServeHTTP(w, r)
			})
		},
	}))
	config := func(rotation string) string {
		return sb.providerConfig() + `
resource "malipo_webhook_endpoint" "e" {
  url             = "https://merchant.example.org/hooks/rotation"
  events          = ["payout.success"]
  secret_rotation = "` + rotation + `"
}
`
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			{Config: config("one")},
			{
				PreConfig:   func() { failRotations.Store(true) },
				Config:      config("two"),
				ExpectError: regexp.MustCompile(`Unable to Rotate Webhook Endpoint Secret`),
			},
			{
				PreConfig: func() { failRotations.Store(false) },
				Config:    config("two"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("malipo_webhook_endpoint.e", plancheck.ResourceActionUpdate)},
				},
			},
			{Config: config("two"), PlanOnly: true},
		},
	})
}
