package openapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The document's words at a pointer: a keyword with its value on one line, a description's opening,
// nothing for what does not resolve or is too long for a line.
func TestWords(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	assert.Equal(t, "required: [status, code, message, errors]", spec.Words("#/components/schemas/Error/required"))
	assert.Equal(t, "The error envelope.", spec.Words("#/components/schemas/Error/description"))
	assert.Equal(t, "enum: [error]", spec.Words("#/components/schemas/Error/properties/status/enum"))
	assert.Empty(t, spec.Words("#/components/schemas/Error"), "a whole schema is no line")
	assert.Empty(t, spec.Words("#/components/schemas/NoSuchSchema/required"))
	assert.Empty(t, (*openapi.Spec)(nil).Words("#/components/schemas/Error/required"))
}
