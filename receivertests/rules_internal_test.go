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

// Every rule the grader enforces that the document states is placed there, for each event type: the
// pointer resolves, a quoted sentence is in the text at it (and is cited at its own line), and only the
// rule that Standard Webhooks alone states (a signature's version prefix) is cited in words alone.
func TestCitedRulesAreInTheDocument(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	g := &grader{spec: spec, types: spec.EventTypes()}
	for _, rule := range []string{ruleAuthentic, ruleRotation, ruleSeveral, ruleTolerance, ruleIdempotency, ruleTimeout, ruleAdditive, ruleRawBody, ruleSchema} {
		for _, et := range g.types {
			r := g.cite(rule, et)
			if !assert.NotEmpty(t, r.Pointer, "%s (%s) has no place in the document", rule, et) {
				continue
			}
			_, err := spec.Resolve(r.Pointer)
			require.NoError(t, err, r.Pointer)
			placed := g.placed(r)
			assert.Equal(t, openapi.EmbeddedPath, placed.At.File)
			if r.Quote != "" {
				require.NoError(t, spec.Says(r.Pointer, r.Quote))
				assert.Greater(t, placed.At.Line, spec.Line(r.Pointer), "%s: cited at its sentence, below its key", rule)
			} else {
				assert.Equal(t, spec.Line(r.Pointer), placed.At.Line)
				assert.Equal(t, spec.Words(r.Pointer), placed.Says, "%s: the document's words at %s", rule, r.Pointer)
			}
		}
	}
	assert.Zero(t, g.cite(ruleVersions, g.types[0]), "the version prefix is Standard Webhooks' rule alone")
	checks := g.checks()
	require.NotEmpty(t, checks)
	words := 0
	for _, c := range checks {
		if g.cite(c.rule, g.types[0]).Pointer == "" {
			words++
			assert.Equal(t, ruleVersions, c.rule, "%s: its rule is in the document, yet it is cited in words alone", c.id)
		}
	}
	assert.Positive(t, words, "the version checks are cited in words")
}
