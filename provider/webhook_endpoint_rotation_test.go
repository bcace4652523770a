package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

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

// rotationBodies records the body of every rotate-secret request the sandbox receives.
type rotationBodies struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (rb *rotationBodies) middleware(_ *sandbox.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == api.OpRotateWebhookEndpointSecret().Method && strings.HasSuffix(r.URL.Path, "/rotate-secret") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			m := map[string]any{}
			_ = json.Unmarshal(body, &m) // no body is an empty map
			rb.mu.Lock()
			rb.bodies = append(rb.bodies, m)
			rb.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

func (rb *rotationBodies) last() (map[string]any, int) {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if len(rb.bodies) == 0 {
		return nil, 0
	}
	return rb.bodies[len(rb.bodies)-1], len(rb.bodies)
}

// expectRotation checks the last rotation request: the n-th, with this grace period (nil: none sent).
func (rb *rotationBodies) expectRotation(n int, grace any) resource.TestCheckFunc {
	return func(*terraform.State) error {
		body, got := rb.last()
		if got != n {
			return fmt.Errorf("the sandbox received %d rotations, want %d", got, n)
		}
		if g, ok := body["grace_period_seconds"]; grace == nil && ok {
			return fmt.Errorf("the rotation sent grace_period_seconds = %v, want none (the service's default)", g)
		} else if grace != nil && g != grace {
			return fmt.Errorf("the rotation sent grace_period_seconds = %v, want %v", g, grace)
		}
		return nil
	}
}

// secret_grace_period_seconds goes with every rotation, generated or write-only: 0 after a leak ends the
// old secret at once (the API's contract), unset sends none, and a change
// of it alone rotates nothing.
func TestAccWebhookEndpointResource_rotationGracePeriod(t *testing.T) {
	rb := &rotationBodies{}
	sb := startSandbox(t, sandbox.WithHooks(sandbox.Hooks{Middleware: rb.middleware}))
	own := newWhsec(t, 32)
	config := func(secret, grace string) string {
		return sb.providerConfig() + `
resource "malipo_webhook_endpoint" "e" {
  url    = "https://merchant.example.org/hooks/grace"
  events = ["payout.success"]
  ` + secret + `
  ` + grace + `
}
`
	}
	const addr = "malipo_webhook_endpoint.e"
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			{
				Config:      config(`secret_rotation = "x"`, `secret_grace_period_seconds = 604801`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)secret_grace_period_seconds.*between 0 and 604800`),
			},
			{Config: config(`secret_rotation = "one"`, ``), Check: rb.expectRotation(0, nil)},
			{Config: config(`secret_rotation = "two"`, ``), Check: rb.expectRotation(1, nil)},
			{
				// A change of the grace period alone is an update that sends nothing.
				Config: config(`secret_rotation = "two"`, `secret_grace_period_seconds = 0`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("secret_grace_period_seconds"), knownvalue.Int64Exact(0)),
				}},
				Check: rb.expectRotation(1, nil),
			},
			{
				Config: config(`secret_rotation = "leaked"`, `secret_grace_period_seconds = 0`),
				Check:  rb.expectRotation(2, float64(0)),
			},
			{
				Config: config("secret_wo = \""+own+"\"\n  secret_wo_version = 1", `secret_grace_period_seconds = 3600`),
				Check:  rb.expectRotation(3, float64(3600)),
			},
		},
	})
}

// Destroying an endpoint with a secret of its own needs no secret: a plan that sends none checks none,
// so an empty or placeholder secret_wo (an ephemeral variable nobody set for the destroy) is fine.
func TestAccWebhookEndpointResource_destroyNeedsNoSecret(t *testing.T) {
	sb := startSandbox(t)
	config := func(secret string) string {
		return sb.providerConfig() + fmt.Sprintf(`
resource "malipo_webhook_endpoint" "e" {
  url               = "https://merchant.example.org/hooks/destroy"
  events            = ["payout.success"]
  secret_wo         = %q
  secret_wo_version = 1
}
`, secret)
	}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			{Config: config(newWhsec(t, 32))},
			// Nothing is sent while the version stays: a plan with a placeholder is empty.
			{Config: config("placeholder"), PlanOnly: true},
			{Config: config(""), Destroy: true, Check: sb.checkEndpointsDestroyed},
		},
	})
}
