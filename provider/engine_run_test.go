package provider

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/stretchr/testify/require"
)

// engineRunner runs the engine's own commands (terraform query -generate-config-out, terraform test),
// which terraform-plugin-testing has no step for, against the provider served in-process: the engine
// attaches to it through TF_REATTACH_PROVIDERS, as the acceptance tests' engine does, and nothing is
// downloaded or built.
type engineRunner struct {
	path     string   // the engine binary, TF_ACC_TERRAFORM_PATH
	env      []string // the environment of every command
	provider string   // the provider's address, for messages
}

// newEngineRunner serves the provider for the test's lifetime and returns a runner for the engine of
// TF_ACC_TERRAFORM_PATH. The provider's address is malipo/malipo, in OpenTofu's registry under OpenTofu;
// configurations name it in required_providers (requiredProviders).
func newEngineRunner(t *testing.T) *engineRunner {
	t.Helper()
	e, err := currentEngine()
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	host := "registry.terraform.io"
	if e.name == "OpenTofu" {
		host = "registry.opentofu.org"
	}
	addr := host + "/malipo/malipo" // the source address users write: malipo/malipo
	go func() {
		_ = tf6server.Serve(addr, providerserver.NewProtocol6(New("test")()),
			tf6server.WithDebug(ctx, reattach, closed),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			tf6server.WithLoggingSink(t)) // the provider's logs follow TF_ACC_LOG, as the harness's do
	}()
	var cfg *plugin.ReattachConfig
	select {
	case cfg = <-reattach:
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("the provider server did not start within 30 s")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
		}
	})
	info, err := json.Marshal(map[string]any{addr: map[string]any{
		"Protocol": cfg.Protocol, "ProtocolVersion": cfg.ProtocolVersion, "Pid": cfg.Pid, "Test": cfg.Test,
		"Addr": map[string]string{"Network": cfg.Addr.Network(), "String": cfg.Addr.String()},
	}})
	require.NoError(t, err)
	env := append(os.Environ(), "TF_REATTACH_PROVIDERS="+string(info), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		"TF_CLI_CONFIG_FILE="+os.DevNull) // no developer overrides, no warning
	return &engineRunner{path: os.Getenv("TF_ACC_TERRAFORM_PATH"), env: env, provider: addr}
}

// run runs the engine in dir with args and returns its combined output; a failure fails the test with
// the output.
func (r *engineRunner) run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := r.try(dir, args...)
	require.NoError(t, err, "%s %s:\n%s", filepath.Base(r.path), strings.Join(args, " "), out)
	return out
}

// try runs the engine in dir with args and returns its combined output and error.
func (r *engineRunner) try(dir string, args ...string) (string, error) {
	cmd := exec.Command(r.path, append(args[:1:1], append([]string{"-no-color"}, args[1:]...)...)...)
	cmd.Dir, cmd.Env = dir, r.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// requiredProviders is the terraform block every configuration the runner runs needs: the provider's
// address as users write it.
const requiredProviders = `
terraform {
  required_providers {
    malipo = { source = "malipo/malipo" }
  }
}
`
