package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

const endpointAddr = "malipo_webhook_endpoint.test"

var (
	endpointIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)
	whsecPattern      = regexp.MustCompile(`^whsec_`)
	timestampPattern  = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
)

// checkEndpointsDestroyed is a CheckDestroy: every endpoint of the state is gone from the sandbox.
func (s *testSandbox) checkEndpointsDestroyed(st *terraform.State) error {
	for _, rs := range st.RootModule().Resources {
		if rs.Type != "malipo_webhook_endpoint" {
			continue
		}
		if _, ok := s.srv.WebhookEndpoint(sandbox.DefaultPublicKey, rs.Primary.Attributes["id"]); ok {
			return fmt.Errorf("webhook endpoint %s still exists after destroy", rs.Primary.Attributes["id"])
		}
	}
	return nil
}

// Create, import, update in place (never replace), rotate the secret in place, destroy.
func TestAccWebhookEndpointResource_lifecycle(t *testing.T) {
	sb := startSandbox(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	secretChanges := statecheck.CompareValue(compare.ValuesDiffer())
	sameSecretDuringUpdate := statecheck.CompareValue(compare.ValuesSame())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			{
				Config: sb.providerConfig() + `
resource "malipo_webhook_endpoint" "test" {
  url         = "https://merchant.example.org/hooks/payouts"
  events      = ["payout.success", "payout.failed"]
  description = "Finance team payout notifications"
}`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionCreate),
						plancheck.ExpectUnknownValue(endpointAddr, tfjsonpath.New("secret")),
						plancheck.ExpectSensitiveValue(endpointAddr, tfjsonpath.New("secret")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("url"), knownvalue.StringExact("https://merchant.example.org/hooks/payouts")),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("events"), knownvalue.SetExact([]knownvalue.Check{
						knownvalue.StringExact("payout.success"), knownvalue.StringExact("payout.failed")})),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("description"), knownvalue.StringExact("Finance team payout notifications")),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("enabled"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("id"), knownvalue.StringRegexp(endpointIDPattern)),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("created_at"), knownvalue.StringRegexp(timestampPattern)),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.StringRegexp(whsecPattern)),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret_rotation"), knownvalue.Null()),
					statecheck.ExpectSensitiveValue(endpointAddr, tfjsonpath.New("secret")),
					sameID.AddStateValue(endpointAddr, tfjsonpath.New("id")),
					secretChanges.AddStateValue(endpointAddr, tfjsonpath.New("secret")),
					sameSecretDuringUpdate.AddStateValue(endpointAddr, tfjsonpath.New("secret")),
				},
			},
			{
				// Import by id: everything but the secret, which the API never returns again.
				ResourceName:            endpointAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"secret"},
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 {
						return fmt.Errorf("imported %d instances, want 1", len(states))
					}
					if s, ok := states[0].Attributes["secret"]; ok && s != "" {
						return fmt.Errorf("an imported endpoint must not have a secret (the API cannot return it), got one")
					}
					return nil
				},
			},
			{
				// url, events, description and enabled change in place; id and secret stay.
				Config: sb.providerConfig() + `
resource "malipo_webhook_endpoint" "test" {
  url     = "https://merchant.example.org/hooks/all"
  events  = ["payment.success", "payout.success"]
  enabled = false
}`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("id"), knownvalue.StringRegexp(endpointIDPattern)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("url"), knownvalue.StringExact("https://merchant.example.org/hooks/all")),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("events"), knownvalue.SetExact([]knownvalue.Check{
						knownvalue.StringExact("payment.success"), knownvalue.StringExact("payout.success")})),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("description"), knownvalue.Null()),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("enabled"), knownvalue.Bool(false)),
					sameID.AddStateValue(endpointAddr, tfjsonpath.New("id")),
					sameSecretDuringUpdate.AddStateValue(endpointAddr, tfjsonpath.New("secret")),
				},
				Check: func(st *terraform.State) error {
					id := st.RootModule().Resources[endpointAddr].Primary.Attributes["id"]
					e, ok := sb.srv.WebhookEndpoint(sandbox.DefaultPublicKey, id)
					switch {
					case !ok:
						return fmt.Errorf("endpoint %s is gone from the sandbox", id)
					case e.URL != "https://merchant.example.org/hooks/all" || e.Enabled || e.Description != nil:
						return fmt.Errorf("the sandbox did not get the update: %+v", e)
					}
					return nil
				},
			},
			{
				// A new secret_rotation value rotates the secret in place.
				Config: sb.providerConfig() + `
resource "malipo_webhook_endpoint" "test" {
  url             = "https://merchant.example.org/hooks/all"
  events          = ["payment.success", "payout.success"]
  enabled         = false
  secret_rotation = "2026-11"
}`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(endpointAddr, tfjsonpath.New("secret")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.StringRegexp(whsecPattern)),
					statecheck.ExpectSensitiveValue(endpointAddr, tfjsonpath.New("secret")),
					sameID.AddStateValue(endpointAddr, tfjsonpath.New("id")),
					secretChanges.AddStateValue(endpointAddr, tfjsonpath.New("secret")),
				},
			},
		},
	})
}

// An endpoint deleted outside Terraform is removed from state on refresh and created again.
func TestAccWebhookEndpointResource_deletedOutOfBand(t *testing.T) {
	sb := startSandbox(t)
	config := sb.providerConfig() + `
resource "malipo_webhook_endpoint" "test" {
  url    = "https://merchant.example.org/hooks/payouts"
  events = ["payout.failed"]
}`
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					newID.AddStateValue(endpointAddr, tfjsonpath.New("id")),
				},
			},
			{
				PreConfig: func() {
					c := sb.client(t)
					list, err := c.ListWebhookEndpoints(t.Context())
					require.NoError(t, err)
					require.Len(t, list, 1)
					require.NoError(t, c.DeleteWebhookEndpoint(t.Context(), list[0].ID))
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					newID.AddStateValue(endpointAddr, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.StringRegexp(whsecPattern)),
				},
			},
		},
	})
}

// Bad input fails at plan time with an error that names the attribute; nothing is created.
func TestAccWebhookEndpointResource_invalidInput(t *testing.T) {
	sb := startSandbox(t)
	step := func(body string, want string) resource.TestStep {
		return resource.TestStep{
			Config:      sb.providerConfig() + "resource \"malipo_webhook_endpoint\" \"test\" {\n" + body + "\n}",
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			// A type the provider does not know is a warning (TestEventTypesAreOpen); one that is not
			// an event type at all is an error.
			step(`url = "https://merchant.example.org/h"
			      events = ["Payout Sent"]`, `(?s)Attribute events\[Value\("Payout Sent"\)\].*must be an event type`),
			step(`url = "https://merchant.example.org/h"
			      events = []`, `(?s)Attribute events set must contain at least 1`),
			step(`url = "merchant.example.org/h"
			      events = ["payout.failed"]`, `(?s)Attribute url must be an absolute http or https URL`),
			step(`url = "https://merchant.example.org/h"
			      events = ["payout.failed"]
			      description = ""`, `(?s)Attribute description string length must be between 1 and 255`),
		},
	})
}

// An endpoint made outside Terraform is imported without its secret (null in state, not shown as a
// change); a configured secret_rotation then rotates it in place and Terraform knows the new secret.
func TestAccWebhookEndpointResource_importThenRotate(t *testing.T) {
	sb := startSandbox(t)
	created, err := sb.client(t).CreateWebhookEndpoint(t.Context(), client.WebhookEndpointCreateRequest{
		URL: "https://merchant.example.org/hooks/legacy", Events: []client.EventType{api.EventTypePayoutFailed}})
	require.NoError(t, err)
	config := sb.providerConfig() + `
resource "malipo_webhook_endpoint" "test" {
  url             = "https://merchant.example.org/hooks/legacy"
  events          = ["payout.failed"]
  secret_rotation = "after-import"
}`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			{
				Config:             config,
				ResourceName:       endpointAddr,
				ImportState:        true,
				ImportStateId:      created.ID,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if s := states[0].Attributes["secret"]; s != "" {
						return fmt.Errorf("imported secret = %q, want none", s)
					}
					return nil
				},
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(endpointAddr, tfjsonpath.New("secret")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("id"), knownvalue.StringExact(created.ID)),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.StringRegexp(whsecPattern)),
				},
				Check: func(*terraform.State) error {
					if _, ok := sb.srv.WebhookEndpoint(sandbox.DefaultPublicKey, created.ID); !ok {
						return fmt.Errorf("the imported endpoint was replaced instead of rotated in place")
					}
					return nil
				},
			},
		},
	})
}
