package contracttests

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests/checks"
	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/report"
)

// TestANewTestValueNeedsNoCode adds a test value to a copy of the document and shows that, with no code
// change, the suite gains a state check for it and the sandbox honours it: the check passes against a
// sandbox that reads the same document.
func TestANewTestValueNeedsNoCode(t *testing.T) {
	const wallet = "260960000099"
	doc := strings.Replace(string(openapi.YAML()), "    mobile_number:\n",
		"    mobile_number:\n      - momo_phone_number: '"+wallet+"'\n        status: failed\n"+
			"        failure_reason: account_blocked\n        description: A wallet only this test knows.\n", 1)
	spec, err := openapi.Load([]byte(doc))
	require.NoError(t, err)
	all, err := checks.AllFor(spec)
	require.NoError(t, err)

	var added *harness.Check
	for _, c := range all {
		if strings.HasSuffix(c.ID, "."+wallet) {
			added = c
		}
	}
	require.NotNil(t, added, "the suite derived no check for the new test value")
	assert.Equal(t, "state.payout.mobile.account_blocked."+wallet, added.ID)

	cfg, stop, err := startEmbedded(sandbox.WithSpec(spec))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, stop()) })
	cfg.Run = regexp.MustCompile("^" + regexp.QuoteMeta(added.ID) + "$")
	sum, err := Run(context.Background(), cfg, []*harness.Check{added})
	require.NoError(t, err)
	require.Len(t, sum.Results, 1)
	assert.Equal(t, report.Passed, sum.Results[0].Outcome, "%+v", sum.Results[0].Failures)
}
