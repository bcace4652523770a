package contracttests_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/report"
)

// runGenerated runs the checks matching run against an embedded sandbox with fault, from seed.
func runGenerated(t *testing.T, fault faults.Fault, run string, seed uint64) *report.Summary {
	t.Helper()
	faulty, err := faults.Options(fault)
	require.NoError(t, err)
	cfg, stop, err := contracttests.StartEmbeddedWith(faulty...)
	require.NoError(t, err)
	defer func() { require.NoError(t, errors.Join(stop())) }()
	cfg.Seed, cfg.Run = seed, regexp.MustCompile(run)
	checks, err := contracttests.All()
	require.NoError(t, err)
	sum, err := contracttests.Run(context.Background(), cfg, checks)
	require.NoError(t, err)
	assert.Equal(t, seed, sum.Seed, "the summary carries the run's seed")
	return sum
}

// shrunkBody reads the shrunk body out of a generated failure's message.
var shrunkBody = regexp.MustCompile(`shrunk in (\d+) requests to (\{.*\}) — rerun with --seed (\d+)`)

// A generated failure arrives shrunk to the smallest body that still fails, with the seed and the curl
// line that sends that body, and the same seed finds and shrinks it the same way: a narration cut to
// 100 characters is reported as a narration of 101 plain characters, whatever the drawn one was.
func TestGeneratedFailureIsShrunkAndReproducible(t *testing.T) {
	const seed = 20261126
	var bodies []string
	for range 2 {
		sum := runGenerated(t, faults.LongTextTruncated, `^generated\.initializePayment\.valid$`, seed)
		require.Len(t, sum.Results, 1)
		res := sum.Results[0]
		require.Equal(t, report.Failed, res.Outcome, "the truncation is caught")
		var narration string
		for i, f := range res.Failures {
			if i > 0 {
				assert.Contains(t, f.Message, "the same shrunk body", "a failure after the first refers to the first's body")
				continue
			}
			m := shrunkBody.FindStringSubmatch(f.Message)
			require.NotNil(t, m, "the first failure of a generated check says how it was shrunk: %s", f.Message)
			assert.Equal(t, "20261126", m[3], "the failure names the seed")
			assert.Contains(t, f.Message, "generated body", "the failure says which body of the seed it was")
			var body map[string]any
			require.NoError(t, json.Unmarshal([]byte(m[2]), &body))
			narration, _ = body["narration"].(string)
			bodies = append(bodies, redactRunParts(m[2]))
			require.NotEmpty(t, f.Evidence, "the failure points at the exchange that sent the shrunk body")
			ev := res.Evidence[f.Evidence[0]]
			assert.Contains(t, ev.Curl, "curl ", "the exchange replays as a curl command")
			assert.Contains(t, ev.Curl, narration, "the curl command sends the shrunk narration")
		}
		assert.Equal(t, strings.Repeat("a", 101), narration, "shrunk to the shortest narration that is cut, in plain characters")
	}
	assert.Equal(t, bodies[0], bodies[1], "the same seed gives the same shrunk body, the run's own parts aside")
}

// runParts are the values a run fills in itself (receiver URLs, the unique end of a reference).
var runParts = regexp.MustCompile(`http://127\.0\.0\.1:\d+/hooks/[0-9a-f]+/|"reference":"[^"]*"`)

func redactRunParts(body string) string { return runParts.ReplaceAllString(body, "…") }
