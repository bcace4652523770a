package openapi_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// A rule's line is the line of its key in the file the document was read from: the embedded document
// is the repository's openapi/malipo.yaml (EmbeddedPath, from the module's root), byte for byte.
func TestLine(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	require.Equal(t, openapi.EmbeddedPath, spec.Path())
	file, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(openapi.EmbeddedPath)))
	require.NoError(t, err, "EmbeddedPath names the embedded file from the repository's root")
	require.True(t, bytes.Equal(file, openapi.YAML()), "EmbeddedPath is the file that is embedded")
	lines := strings.Split(string(file), "\n")
	for pointer, key := range map[string]string{
		"#/components/schemas/Error/required":                    "required:",
		"#/components/schemas/Error/description":                 "description:",
		"#/components/schemas/Error/properties/status/enum":      "enum:",
		"#/components/securitySchemes/SecretKey/description":     "description:",
		"#/paths/~1v1~1payment~1payouts~1process/post/responses": "responses:",
	} {
		line := spec.Line(pointer)
		require.Positive(t, line, pointer)
		assert.True(t, strings.HasPrefix(strings.TrimSpace(lines[line-1]), key), "%s: line %d is %q", pointer, line, lines[line-1])
	}
	key := spec.Line("#/info/description")
	assert.Equal(t, key, spec.QuoteLine("#/info/description", "words this document never says"), "a quote not found: the key's line")
	assert.Equal(t, key, spec.QuoteLine("#/info/description", ""), "no quote: the key's line")
	assert.Zero(t, spec.QuoteLine("#/components/schemas/NoSuchSchema/description", "x"))
	assert.Zero(t, spec.Line("#/components/schemas/NoSuchSchema/required"))
	assert.Zero(t, spec.Line("components/schemas/Error"), "not a pointer into the document")
	assert.Zero(t, (*openapi.Spec)(nil).Line("#/components/schemas/Error/required"))
	other, err := openapi.Load(openapi.YAML(), openapi.WithPath("api/v1.yaml"))
	require.NoError(t, err)
	assert.Equal(t, "api/v1.yaml", other.Path())
}
