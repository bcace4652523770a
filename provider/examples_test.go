package provider

import (
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// The documented examples (rendered into docs/ by tfplugindocs) are run as they are, against the
// sandbox: what the docs show applies. Only the ids in import examples, which a sandbox cannot have,
// are replaced by those of the objects the test made.

// example reads a file of examples/resources/<resource>/, with each old string replaced by the new.
func example(t *testing.T, resourceType, file string, replace ...string) string {
	t.Helper()
	b, err := os.ReadFile("../examples/resources/" + resourceType + "/" + file)
	require.NoError(t, err)
	return strings.NewReplacer(replace...).Replace(string(b))
}

// A payout made before Terraform is adopted with the import block of the docs next to the resource
// example: the plan imports it and sends no new payout (its reference, webhook_url and every other
// input are read back and match; the idempotency key is only recorded), and creates the two others.
func TestAccExamples_payoutImportByStringID(t *testing.T) {
	sb := startSandbox(t)
	existing, err := sb.client(t).ProcessPayout(t.Context(), client.BankPayout{Amount: 2500, CountryID: "ctry_zm",
		BankID: "bank_zm_zanaco", AccountNumber: testValues(t).bankOK.AccountNumber, Narration: "Supplier invoice 88", Reference: "inv-88",
		WebhookURL: "https://merchant.example.org/hooks/payouts"})
	require.NoError(t, err)
	const addr = "malipo_payout.supplier_invoice_88"
	config := sb.providerConfig() + example(t, "malipo_payout", "resource.tf") +
		example(t, "malipo_payout", "import-by-string-id.tf", "po_5d1e7b3c2a9f8e40", existing.PayoutID)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(3),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("malipo_payout.agent_commission", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("malipo_payout.float_top_up", plancheck.ResourceActionCreate),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("payout_id"), knownvalue.StringExact(existing.PayoutID)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("reference"), knownvalue.StringExact("inv-88")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("idempotency_key"), knownvalue.StringExact("supplier-invoice-88")),
			},
		}},
	})
}

// A webhook endpoint made before Terraform is adopted with the import block of the docs next to the
// resource example: imported, then given the configured secret of its own (the example's secret_wo and
// secret_wo_version), in place; the other example endpoint is created with its enabled setting.
func TestAccExamples_webhookEndpointImportByStringID(t *testing.T) {
	t.Setenv("TF_VAR_payouts_webhook_secret", newWhsec(t, 32))
	sb := startSandbox(t)
	existing := createEndpoints(t, sb, client.WebhookEndpointCreateRequest{URL: "https://merchant.example.org/hooks/payouts",
		Events: []client.EventType{api.EventTypePayoutSuccess, api.EventTypePayoutFailed}, Description: ptr("Finance team payout notifications")})
	const addr = "malipo_webhook_endpoint.payouts"
	config := sb.providerConfig() + example(t, "malipo_webhook_endpoint", "resource.tf") +
		example(t, "malipo_webhook_endpoint", "import-by-string-id.tf", "we_4c1f9a2b7d3e8f60", existing[0].ID)
	resource.Test(t, resource.TestCase{ // not parallel: t.Setenv
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("malipo_webhook_endpoint.ledger", plancheck.ResourceActionCreate),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(existing[0].ID)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("secret"), knownvalue.Null()),
				statecheck.ExpectKnownValue("malipo_webhook_endpoint.ledger", tfjsonpath.New("enabled"), knownvalue.Bool(true)),
			},
		}},
	})
}

// The example module's own terraform test (examples/modules/payout-batch), run as a user runs it, with
// the engine under test, against a sandbox: the module pays a batch, its outputs say so, and a
// fraction fails the plan through the module's validation.
func TestAccExampleModule_terraformTest(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make testacc) to run it")
	}
	sb := startSandbox(t)
	r := newEngineRunner(t)
	// The provider runs in this process, so it reads the keys from this process's environment: the
	// test is not parallel.
	t.Setenv(EnvBaseURL, sb.url)
	t.Setenv(EnvPublicKey, sandbox.DefaultPublicKey)
	t.Setenv(EnvSecretKey, sandbox.DefaultSecretKey)
	dir := t.TempDir() // a copy, so that the test leaves no .terraform in the repository
	require.NoError(t, os.CopyFS(dir, os.DirFS("../examples/modules/payout-batch")))
	r.run(t, dir, "init")
	out := r.run(t, dir, "test")
	t.Logf("%s", out)
	require.Regexp(t, `Success! 3 passed, 0 failed`, out)
	require.Len(t, sb.srv.Payouts(sandbox.DefaultPublicKey), 2, "the batch paid each payout once")
}
