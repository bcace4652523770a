package provider

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// madeSecrets records every secret malipo_webhook_secret makes while a test runs.
type madeSecrets struct {
	mu  sync.Mutex
	all []string
}

func recordSecrets(t *testing.T) *madeSecrets {
	m := &madeSecrets{}
	old := secretMade
	secretMade = func(s string) { m.mu.Lock(); m.all = append(m.all, s); m.mu.Unlock() }
	t.Cleanup(func() { secretMade = old })
	return m
}

func (m *madeSecrets) list() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.all...)
}

// The ephemeral malipo_webhook_secret makes a secret the API accepts, of the size asked, which flows
// into an endpoint's write-only secret_wo; and Terraform keeps none of the secrets it made (one when it
// plans, another when it applies) anywhere: not in the state or its backup, the saved plan (every entry
// of the zip) or its `show -json`, any other file of the working directory, or the TRACE log. Each
// search is shown to find what is there, as in the write-only test: the secret that was sent is found
// in the request the sandbox received. Deliveries to the endpoint verify with the secret the apply
// made, and after a new secret_wo_version with the next one (and the old one during the grace period).
func TestAccWebhookSecretEphemeralResource(t *testing.T) {
	needs(t, featureEphemeral)
	made := recordSecrets(t)
	workRoot, logPath := t.TempDir(), filepath.Join(t.TempDir(), "terraform.log")
	t.Setenv("TF_ACC_TEMP_DIR", workRoot)
	t.Setenv("TF_ACC_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	recorder := &exchangeRecorder{}
	sb := startSandbox(t, sandbox.WithHooks(sandbox.Hooks{Middleware: recorder.middleware}))
	rc := newDeliveryReceiver(t)
	config := func(version, size int) string {
		return sb.providerConfig() + fmt.Sprintf(`
ephemeral "malipo_webhook_secret" "signing" {
  bytes = %[3]d
}

resource "malipo_webhook_endpoint" "test" {
  url               = "%[1]s/own"
  events            = ["payout.success"]
  secret_wo         = ephemeral.malipo_webhook_secret.signing.result
  secret_wo_version = %[2]d
}
`, rc.srv.URL, version, size)
	}
	// sent is the secret the n-th create or rotation request carried, as the sandbox received it.
	sent := func(op api.Operation, n int) string {
		es := recorder.of(op)
		require.Greater(t, len(es), n, "%s requests", op.ID)
		var body struct {
			Secret string `json:"secret"`
		}
		require.NoError(t, json.Unmarshal(es[n].request, &body))
		require.NotEmpty(t, body.Secret, "the %s request carried no secret", op.ID)
		return body.Secret
	}
	noSecretInFiles := func() error {
		contents := fileContents(t, workRoot)
		if len(matching(contents, "terraform.tfstate")) == 0 {
			return fmt.Errorf("found no terraform.tfstate under %s", workRoot)
		}
		for _, secret := range made.list() {
			for name, data := range contents {
				if form, found := findSecret(t, data, secret); found {
					return fmt.Errorf("%s (under the working directory) contains %s of a secret malipo_webhook_secret made", name, form)
				}
			}
		}
		return nil
	}
	size := func(secret string) int {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		require.NoError(t, err)
		return len(key)
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(st *terraform.State) error {
			if err := sb.checkEndpointsDestroyed(st); err != nil {
				return err
			}
			return noSecretInFiles()
		},
		Steps: []resource.TestStep{
			{
				Config: config(1, 48),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret_wo"), knownvalue.Null()),
						planFileCheck{t: t, root: workRoot, made: made.list,
							mustHave: func() map[string]string { return map[string]string{"the endpoint's URL": rc.srv.URL + "/own"} }},
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret_wo"), knownvalue.Null()),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.Null()),
				},
				Check: func(*terraform.State) error {
					secret := sent(api.OpCreateWebhookEndpoint(), 0)
					if _, err := webhook.ParseEndpointSecret(secret); err != nil {
						return fmt.Errorf("the secret made is not one the API accepts: %w", err)
					}
					if n := size(secret); n != 48 {
						return fmt.Errorf("bytes = 48 made a secret of %d bytes", n)
					}
					if len(made.list()) < 2 {
						return fmt.Errorf("malipo_webhook_secret was opened %d times; Terraform opens it to plan and again to apply", len(made.list()))
					}
					if err := noSecretInFiles(); err != nil {
						return err
					}
					d := payoutDelivery(t, sb, rc, "/own")
					return verifies(t, d, secret)
				},
			},
			{
				Config: config(2, webhook.MaxSecretBytes),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionUpdate),
						planFileCheck{t: t, root: workRoot, made: made.list,
							mustHave: func() map[string]string { return map[string]string{"the endpoint's URL": rc.srv.URL + "/own"} }},
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					first, next := sent(api.OpCreateWebhookEndpoint(), 0), sent(api.OpRotateWebhookEndpointSecret(), 0)
					if n := size(next); n != webhook.MaxSecretBytes {
						return fmt.Errorf("bytes = %d made a secret of %d bytes", webhook.MaxSecretBytes, n)
					}
					if err := noSecretInFiles(); err != nil {
						return err
					}
					d := payoutDelivery(t, sb, rc, "/own")
					if err := verifies(t, d, next); err != nil {
						return fmt.Errorf("after the new secret_wo_version the delivery does not verify with the new secret: %w", err)
					}
					return verifies(t, d, first)
				},
			},
		},
	})
	if t.Failed() {
		return
	}
	// The searches find a secret where it is: the one sent is in the request the sandbox received.
	first := sent(api.OpCreateWebhookEndpoint(), 0)
	_, found := findSecret(t, recorder.of(api.OpCreateWebhookEndpoint())[0].request, first)
	assert.True(t, found, "the search finds the secret in the create request")
	logs, err := os.ReadFile(logPath)
	require.NoError(t, err)
	assert.Contains(t, string(logs), "Created webhook endpoint", "the log holds the provider's own lines")
	for i, secret := range made.list() {
		form, found := findSecret(t, logs, secret)
		assert.False(t, found, "the log (%d bytes) contains %s of secret %d of %d", len(logs), form, i+1, len(made.list()))
	}
	t.Logf("malipo_webhook_secret made %d secrets; none is in %d bytes of TRACE log or in any file Terraform wrote", len(made.list()), len(logs))
}

// A size outside the API's bounds is refused at plan time, naming the bounds.
func TestAccWebhookSecretEphemeralResource_bounds(t *testing.T) {
	needs(t, featureEphemeral)
	for _, n := range []int{webhook.MinSecretBytes - 1, webhook.MaxSecretBytes + 1} {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: fmt.Sprintf(`
ephemeral "malipo_webhook_secret" "s" {
  bytes = %d
}
`, n),
				ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)between %d\s+and %d`, webhook.MinSecretBytes, webhook.MaxSecretBytes)),
			}},
		})
	}
}
