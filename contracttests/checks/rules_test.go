package checks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// Every check names the words of the document it enforces, and those words are there: its pointer
// resolves in the document, and its quote is in the text at the pointer. A check whose rule is not
// in the document asserts what some implementation happens to do.
func TestEveryCheckNamesItsRule(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	checks, err := AllFor(spec)
	require.NoError(t, err)
	for _, c := range checks {
		if !assert.NotEmpty(t, c.Rule.Pointer, "%s has no rule", c.ID) {
			continue
		}
		if _, err := spec.Resolve(c.Rule.Pointer); !assert.NoError(t, err, "%s: its rule's pointer does not resolve", c.ID) {
			continue
		}
		if c.Rule.Quote != "" {
			assert.NoError(t, spec.Says(c.Rule.Pointer, c.Rule.Quote), "%s: the document does not say what its rule quotes", c.ID)
		}
	}
	for _, typ := range spec.EventTypes() {
		text, err := spec.Text(harness.SignatureLocation(spec, typ) + "/name")
		if assert.NoError(t, err, typ) {
			assert.Equal(t, "webhook-signature", text, "the signature failures of %s point at the wrong parameter", typ)
		}
	}
}

// A check that quotes a sentence of the document is cited, in CI annotations, at the line where that
// sentence begins, not at the key of the text that holds it: every quote of the registry is found word
// for word in the document's lines, on a line that holds its first words, at or after its key's line.
func TestQuotedRulesAreCitedAtTheirSentence(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	checks, err := AllFor(spec)
	require.NoError(t, err)
	lines := strings.Split(string(openapi.YAML()), "\n")
	quoted, below := 0, 0
	for _, c := range checks {
		if c.Rule.Quote == "" {
			continue
		}
		quoted++
		key, at := spec.Line(c.Rule.Pointer), spec.QuoteLine(c.Rule.Pointer, c.Rule.Quote)
		require.GreaterOrEqual(t, at, key, c.ID)
		first := strings.Fields(c.Rule.Quote)
		want := strings.Join(first[:min(3, len(first))], " ")
		from := strings.Join(strings.Fields(strings.Join(lines[at-1:min(len(lines), at+2)], " ")), " ")
		if !assert.Contains(t, strings.Fields(lines[at-1]), first[0], "%s: the quote does not begin on line %d", c.ID, at) ||
			!assert.Contains(t, from, want, "%s: the quote's first words %q do not follow from line %d", c.ID, want, at) {
			continue
		}
		if at > key {
			below++
		}
	}
	require.Positive(t, quoted, "the registry quotes the document")
	assert.Positive(t, below, "some quote lies below its key's line, in a description's text")
	t.Logf("%d checks quote the document; %d of them are cited below their key's line", quoted, below)
}

// The guard fails: a check without a rule is refused by the registry, and a quote the document does
// not hold, or a pointer to nothing, is reported.
func TestRuleGuardCatchesUnfoundedChecks(t *testing.T) {
	err := ruleless([]*harness.Check{{ID: "made.up.check"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "made.up.check")

	spec, err := openapi.Default()
	require.NoError(t, err)
	assert.Error(t, spec.Says(infoDescription, "Events arrive in the order they happened."))
	_, err = spec.Resolve("#/components/parameters/WebhookSignature")
	assert.Error(t, err)
	assert.NoError(t, spec.Says(errorTable, "The body is   not valid\nJSON."), "quotes compare words, not line breaks")
}

// positive.initializePayment.amount-exact judges the value, not its spelling: JSON does not fix how a
// number is written, so an implementation that writes an amount in exponent form keeps every digit.
func TestAmountsCompareAsDecimals(t *testing.T) {
	assert.True(t, sameDecimal("987654321.12", "9.8765432112e8"))
	assert.True(t, sameDecimal("0.01", "1E-2"))
	assert.False(t, sameDecimal("987654340", "987654321.12"), "a 32-bit float's rounding loses digits")
	assert.False(t, sameDecimal("(not a JSON envelope)", "1"))
}
