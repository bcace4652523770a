package contracttests_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A program that imports the graders as a library (the checks, the receiver grader, the runner and the
// reports) gets neither the reference sandbox nor its database: only cmd/malipo and internal/embedded
// start a sandbox. The suite's packages are named each, so that one a program imports without the
// others (the harness, to write checks of its own) is held to it too.
func TestGradersDoNotImportTheSandbox(t *testing.T) {
	const module = "github.com/malipo/terraform-provider-malipo/"
	out, err := exec.Command("go", "list", "-deps", module+"contracttests", module+"contracttests/harness", module+"contracttests/checks",
		module+"contracttests/sequences", module+"receivertests", module+"runner", module+"report").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{module + "internal/sandbox", "go.etcd.io/bbolt", module + "internal/embedded"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("the graders import %s", dep)
			}
		}
	}
}
