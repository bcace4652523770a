package checks

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Every JSON request body of the embedded document has an example, and the one the suite sends for a
// branch of a discriminated body belongs to that branch.
func TestEveryRequestBodyHasAnExample(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	targets, err := bodyTargets(spec)
	require.NoError(t, err)
	require.NotEmpty(t, targets)
	branches := 0
	for _, bt := range targets {
		require.NoError(t, bt.exampleErr, "%s %s", bt.op.ID, bt.branch)
		if bt.branch == "" {
			continue
		}
		branches++
		whole, err := openapi.RequestBodySchema(bt.op, "")
		require.NoError(t, err)
		var body map[string]any
		require.NoError(t, json.Unmarshal(bt.example, &body))
		assert.Equal(t, bt.branch, body[whole.Discriminator.PropertyName], "the example for %s branch %s", bt.op.ID, bt.branch)
	}
	assert.Equal(t, len(api.TransferToValues()), branches, "one target per payout kind")
}
