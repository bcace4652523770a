package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// The rotate action triggered after create, with each on_failure mode of Terraform 1.16, as the engine
// runs it: when the action succeeds every mode rotates the secret; when it fails (its secret_env names
// a variable that is not set) halt fails the apply, taint fails it and leaves the triggering resource
// tainted (the next plan replaces it), and continue applies with a warning and rotates nothing.
func TestAccActions_rotateOnFailure(t *testing.T) {
	needs(t, featureActionFailure)
	rb := &rotationBodies{}
	sb := startSandbox(t, sandbox.WithHooks(sandbox.Hooks{Middleware: rb.middleware}))
	endpoint := createEndpoints(t, sb, client.WebhookEndpointCreateRequest{URL: "https://merchant.example.org/hooks/rotated",
		Events: []client.EventType{api.EventTypePayoutSuccess}})[0]
	t.Setenv("MALIPO_TEST_ROTATE_SECRET", newWhsec(t, 32)) // the provider runs in this process: not parallel
	r := newEngineRunner(t)
	config := func(mode, env string) string {
		return requiredProviders + sb.providerConfig() + fmt.Sprintf(`
action "malipo_webhook_endpoint_rotate_secret" "now" {
  config {
    endpoint_id          = %[1]q
    secret_env           = %[3]q
    grace_period_seconds = 0
  }
}

resource "terraform_data" "trigger" {
  input = "after-create"
  lifecycle {
    action_trigger {
      events     = [after_create]
      actions    = [action.malipo_webhook_endpoint_rotate_secret.now]
      on_failure = %[2]s
    }
  }
}
`, endpoint.ID, mode, env)
	}
	rotations := 0
	for _, mode := range []string{"halt", "taint", "continue"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			write := func(env string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config(mode, env)), 0o600))
			}
			write("MALIPO_TEST_ROTATE_SECRET")
			r.run(t, dir, "init")
			r.run(t, dir, "apply", "-auto-approve")
			rotations++
			require.NoError(t, rb.expectRotation(rotations, float64(0))(nil), "a succeeding action rotates, whatever on_failure says")

			r.run(t, dir, "destroy", "-auto-approve")
			write("MALIPO_TEST_UNSET_VARIABLE")
			out, err := r.try(dir, "apply", "-auto-approve")
			assert.Contains(t, out, "Missing New Webhook Secret", "the action's own error (or warning) is shown")
			require.NoError(t, rb.expectRotation(rotations, float64(0))(nil), "a failed action rotates nothing")
			plan, _ := r.try(dir, "plan")
			switch mode {
			case "halt":
				assert.Error(t, err, "halt fails the apply:\n%s", out)
			case "taint":
				assert.Error(t, err, "taint fails the apply:\n%s", out)
				assert.Contains(t, plan, "is tainted, so must be replaced", "taint leaves the triggering resource tainted")
			case "continue":
				assert.NoError(t, err, "continue applies:\n%s", out)
				assert.Contains(t, out, "Warning", "continue turns the action's error into a warning")
				assert.Contains(t, plan, "No changes", "continue leaves the resource created and untainted")
			}
		})
	}
}

// terraform apply -invoke with -target (Terraform 1.16) runs the action once, for the resource the
// target names, where two resources trigger it.
func TestAccActions_invokeWithTarget(t *testing.T) {
	needs(t, featureActionFailure)
	rb := &rotationBodies{}
	sb := startSandbox(t, sandbox.WithHooks(sandbox.Hooks{Middleware: rb.middleware}))
	endpoint := createEndpoints(t, sb, client.WebhookEndpointCreateRequest{URL: "https://merchant.example.org/hooks/targeted",
		Events: []client.EventType{api.EventTypePayoutSuccess}})[0]
	t.Setenv("MALIPO_TEST_ROTATE_SECRET", newWhsec(t, 32))
	r := newEngineRunner(t)
	dir := t.TempDir()
	config := requiredProviders + sb.providerConfig() + fmt.Sprintf(`
action "malipo_webhook_endpoint_rotate_secret" "now" {
  config {
    endpoint_id = %[1]q
    secret_env  = "MALIPO_TEST_ROTATE_SECRET"
  }
}
`, endpoint.ID)
	for _, name := range []string{"a", "b"} {
		config += fmt.Sprintf(`
resource "terraform_data" %[1]q {
  input = %[1]q
  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.malipo_webhook_endpoint_rotate_secret.now]
    }
  }
}
`, name)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600))
	r.run(t, dir, "init")
	r.run(t, dir, "apply", "-auto-approve")
	require.NoError(t, rb.expectRotation(0, nil)(nil), "creating the resources triggers nothing (after_update only)")
	out := r.run(t, dir, "apply", "-auto-approve", "-invoke=action.malipo_webhook_endpoint_rotate_secret.now", "-target=terraform_data.a")
	require.NoError(t, rb.expectRotation(1, nil)(nil), "one invocation, for the targeted resource:\n%s", out)
	assert.NotContains(t, out, os.Getenv("MALIPO_TEST_ROTATE_SECRET"), "the secret is in no output")
}
