package contracttests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The preflight tells which key was refused by what each operation it asks needs.
func TestPreflightOperationsNeedTheKeysItAssumes(t *testing.T) {
	assert.Equal(t, [][]string{{api.HeaderPublicKey}}, preflightPublicOnly.Security(), "%s must need only the public key", preflightPublicOnly.ID)
	require.NotEmpty(t, preflightBothKeys.Security())
	assert.ElementsMatch(t, []string{api.HeaderPublicKey, api.HeaderSecretKey}, preflightBothKeys.Security()[0],
		"%s must need both keys", preflightBothKeys.ID)
	assert.False(t, preflightPublicOnly.Extension || preflightBothKeys.Extension, "every implementation must have them")
}
