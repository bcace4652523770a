package receivertests

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The words ruleSeveral quotes are in the description of every webhook's webhook-signature parameter,
// so that a reworded document fails here rather than leaving a failure citing words it no longer says.
func TestSeveralSignaturesRuleQuotesTheDocument(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	types := spec.EventTypes()
	require.NotEmpty(t, types)
	for _, et := range types {
		found := false
		for i := 0; ; i++ {
			param := fmt.Sprintf("#/webhooks/%s/post/parameters/%d", et, i)
			name, err := spec.Text(param + "/name")
			if err != nil {
				break
			}
			if name != "webhook-signature" {
				continue
			}
			found = true
			for _, quote := range []string{severalListQuote, severalAcceptQuote} {
				assert.NoError(t, spec.Says(param+"/description", quote))
			}
		}
		assert.True(t, found, "webhook %s declares no webhook-signature parameter", et)
	}
	assert.Contains(t, ruleSeveral, severalListQuote)
	assert.Contains(t, ruleSeveral, severalAcceptQuote)
}
