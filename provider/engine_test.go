package provider

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-version"
)

// The acceptance tests run on several engines (make testacc-engines): Terraform 1.11.4, the newest
// Terraform and the newest OpenTofu. What one of them lacks is skipped with the engine's name and
// version in the message, never silently. terraform-plugin-testing's own version checks cannot say it:
// they read `version -json`, where OpenTofu reports its version as terraform_version, so OpenTofu 1.12
// passes for Terraform 1.12.

// engine is the engine of TF_ACC_TERRAFORM_PATH.
type engine struct {
	name    string // "Terraform" or "OpenTofu"
	version *version.Version
}

func (e engine) String() string { return e.name + " v" + e.version.String() }

var (
	engineOnce sync.Once
	theEngine  engine
	engineErr  error
)

// currentEngine reads the first line of `<engine> version`: "Terraform v1.16.4" or "OpenTofu v1.12.6".
func currentEngine() (engine, error) {
	engineOnce.Do(func() {
		out, err := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), "version").Output()
		if err != nil {
			engineErr = fmt.Errorf("running %q version: %w", os.Getenv("TF_ACC_TERRAFORM_PATH"), err)
			return
		}
		name, v, ok := strings.Cut(strings.SplitN(string(out), "\n", 2)[0], " v")
		if !ok || (name != "Terraform" && name != "OpenTofu") {
			engineErr = fmt.Errorf("cannot tell the engine from %q", strings.SplitN(string(out), "\n", 2)[0])
			return
		}
		theEngine.name = name
		theEngine.version, engineErr = version.NewVersion(strings.TrimSpace(v))
	})
	return theEngine, engineErr
}

// feature is what a test needs of the engine: the first Terraform version that has it, and OpenTofu's
// ("" when OpenTofu has none).
type feature struct {
	what                string
	terraform, openTofu string
}

var (
	featureIdentity = feature{what: "resource identity (import blocks with identity)", terraform: "1.12.0", openTofu: "1.12.0"}
	featureQuery    = feature{what: "list resources (terraform query)", terraform: "1.14.0"}
	featureActions  = feature{what: "actions", terraform: "1.14.0"}
	// featureActionFailure is what Terraform 1.16 added to actions: on_failure in action_trigger
	// blocks, and -invoke together with -target.
	featureActionFailure = feature{what: "action_trigger on_failure and -invoke with -target", terraform: "1.16.0"}
	// featureEphemeral is an ephemeral resource's value in a write-only argument.
	featureEphemeral = feature{what: "ephemeral resources into write-only arguments", terraform: "1.11.0", openTofu: "1.11.0"}
)

// needs skips the test, naming the engine and its version, when the engine lacks f; without TF_ACC it
// skips as terraform-plugin-testing skips every acceptance test.
func needs(t *testing.T, f feature) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make testacc) to run it")
	}
	e, err := currentEngine()
	if err != nil {
		t.Fatalf("the acceptance tests cannot tell which engine they run: %v", err)
	}
	if reason := e.lacks(f); reason != "" {
		t.Skipf("skipped on %s: %s", e, reason)
	}
}

// lacks says why e lacks f; "" when it has it.
func (e engine) lacks(f feature) string {
	minimum := f.terraform
	if e.name == "OpenTofu" {
		if f.openTofu == "" {
			return fmt.Sprintf("OpenTofu has no %s (Terraform has them from %s)", f.what, f.terraform)
		}
		minimum = f.openTofu
	}
	if e.version.LessThan(version.Must(version.NewVersion(minimum))) {
		return fmt.Sprintf("%s %s or later is needed for %s", e.name, minimum, f.what)
	}
	return ""
}

// The skip reasons name the engine's feature and versions, for OpenTofu and for an old Terraform.
func TestEngineLacks(t *testing.T) {
	tofu := engine{"OpenTofu", version.Must(version.NewVersion("1.12.6"))}
	old := engine{"Terraform", version.Must(version.NewVersion("1.11.4"))}
	newest := engine{"Terraform", version.Must(version.NewVersion("1.16.4"))}
	before := engine{"Terraform", version.Must(version.NewVersion("1.14.9"))}
	if got := before.lacks(featureActionFailure); got != "Terraform 1.16.0 or later is needed for action_trigger on_failure and -invoke with -target" {
		t.Errorf("Terraform 1.14.9: %q", got)
	}
	if got := tofu.lacks(featureQuery); got != "OpenTofu has no list resources (terraform query) (Terraform has them from 1.14.0)" {
		t.Errorf("OpenTofu: %q", got)
	}
	if got := old.lacks(featureIdentity); got != "Terraform 1.12.0 or later is needed for resource identity (import blocks with identity)" {
		t.Errorf("old Terraform: %q", got)
	}
	for _, f := range []feature{featureIdentity, featureQuery, featureActions, featureActionFailure, featureEphemeral} {
		if got := newest.lacks(f); got != "" {
			t.Errorf("Terraform 1.16.4 lacks %s: %q", f.what, got)
		}
	}
	if got := (engine{"OpenTofu", tofu.version}).lacks(feature{what: "x", terraform: "1.11.0", openTofu: "1.11.0"}); got != "" {
		t.Errorf("OpenTofu 1.12.6 with a feature of OpenTofu 1.11: %q", got)
	}
}
