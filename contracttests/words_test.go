package contracttests_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/report"
)

// The reports only format (package report reads no document): the suite hands them the document's
// words and places with each result. A failed check's rule without a quote carries the words at its
// pointer, and every failed check's rule the file and line of its pointer (a passed one, whose rule no
// report shows, neither), and a failure that points into the document the words and the place there,
// for a run whose failures name schema keywords. The file is the embedded document's path in the
// repository.
func TestResultsCarryTheDocumentsWords(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	checks, err := contracttests.AllFor(spec)
	require.NoError(t, err)
	faulty, err := faults.Options(faults.ErrorNotEnvelope)
	require.NoError(t, err)
	cfg, stop, err := contracttests.StartEmbeddedWith(faulty...)
	require.NoError(t, err)
	defer func() { assert.NoError(t, stop()) }()
	cfg.Run = regexp.MustCompile(`^(positive\.|negative\.initializePayment\.amount\.)`)
	sum, err := contracttests.Run(context.Background(), cfg, checks)
	require.NoError(t, err)

	pointed, unquoted, placed := 0, 0, 0
	for _, res := range sum.Results {
		switch {
		case res.Rule.Quote != "":
		case res.Outcome == report.Failed:
			unquoted++
			assert.Equal(t, spec.Words(res.Rule.Pointer), res.Rule.Says, "%s: the words at its rule's pointer", res.ID)
		default:
			assert.Empty(t, res.Rule.Says, "%s (%s): the reports show no rule for it, so it is not looked up", res.ID, res.Outcome)
		}
		if res.Outcome == report.Failed {
			placed++
			assert.Equal(t, report.Place{File: "openapi/malipo.yaml", Line: spec.QuoteLine(res.Rule.Pointer, res.Rule.Quote)}, res.Rule.At, "%s: where %s is (its quote, if it has one)", res.ID, res.Rule.Pointer)
			assert.Positive(t, res.Rule.At.Line, "%s: %s resolves", res.ID, res.Rule.Pointer)
		} else {
			assert.Zero(t, res.Rule.At, "%s (%s): the reports show no rule for it", res.ID, res.Outcome)
		}
		for _, f := range res.Failures {
			if strings.HasPrefix(f.SpecLocation, "#/") {
				pointed++
				assert.Equal(t, spec.Words(f.SpecLocation), f.Says, "%s: the words at %s", res.ID, f.SpecLocation)
				assert.Equal(t, report.Place{File: "openapi/malipo.yaml", Line: spec.Line(f.SpecLocation)}, f.At, "%s: where %s is", res.ID, f.SpecLocation)
			}
		}
	}
	assert.Positive(t, placed, "the selection has failed checks")
	assert.Positive(t, pointed, "the fault (errors that are not the envelope) makes failures that point into the document")
	assert.Positive(t, unquoted, "the selection has failed checks whose rule is a schema keyword")
}
