package provider

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// --- Resource identity (Terraform 1.12 or later) ---------------------------------------------------

// Both resources store their identity, and import by it: the harness's import block with identity, and
// the documented examples (import-by-identity.tf), run as they are next to the resource examples.
func TestAccIdentity_webhookEndpoint(t *testing.T) {
	needs(t, featureIdentity)
	sb := startSandbox(t)
	const addr = "malipo_webhook_endpoint.e"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			{
				Config: sb.providerConfig() + `
resource "malipo_webhook_endpoint" "e" {
  url    = "https://merchant.example.org/hooks/identity"
  events = ["payout.failed"]
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity(addr, map[string]knownvalue.Check{"id": knownvalue.StringRegexp(objectPattern)}),
					statecheck.ExpectIdentityValueMatchesState(addr, tfjsonpath.New("id")),
				},
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateKind:         resource.ImportBlockWithResourceIdentity,
				ImportStateVerifyIgnore: []string{"secret"},
			},
		},
	})
}

func TestAccIdentity_payout(t *testing.T) {
	needs(t, featureIdentity)
	sb := startSandbox(t)
	tv := testValues(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(1),
		Steps: []resource.TestStep{
			{
				Config: sb.providerConfig() + bankPayout(tv.bankOK.AccountNumber, 2500),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity(payoutAddr, map[string]knownvalue.Check{"payout_id": knownvalue.StringRegexp(objectPattern)}),
					statecheck.ExpectIdentityValueMatchesState(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
			{
				ResourceName:    payoutAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
		},
	})
}

// The documented import-by-identity examples adopt a payout and an endpoint made outside Terraform.
func TestAccExamples_importByIdentity(t *testing.T) {
	needs(t, featureIdentity)
	sb := startSandbox(t)
	existing, err := sb.client(t).ProcessPayout(t.Context(), client.BankPayout{Amount: 2500, CountryID: "ctry_zm",
		BankID: "bank_zm_zanaco", AccountNumber: testValues(t).bankOK.AccountNumber, Narration: "Supplier invoice 88", Reference: "inv-88",
		WebhookURL: "https://merchant.example.org/hooks/payouts"})
	require.NoError(t, err)
	endpoint := createEndpoints(t, sb, client.WebhookEndpointCreateRequest{URL: "https://merchant.example.org/hooks/ledger",
		Events: []client.EventType{api.EventTypePayoutSuccess}})[0]
	const payout, ledger = "malipo_payout.supplier_invoice_88", "malipo_webhook_endpoint.ledger"
	// The endpoint example's write-only endpoint needs an ephemeral variable; its ledger endpoint is the
	// one adopted here (the example's id replaced, and its target).
	ledgerOnly := strings.SplitN(example(t, "malipo_webhook_endpoint", "resource.tf"), "# Or a secret the API generates", 2)[1]
	config := sb.providerConfig() + example(t, "malipo_payout", "resource.tf") +
		example(t, "malipo_payout", "import-by-identity.tf", "po_5d1e7b3c2a9f8e40", existing.PayoutID) +
		"# " + ledgerOnly +
		example(t, "malipo_webhook_endpoint", "import-by-identity.tf", "we_4c1f9a2b7d3e8f60", endpoint.ID,
			"malipo_webhook_endpoint.payouts", ledger)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(3),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(payout, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(ledger, plancheck.ResourceActionUpdate), // the rotation of the example
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity(payout, map[string]knownvalue.Check{"payout_id": knownvalue.StringExact(existing.PayoutID)}),
				statecheck.ExpectIdentity(ledger, map[string]knownvalue.Check{"id": knownvalue.StringExact(endpoint.ID)}),
			},
		}},
	})
}

// --- List resources (terraform query, Terraform 1.14 or later) -------------------------------------

// The webhook endpoint list resource finds endpoints made outside Terraform, filtered as the data
// source filters, with their settings and no secret.
func TestAccListResource_webhookEndpoints(t *testing.T) {
	needs(t, featureQuery)
	sb := startSandbox(t)
	made := createEndpoints(t, sb,
		client.WebhookEndpointCreateRequest{URL: "https://payments.example.org/hooks/a", Events: []client.EventType{api.EventTypePaymentSuccess}},
		client.WebhookEndpointCreateRequest{URL: "https://payments.example.org/hooks/b", Events: []client.EventType{api.EventTypePayoutFailed},
			Enabled: ptr(false), Description: ptr("Paused")},
		client.WebhookEndpointCreateRequest{URL: "https://ops.example.org/hooks", Events: []client.EventType{api.EventTypePayoutFailed}},
	)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: sb.providerConfig()},
			{
				Query: true,
				Config: `
list "malipo_webhook_endpoint" "payments" {
  provider         = malipo
  include_resource = true
  config {
    url_prefix = "https://payments.example.org/"
  }
}

list "malipo_webhook_endpoint" "paused" {
  provider = malipo
  config {
    enabled = false
  }
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("malipo_webhook_endpoint.payments", 2),
					querycheck.ExpectIdentity("malipo_webhook_endpoint.payments", map[string]knownvalue.Check{"id": knownvalue.StringExact(made[0].ID)}),
					querycheck.ExpectIdentity("malipo_webhook_endpoint.payments", map[string]knownvalue.Check{"id": knownvalue.StringExact(made[1].ID)}),
					querycheck.ExpectLength("malipo_webhook_endpoint.paused", 1),
					querycheck.ExpectIdentity("malipo_webhook_endpoint.paused", map[string]knownvalue.Check{"id": knownvalue.StringExact(made[1].ID)}),
				},
			},
		},
	})
}

// The payout list resource finds finished payouts through the event log, each once, filtered by status.
func TestAccListResource_payouts(t *testing.T) {
	needs(t, featureQuery)
	sb := startSandbox(t)
	tv := testValues(t)
	c := sb.client(t)
	ok, err := c.ProcessPayout(t.Context(), client.BankPayout{Amount: 2500, CountryID: "ctry_zm", BankID: "bank_zm_zanaco",
		AccountNumber: tv.bankOK.AccountNumber, Reference: "inv-90"})
	require.NoError(t, err)
	failed, err := c.ProcessPayout(t.Context(), client.BankPayout{Amount: 40, CountryID: "ctry_zm", BankID: "bank_zm_zanaco",
		AccountNumber: tv.bankFailed.AccountNumber})
	require.NoError(t, err)
	waitForEvents(t, c, 2)
	// The documented example: the payouts that failed since November 2026 (the sandbox's clock is now).
	payoutQuery, err := os.ReadFile("../examples/list-resources/malipo_payout/list-resource.tfquery.hcl")
	require.NoError(t, err)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: sb.providerConfig()},
			{
				Query: true,
				Config: `
list "malipo_payout" "all" {
  provider         = malipo
  include_resource = true
}

` + string(payoutQuery),
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("malipo_payout.all", 2),
					querycheck.ExpectIdentity("malipo_payout.all", map[string]knownvalue.Check{"payout_id": knownvalue.StringExact(ok.PayoutID)}),
					querycheck.ExpectIdentity("malipo_payout.all", map[string]knownvalue.Check{"payout_id": knownvalue.StringExact(failed.PayoutID)}),
					querycheck.ExpectLength("malipo_payout.failed", 1),
					querycheck.ExpectIdentity("malipo_payout.failed", map[string]knownvalue.Check{"payout_id": knownvalue.StringExact(failed.PayoutID)}),
				},
			},
		},
	})
}

// waitForEvents waits until the sandbox's event log holds n payout events (payouts settle after 20 ms).
func waitForEvents(t *testing.T, c *client.Client, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		page, err := c.ListEvents(t.Context(), client.ListEventsParams{})
		return err == nil && len(page.Items) >= n
	}, 10*time.Second, 20*time.Millisecond, "the sandbox's event log did not reach %d events", n)
}

// terraform query -generate-config-out writes, for each endpoint found, an import block by identity and
// a resource block with its settings; planning that configuration imports every endpoint and changes
// nothing, and after the apply the next plan is empty: adoption without a data source or for_each.
func TestAccListResource_generateConfigOut(t *testing.T) {
	needs(t, featureQuery)
	sb := startSandbox(t)
	made := createEndpoints(t, sb,
		client.WebhookEndpointCreateRequest{URL: "https://payments.example.org/hooks/payouts",
			Events: []client.EventType{api.EventTypePayoutSuccess, api.EventTypePayoutFailed}, Description: ptr("Finance")},
		client.WebhookEndpointCreateRequest{URL: "https://payments.example.org/hooks/payments",
			Events: []client.EventType{api.EventTypePaymentSuccess}, Enabled: ptr(false)},
	)
	tv := testValues(t)
	po, err := sb.client(t).ProcessPayout(t.Context(), client.MobilePayout{Amount: 120, CountryID: "ctry_zm",
		MomoPhoneNumber: tv.mobileOK.MomoPhoneNumber, Narration: "Agent commission", Reference: "agent-7"})
	require.NoError(t, err)
	waitForEvents(t, sb.client(t), 1)

	r := newEngineRunner(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredProviders+sb.providerConfig()), 0o600))
	query, err := os.ReadFile("../examples/list-resources/malipo_webhook_endpoint/list-resource.tfquery.hcl")
	require.NoError(t, err)
	payouts := "\nlist \"malipo_payout\" \"all\" {\n  provider         = malipo\n  include_resource = true\n}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "adopt.tfquery.hcl"), append(query, payouts...), 0o600))
	r.run(t, dir, "init")
	out := r.run(t, dir, "query", "-generate-config-out=adopted.tf")
	for _, e := range made {
		assert.Contains(t, out, e.URL, "terraform query lists the endpoint")
	}
	assert.Contains(t, out, "agent-7 ("+po.PayoutID+"): 120 ZMW, success", "terraform query lists the payout by reference")
	generated, err := os.ReadFile(filepath.Join(dir, "adopted.tf"))
	require.NoError(t, err)
	t.Logf("generated configuration:\n%s", generated)
	for _, id := range []string{made[0].ID, made[1].ID, po.PayoutID} {
		assert.Regexp(t, `(?s)import \{.*identity = \{.*"`+regexp.QuoteMeta(id)+`"`, string(generated))
	}
	assert.NotContains(t, string(generated), "whsec_", "no secret is generated")

	plan := r.run(t, dir, "plan", "-out=adopt.plan")
	assert.Contains(t, plan, "3 to import, 0 to add", "the generated configuration imports and creates nothing")
	r.run(t, dir, "apply", "adopt.plan")
	again, err := r.try(dir, "plan", "-detailed-exitcode")
	require.NoError(t, err, "the plan after adoption is not empty:\n%s", again)
	assert.Len(t, sb.srv.Payouts(sandbox.DefaultPublicKey), 1, "adopting the payout sent no payout")
}

// --- Actions (Terraform 1.14 or later) -------------------------------------------------------------

// The rotate action sends the caller's secret with the chosen grace period (0 after a leak), and the
// resend action delivers an event again; both run from an action_trigger of the built-in terraform_data.
func TestAccActions_rotateSecretAndResend(t *testing.T) {
	needs(t, featureActions)
	rb := &rotationBodies{}
	resends := &requestCounter{suffix: "/resend"}
	sb := startSandbox(t, sandbox.WithHooks(sandbox.Hooks{Middleware: chain(rb.middleware, resends.middleware)}))
	tv := testValues(t)
	endpoint := createEndpoints(t, sb, client.WebhookEndpointCreateRequest{URL: "https://merchant.example.org/hooks/leaked",
		Events: []client.EventType{api.EventTypePayoutSuccess}})[0]
	_, err := sb.client(t).ProcessPayout(t.Context(), client.BankPayout{Amount: 10, CountryID: "ctry_zm", BankID: "bank_zm_zanaco",
		AccountNumber: tv.bankOK.AccountNumber})
	require.NoError(t, err)
	waitForEvents(t, sb.client(t), 1)
	page, err := sb.client(t).ListEvents(t.Context(), client.ListEventsParams{})
	require.NoError(t, err)
	newSecret := newWhsec(t, 32)
	// The new secret comes from the environment (the provider runs in this process), as the docs say.
	t.Setenv("MALIPO_LEAK_RESPONSE_SECRET", newSecret)
	cfg := func(trigger string) string {
		return sb.providerConfig() + fmt.Sprintf(`
action "malipo_webhook_endpoint_rotate_secret" "leak" {
  config {
    endpoint_id          = %[1]q
    secret_env           = "MALIPO_LEAK_RESPONSE_SECRET"
    grace_period_seconds = 0
  }
}

action "malipo_event_resend" "missed" {
  config {
    event_id    = %[2]q
    endpoint_id = %[1]q
  }
}

resource "terraform_data" "incident" {
  input = %[3]q
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.malipo_webhook_endpoint_rotate_secret.leak, action.malipo_event_resend.missed]
    }
  }
}
`, endpoint.ID, page.Items[0].ID, trigger)
	}
	resource.Test(t, resource.TestCase{ // not parallel: t.Setenv
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg("leak-1"), Check: resource.ComposeTestCheckFunc(rb.expectRotation(1, float64(0)), resends.expect(1))},
			{Config: cfg("leak-1"), PlanOnly: true}, // nothing triggers: no rotation
			{Config: cfg("leak-2"), Check: resource.ComposeTestCheckFunc(rb.expectRotation(2, float64(0)), resends.expect(2))},
		},
	})
	body, _ := rb.last()
	assert.Equal(t, newSecret, body["secret"], "the action sent the caller's secret")
}

// requestCounter counts the POST requests whose path ends in suffix.
type requestCounter struct {
	suffix string
	n      atomic.Int64
}

func (c *requestCounter) middleware(_ *sandbox.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, c.suffix) {
			c.n.Add(1)
		}
		next.ServeHTTP(w, r)
	})
}

func (c *requestCounter) expect(n int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := c.n.Load(); got != n {
			return fmt.Errorf("the sandbox received %d requests to …%s, want %d", got, c.suffix, n)
		}
		return nil
	}
}

// chain runs the sandbox middlewares in order, the first outermost.
func chain(mws ...func(*sandbox.Server, http.Handler) http.Handler) func(*sandbox.Server, http.Handler) http.Handler {
	return func(s *sandbox.Server, next http.Handler) http.Handler {
		for i := len(mws) - 1; i >= 0; i-- {
			next = mws[i](s, next)
		}
		return next
	}
}

// The documented action examples, invoked as the docs say (terraform apply -invoke=...) next to the
// resource example: the rotation sends the secret from MALIPO_NEW_WEBHOOK_SECRET with a grace period of
// 0, and the resend queues the event for the endpoint. Only the example event id is replaced.
func TestAccExamples_actionsInvoked(t *testing.T) {
	needs(t, featureActions)
	rb := &rotationBodies{}
	resends := &requestCounter{suffix: "/resend"}
	sb := startSandbox(t, sandbox.WithHooks(sandbox.Hooks{Middleware: chain(rb.middleware, resends.middleware)}))
	tv := testValues(t)
	_, err := sb.client(t).ProcessPayout(t.Context(), client.MobilePayout{Amount: 10, CountryID: "ctry_zm",
		MomoPhoneNumber: tv.mobileOK.MomoPhoneNumber})
	require.NoError(t, err)
	waitForEvents(t, sb.client(t), 1)
	page, err := sb.client(t).ListEvents(t.Context(), client.ListEventsParams{})
	require.NoError(t, err)

	newSecret := newWhsec(t, 32)
	t.Setenv(EnvNewWebhookSecret, newSecret) // the provider runs in this process: not parallel
	r := newEngineRunner(t)
	r.env = append(r.env, "TF_VAR_payouts_webhook_secret="+newWhsec(t, 32))
	dir := t.TempDir()
	actions := func(name string, replace ...string) string {
		b, err := os.ReadFile("../examples/actions/" + name + "/action.tf")
		require.NoError(t, err)
		return strings.NewReplacer(replace...).Replace(string(b))
	}
	config := requiredProviders + sb.providerConfig() + example(t, "malipo_webhook_endpoint", "resource.tf") +
		actions("malipo_webhook_endpoint_rotate_secret") + actions("malipo_event_resend", "evt_8e2f4a6c1b3d5f70", page.Items[0].ID)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600))
	r.run(t, dir, "init")
	r.run(t, dir, "apply", "-auto-approve")
	require.NoError(t, rb.expectRotation(0, nil)(nil), "applying the configuration invokes no action")

	out := r.run(t, dir, "apply", "-auto-approve", "-invoke=action.malipo_webhook_endpoint_rotate_secret.leak")
	require.NoError(t, rb.expectRotation(1, float64(0))(nil))
	body, _ := rb.last()
	assert.Equal(t, newSecret, body["secret"], "the action sent the secret of MALIPO_NEW_WEBHOOK_SECRET")
	assert.NotContains(t, out, newSecret, "the secret is in no output")

	r.run(t, dir, "apply", "-auto-approve", "-invoke=action.malipo_event_resend.missed")
	require.NoError(t, resends.expect(1)(nil))
	r.run(t, dir, "destroy", "-auto-approve")
}
