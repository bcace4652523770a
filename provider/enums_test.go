package provider

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

func TestEnumValuesComeFromTheClient(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	assert.ElementsMatch(t, spec.EventTypes(), eventTypeValues())
	assert.Equal(t, []string{"bank", "mobile_number"}, transferToValues())
	assert.Equal(t, "`a`, `b` or `c`", quotedList([]string{"a", "b", "c"}))
	assert.Equal(t, "`a`", quotedList([]string{"a"}))
}
