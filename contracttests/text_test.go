package contracttests_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
)

// textRun feeds a reporter a small run: three checks, one with an id longer than any real one, one
// failed and one skipped.
func textRun(t *testing.T, r *contracttests.TextReporter) {
	t.Helper()
	checks := []*contracttests.Check{
		{ID: "reference.countries", Category: contracttests.CategoryReference, Doc: "countries are listed"},
		{ID: "negative.rotateWebhookEndpointSecret.grace_period_seconds.above-maximum.and-then-some-more",
			Category: contracttests.CategoryNegative, Doc: "a long id"},
		{ID: "auth.isolation.payout", Category: contracttests.CategoryAuth, Doc: "isolation"},
	}
	results := []contracttests.Result{
		{Check: checks[0], ID: checks[0].ID, Category: checks[0].Category, Outcome: contracttests.Passed, Duration: 3 * time.Millisecond},
		{Check: checks[1], ID: checks[1].ID, Category: checks[1].Category, Outcome: contracttests.Failed, Duration: 1234 * time.Millisecond,
			Failures: []contracttests.Failure{{Message: "want HTTP 400, got 201", Exchange: "POST /x → 201"}}},
		{Check: checks[2], ID: checks[2].ID, Category: checks[2].Category, Outcome: contracttests.Skipped, SkipReason: "needs a second merchant"},
	}
	r.Start(checks)
	for _, res := range results {
		r.CheckDone(res)
	}
	require.NoError(t, r.Finish(&contracttests.Summary{Target: "http://t", Results: results, Passed: 1, Failed: 1, Skipped: 1,
		Duration: 2 * time.Second, Coverage: contracttests.Coverage{Operations: []contracttests.OperationCoverage{
			{Operation: "listCountries", Documented: []string{"200"}, Seen: []string{"200"}},
			{Operation: "processPayout", Documented: []string{"201", "400"}, Seen: []string{"201"}, Undocumented: []string{"418"}},
		}}}))
}

// checkLines returns the lines that report one check each, in order.
func checkLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "PASS ") || strings.HasPrefix(l, "FAIL ") || strings.HasPrefix(l, "SKIP ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// The check-id column is as wide as the longest selected id, so a long id neither is cut nor pushes
// its duration out of the column.
func TestTextColumnsFitTheLongestID(t *testing.T) {
	var out strings.Builder
	textRun(t, &contracttests.TextReporter{W: &out})
	lines := checkLines(out.String())
	require.Len(t, lines, 3, out.String())
	long := "negative.rotateWebhookEndpointSecret.grace_period_seconds.above-maximum.and-then-some-more"
	assert.Contains(t, lines[1], long+" ", "the long id is whole")
	// The durations end in the same column on every line (the skip reason comes after the column).
	end := func(line, duration string) int { return strings.Index(line, duration) + len(duration) }
	assert.Equal(t, end(lines[1], "1.234s"), end(lines[0], "3ms"), "\n%s", strings.Join(lines, "\n"))
	assert.Equal(t, end(lines[1], "1.234s"), end(lines[2], "0s"), "\n%s", strings.Join(lines, "\n"))
	assert.Len(t, lines[1], len(lines[0]))
}

// Quiet prints the failures and the summary only.
func TestTextQuiet(t *testing.T) {
	var loud, quiet strings.Builder
	textRun(t, &contracttests.TextReporter{W: &loud})
	textRun(t, &contracttests.TextReporter{W: &quiet, Quiet: true})
	q := quiet.String()
	t.Log(q)
	assert.NotContains(t, q, "PASS ")
	assert.NotContains(t, q, "SKIP ")
	assert.NotContains(t, q, "listCountries", "no coverage line for an operation without findings")
	assert.Contains(t, q, "UNDOCUMENTED: 418", "an undocumented status is a finding, quiet or not")
	assert.Contains(t, q, "FAIL negative.rotateWebhookEndpointSecret")
	assert.Contains(t, q, "[POST /x → 201] want HTTP 400, got 201", "the failure with its evidence")
	assert.Contains(t, q, "1 passed, 1 failed, 1 skipped in 2s")
	assert.Less(t, strings.Count(q, "\n"), strings.Count(loud.String(), "\n"))
	assert.Contains(t, loud.String(), "PASS reference.countries")
}

// Not on a terminal (a CI log, a pipe, a buffer): no progress line, no control character at all.
func TestTextWritesNoControlCharactersOutsideATerminal(t *testing.T) {
	var out strings.Builder
	textRun(t, &contracttests.TextReporter{W: &out})
	for i, c := range out.String() {
		if c < 0x20 && c != '\n' || c == 0x7f {
			t.Fatalf("control character %q at byte %d of:\n%s", c, i, out.String())
		}
	}
	assert.NotContains(t, out.String(), "[3/3]")
}
