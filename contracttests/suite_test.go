package contracttests_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/report"
)

func TestEmbeddedSandboxConforms(t *testing.T) {
	cfg, stop, err := contracttests.StartEmbedded()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, stop()) })
	checks, err := contracttests.All()
	require.NoError(t, err)
	var out bytes.Buffer
	sum, err := contracttests.Run(context.Background(), cfg, checks, &report.TextReporter{W: &out})
	require.NoError(t, err)
	t.Log(out.String())
	assert.Zero(t, sum.Failed)
	assert.Zero(t, sum.Skipped)
	assert.Equal(t, len(checks), sum.Passed, "every check of the registry runs and passes")
}
