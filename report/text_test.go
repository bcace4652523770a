package report_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// textRun feeds a reporter a small run: three checks, one with an id longer than any real one, one
// failed and one skipped.
func textRun(t *testing.T, r *report.TextReporter) {
	t.Helper()
	results := []report.Result{
		{ID: "reference.countries", Category: "reference", Doc: "countries are listed", Outcome: report.Passed, Duration: 3 * time.Millisecond},
		{ID: "negative.rotateWebhookEndpointSecret.grace_period_seconds.above-maximum.and-then-some-more", Category: "negative",
			Doc: "a long id", Outcome: report.Failed, Duration: 1234 * time.Millisecond,
			Failures: []report.Failure{{Message: "want HTTP 400, got 201", Exchange: "POST /x → 201"}}},
		{ID: "auth.isolation.payout", Category: "auth", Doc: "isolation", Outcome: report.Skipped, SkipReason: "needs a second merchant"},
	}
	ids := make([]string, len(results))
	for i, res := range results {
		ids[i] = res.ID
	}
	r.Start(ids)
	for _, res := range results {
		r.CheckDone(res)
	}
	require.NoError(t, r.Finish(&report.Summary{Target: "http://t", Results: results, Passed: 1, Failed: 1, Skipped: 1,
		Duration: 2 * time.Second, Coverage: report.Coverage{Operations: []report.OperationCoverage{
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
	textRun(t, &report.TextReporter{W: &out})
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
	textRun(t, &report.TextReporter{W: &loud})
	textRun(t, &report.TextReporter{W: &quiet, Quiet: true})
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
	textRun(t, &report.TextReporter{W: &out})
	for i, c := range out.String() {
		if c < 0x20 && c != '\n' || c == 0x7f {
			t.Fatalf("control character %q at byte %d of:\n%s", c, i, out.String())
		}
	}
	assert.NotContains(t, out.String(), "[3/3]")
}

// brokenEnvelopeRun is a run against a target whose error responses are text/plain: most failed checks
// share one violation at different operations, one check fails for a reason of its own. Each check
// names its rule, and the run knows the command that reaches its target.
func brokenEnvelopeRun() *report.Summary {
	textPlain := func(path, method, status string) report.Failure {
		return report.Failure{Exchange: strings.ToUpper(method) + " " + path + " → " + status, Pointer: "header.content-type",
			Message: "response breaks the spec: The content type 'text/plain' of the " + strings.ToUpper(method) +
				" response received has not been defined in the schema",
			SpecLocation: "#/paths/" + strings.ReplaceAll(strings.Replace(path, "po_1", "{payout_id}", 1), "/", "~1") + "/" + method}
	}
	secretKey := report.Rule{Pointer: "#/components/securitySchemes/SecretKey/description", Quote: "The merchant's secret key."}
	check := func(id string, rule report.Rule, fs ...report.Failure) report.Result {
		return report.Result{Doc: "what " + id + " proves", ID: id,
			Category: "auth", Rule: rule, Outcome: report.Failed, Duration: time.Millisecond, Failures: fs}
	}
	s := &report.Summary{Target: "http://127.0.0.1:8080", Duration: time.Second,
		Rerun: []string{"malipo", "conform", "--target", "http://127.0.0.1:8080"},
		Results: []report.Result{
			check("auth.getPayout.no-keys", secretKey, textPlain(api.OpGetPayout().URL("po_1"), "get", "401"),
				report.Failure{Pointer: "/status", Message: `want an error envelope with status "error", got Unauthorized`}),
			check("auth.getPayout.wrong-secret-key", secretKey, textPlain(api.OpGetPayout().URL("po_1"), "get", "401")),
			check("auth.processPayout.no-keys", secretKey, textPlain(api.OpProcessPayout().URL(), "post", "401")),
			check("negative.initializePayment.amount.below-minimum", report.Rule{Pointer: "#/components/schemas/Error/required", Says: "required: [status, code, message, errors]"},
				textPlain(api.OpInitializePayment().URL(), "post", "400")),
			check("state.payout.bank.success", report.Rule{Pointer: "#/components/schemas/Error/description", Quote: "The error envelope."},
				report.Failure{Message: `want final status "success", got "failed"`}),
			{ID: "reference.countries", Category: "reference", Outcome: report.Passed},
		}}
	s.Count()
	return s
}

// The text report leads with the findings: the broken rule with the number of checks it explains,
// before the failures; each failure says what the document says and how to run its check again; the
// last lines name the largest finding.
func TestTextLeadsWithFindings(t *testing.T) {
	var out strings.Builder
	r := &report.TextReporter{W: &out, Quiet: true}
	r.Start(nil)
	require.NoError(t, r.Finish(brokenEnvelopeRun()))
	text := out.String()
	t.Log("\n" + text)

	findings := strings.Index(text, "\nFindings: the 5 failed checks break 2 rules")
	failures := strings.Index(text, "\nFailures:")
	require.GreaterOrEqual(t, findings, 0)
	assert.Less(t, findings, failures, "the findings come before the failures")
	assert.Contains(t, text, "  1. header.content-type: response breaks the spec: The content type 'text/plain' of the GET response received has not been defined in the schema — 4 checks\n")
	assert.Contains(t, text, "     where: 3 places: #/paths/~1v1~1payment~1payouts~1{payout_id}/get, #/paths/~1v1~1payment~1payouts~1process/post, #/paths/~1v1~1payment~1init/post\n")
	assert.Contains(t, text, "     checks: auth.getPayout.no-keys, auth.getPayout.wrong-secret-key, auth.processPayout.no-keys, negative.initializePayment.amount.below-minimum\n")
	assert.Contains(t, text, "  2. The error envelope. — 1 check\n"+`     violation: want final status "success", got "failed"`+"\n"+
		"     where: #/components/schemas/Error/description\n")

	// Under each failed check: the rule, in the document's words, and the command that reruns it.
	assert.Contains(t, text, "  auth.getPayout.no-keys — what auth.getPayout.no-keys proves\n"+
		"    the document says: “The merchant's secret key.” (#/components/securitySchemes/SecretKey/description)\n")
	assert.Contains(t, text, "    the document says: required: [status, code, message, errors] (#/components/schemas/Error/required)\n",
		"a schema keyword's rule is its value")
	assert.Contains(t, text, `    rerun: malipo conform --target http://127.0.0.1:8080 --run '^auth\.getPayout\.no-keys$'`+"\n")
	assert.Equal(t, 5, strings.Count(text, "    rerun: "), "one per failed check")

	assert.True(t, strings.HasSuffix(text, "\nThe 5 failed checks are 2 findings (above the failures); the largest, 4 checks: "+
		"header.content-type: response breaks the spec: The content type 'text/plain' of the GET response received has not been defined in the schema\n"+
		"\n1 passed, 5 failed, 0 skipped in 1s\n"), text)
}

// A run whose failed checks each break a rule of their own, and that names no rule nor a command to
// rerun (another grader's, or a library caller's), reports as before: no findings, no rule, no rerun.
func TestTextWithoutFindingsIsUnchanged(t *testing.T) {
	var out strings.Builder
	textRun(t, &report.TextReporter{W: &out})
	for _, s := range []string{"Findings", "findings", "the document says", "rerun:"} {
		assert.NotContains(t, out.String(), s)
	}
	assert.Contains(t, out.String(), "\nFailures:\n  negative.rotateWebhookEndpointSecret.grace_period_seconds.above-maximum.and-then-some-more — a long id\n"+
		"    [POST /x → 201] want HTTP 400, got 201\n\n1 passed, 1 failed, 1 skipped in 2s\n")
}

// runOf feeds a quiet reporter writing to a buffer (a CI log) a run of n checks, of which the ones
// whose number is in failed fail, and returns what it wrote.
func runOf(t *testing.T, n int, quiet bool, failed ...int) string {
	t.Helper()
	var out strings.Builder
	r := &report.TextReporter{W: &out, Quiet: quiet}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("category.check-%03d", i+1)
	}
	r.Start(ids)
	s := &report.Summary{Duration: time.Second}
	for i, id := range ids {
		res := report.Result{ID: id, Category: "category", Outcome: report.Passed, Duration: time.Millisecond}
		if slices.Contains(failed, i+1) {
			res.Outcome, res.Failures = report.Failed, []report.Failure{{Message: "want 400, got 201"}}
		}
		r.CheckDone(res)
		s.Results = append(s.Results, res)
	}
	s.Count()
	require.NoError(t, r.Finish(s))
	return out.String()
}

// progressLines returns the lines of out that report progress ("[done/total] ...").
func progressLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "[") {
			lines = append(lines, l)
		}
	}
	return lines
}

// A quiet log of a long run shows that it is moving, and where, in a line at each tenth of the run,
// not a line per check; the failures still show as they happen.
func TestTextQuietLogShowsProgressAtEachTenth(t *testing.T) {
	out := runOf(t, 340, true, 50, 200)
	t.Log("\n" + out)
	assert.Equal(t, []string{
		"[34/340]  category.check-034",
		"[68/340] 1 failed  category.check-068",
		"[102/340] 1 failed  category.check-102",
		"[136/340] 1 failed  category.check-136",
		"[170/340] 1 failed  category.check-170",
		"[204/340] 2 failed  category.check-204",
		"[238/340] 2 failed  category.check-238",
		"[272/340] 2 failed  category.check-272",
		"[306/340] 2 failed  category.check-306",
	}, progressLines(out), "one line per tenth, none after the last check: the summary follows")
	assert.NotContains(t, out, "PASS ")
	assert.Contains(t, out, "FAIL category.check-050 ")
	assert.Contains(t, out, "338 passed, 2 failed, 0 skipped in 1s")
	for i, c := range out {
		if c < 0x20 && c != '\n' || c == 0x7f {
			t.Fatalf("control character %q at byte %d", c, i)
		}
	}
}

// A short quiet run ends before anyone wonders whether it is moving: no progress line at all (the
// fewest checks between two lines is 25); a run that is not quiet lists every check and needs none.
func TestTextProgressLinesOnlyInAQuietLogOfALongRun(t *testing.T) {
	assert.Empty(t, progressLines(runOf(t, 25, true)))
	assert.Equal(t, []string{"[25/26]  category.check-025"}, progressLines(runOf(t, 26, true)))
	assert.Empty(t, progressLines(runOf(t, 340, false)))
}
