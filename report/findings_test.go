package report_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// failedResult is a failed check with a rule and failures.
func failedResult(id string, rule report.Rule, failures ...report.Failure) report.Result {
	return report.Result{ID: id, Category: "auth", Rule: rule, Outcome: report.Failed, Failures: failures}
}

// summaryOf counts the results into a Summary.
func summaryOf(results ...report.Result) *report.Summary {
	s := &report.Summary{Target: "http://t", Results: results}
	s.Count()
	return s
}

// The error envelope broken: checks whose failures name the same schema keyword and field are one
// finding with their count and the document's words at the keyword (which the grader gave with the
// failure: the reports do not read the document), however their exchanges differ;
// unrelated failures are findings of their own; the largest comes first, then by rule.
func TestFindingsGroupChecksBySchemaLocation(t *testing.T) {
	const required = "#/components/schemas/Error/required"
	envelope := func(exchange string) report.Failure {
		return report.Failure{Message: "response breaks the spec: required property is missing", Exchange: exchange,
			Pointer: "/code", SpecLocation: required, Says: "required: [status, code, message, errors]"}
	}
	authRule := report.Rule{Pointer: "#/components/securitySchemes/SecretKey", Quote: "The secret key."}
	s := summaryOf(
		failedResult("auth.getPayout.no-keys", authRule, envelope("GET "+api.OpGetPayout().URL("po_1")+" → 401")),
		failedResult("auth.processPayout.no-keys", authRule, envelope("POST "+api.OpProcessPayout().URL()+" → 401")),
		failedResult("negative.initializePayment.amount.below-minimum", report.Rule{Pointer: "#/components/schemas/Amount/minimum"},
			envelope("POST "+api.OpInitializePayment().URL()+" → 400")),
		failedResult("state.payout.bank.success", report.Rule{Pointer: "#/x-malipo-test-values", Quote: "settles"},
			report.Failure{Message: `want final status "success", got "failed"`}),
		failedResult("idempotency.processPayout.replay", report.Rule{Pointer: "#/components/headers/IdempotentReplayed", Quote: "true on a replay"},
			report.Failure{Message: "the replay must carry Idempotent-Replayed: true"}),
		report.Result{ID: "reference.countries", Outcome: report.Passed},
		report.Result{ID: "auth.isolation.payout", Outcome: report.Skipped},
	)
	findings := report.Findings(s)
	require.Len(t, findings, 3, "%+v", findings)

	first := findings[0]
	assert.Equal(t, 3, first.Count)
	assert.Equal(t, []string{"auth.getPayout.no-keys", "auth.processPayout.no-keys", "negative.initializePayment.amount.below-minimum"}, first.Checks)
	assert.Equal(t, report.Rule{Pointer: required, Says: "required: [status, code, message, errors]"}, first.Rule)
	assert.Equal(t, "required: [status, code, message, errors]", first.Says, "the document's words at the keyword, as the grader gave them")
	assert.Equal(t, "required: [status, code, message, errors]", first.Headline())
	assert.Equal(t, "/code: response breaks the spec: required property is missing", first.Violation)
	assert.Equal(t, []string{required}, first.Locations)

	// The singletons by rule: #/components/headers/… before #/x-malipo-test-values.
	assert.Equal(t, []string{"idempotency.processPayout.replay"}, findings[1].Checks)
	assert.Equal(t, "true on a replay", findings[1].Says, "the check's quote")
	assert.Equal(t, []string{"state.payout.bank.success"}, findings[2].Checks)

	total := 0
	for _, f := range findings {
		total += f.Count
	}
	assert.Equal(t, s.Failed, total, "every failed check in exactly one finding")
}

// One violation of a rule each operation states for itself (the content types of its responses) is one
// finding across operations, which it lists; a check without a schema location is grouped by its rule
// and its message with ids, numbers and quoted values masked.
func TestFindingsMaskWhatVariesBetweenChecks(t *testing.T) {
	contentType := func(op, method string) report.Failure {
		return report.Failure{Message: fmt.Sprintf("response breaks the spec: The content type 'text/plain' of the %s response received has not been defined in the schema", strings.ToUpper(method)),
			Pointer: "header.content-type", SpecLocation: "#/paths/" + op + "/" + method}
	}
	webhookRule := report.Rule{Pointer: "#/webhooks/payment.success/post", Quote: "The event about the payment."}
	s := summaryOf(
		failedResult("a", report.Rule{}, contentType("~1v1~1payment~1init", "post")),
		failedResult("b", report.Rule{}, contentType("~1v1~1payment~1init", "post")),
		failedResult("c", report.Rule{}, contentType("~1v1~1webhooks~1{id}", "patch")),
		failedResult("d", webhookRule, report.Failure{Message: `the event is about "pay_7befd5c72b90a6c4", want "pay_0123456789abcdef"`}),
		failedResult("e", webhookRule, report.Failure{Message: `the event is about "pay_1", want "pay_2"`}),
		// The same message under another rule is another finding.
		failedResult("f", report.Rule{Pointer: "#/webhooks/payout.success/post/requestBody", Quote: "The event about the payout."},
			report.Failure{Message: `the event is about "po_1", want "po_2"`}),
	)
	findings := report.Findings(s)
	require.Len(t, findings, 3, "%+v", findings)
	assert.Equal(t, []string{"a", "b", "c"}, findings[0].Checks)
	assert.Equal(t, []string{"#/paths/~1v1~1payment~1init/post", "#/paths/~1v1~1webhooks~1{id}/patch"}, findings[0].Locations)
	assert.Empty(t, findings[0].Says, "a whole operation is not a line")
	assert.Contains(t, findings[0].Headline(), "header.content-type: response breaks the spec: The content type 'text/plain'")
	assert.Equal(t, []string{"d", "e"}, findings[1].Checks)
	assert.Equal(t, webhookRule, findings[1].Rule)
	assert.Equal(t, "The event about the payment.", findings[1].Headline())
	assert.Equal(t, []string{"f"}, findings[2].Checks)
}

// A check that failed in several ways is in the finding most checks share among its ways, whatever the
// order of its failures; another grader's citation in words (not a pointer) is the finding's words.
func TestFindingsPutACheckUnderItsMostSharedViolation(t *testing.T) {
	const cited = `Standard Webhooks, "Verifying webhook authenticity": compare in constant time`
	shared := report.Failure{Message: "accepted a forged signature", SpecLocation: cited}
	own := func(id string) report.Failure {
		return report.Failure{Message: "only " + id + " says this", SpecLocation: "#/components/schemas/" + id + "/required"}
	}
	s := summaryOf(
		failedResult("x", report.Rule{}, own("X"), shared),
		failedResult("y", report.Rule{}, shared, own("Y")),
		failedResult("z", report.Rule{}, shared),
	)
	findings := report.Findings(s)
	require.Len(t, findings, 1, "%+v", findings)
	assert.Equal(t, []string{"x", "y", "z"}, findings[0].Checks)
	assert.Equal(t, cited, findings[0].Says)
	assert.Empty(t, findings[0].Rule)
}

// A run without a failure has no findings.
func TestFindingsOfAPassingRun(t *testing.T) {
	assert.Empty(t, report.Findings(summaryOf(report.Result{ID: "a", Outcome: report.Passed},
		report.Result{ID: "b", Outcome: report.Interrupted, Interruption: "stopped"})))
}

// The rerun command runs one check alone against the same target: its id, anchored with its dots
// escaped, and the target, each quoted for a POSIX shell where it needs it; several checks are one
// anchored alternation; no command without Rerun or without a check.
func TestRerunCommand(t *testing.T) {
	s := &report.Summary{Rerun: []string{"malipo", "conform", "--target", "http://127.0.0.1:8080", "--spec", "my spec's.yaml"}}
	assert.Equal(t, `malipo conform --target http://127.0.0.1:8080 --spec 'my spec'\''s.yaml' --run '^negative\.initializePayment\.amount\.below-minimum$'`,
		s.RerunCommand("negative.initializePayment.amount.below-minimum"))
	assert.Equal(t, `malipo conform --target http://127.0.0.1:8080 --spec 'my spec'\''s.yaml' --run '^(auth\.getPayout\.no-keys|receiver\.rejects\.forged-signature/payout\.success)$'`,
		s.RerunCommand("auth.getPayout.no-keys", "receiver.rejects.forged-signature/payout.success"))
	assert.Empty(t, (&report.Summary{}).RerunCommand("a.b"))
	assert.Empty(t, s.RerunCommand())
}

// The JSON report carries the findings, largest first, next to the results (each with its rule) and the
// command line that reaches the target; a run without a failure has no findings key, as before.
func TestJSONReportHasFindings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	require.NoError(t, report.JSONReporter{Path: path}.Finish(brokenEnvelopeRun()))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var written struct {
		Failed   int              `json:"failed"`
		Rerun    []string         `json:"rerun"`
		Findings []report.Finding `json:"findings"`
		Results  []map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal(data, &written), "%s", data)
	require.Len(t, written.Findings, 2)
	assert.Equal(t, 4, written.Findings[0].Count)
	assert.Equal(t, []string{"auth.getPayout.no-keys", "auth.getPayout.wrong-secret-key", "auth.processPayout.no-keys",
		"negative.initializePayment.amount.below-minimum"}, written.Findings[0].Checks)
	assert.Len(t, written.Findings[0].Locations, 3)
	assert.Equal(t, report.Finding{Says: "The error envelope.", Rule: report.Rule{Pointer: "#/components/schemas/Error/description", Quote: "The error envelope."},
		Violation: `want final status "success", got "failed"`, Locations: []string{"#/components/schemas/Error/description"}, Count: 1,
		Checks: []string{"state.payout.bank.success"}}, written.Findings[1])
	assert.Equal(t, []string{"malipo", "conform", "--target", "http://127.0.0.1:8080"}, written.Rerun)
	assert.Equal(t, map[string]any{"pointer": "#/components/securitySchemes/SecretKey/description", "quote": "The merchant's secret key."},
		written.Results[0]["rule"])

	passing := &report.Summary{Target: "http://t", Passed: 1, Results: []report.Result{{ID: "a", Outcome: report.Passed}}}
	require.NoError(t, report.JSONReporter{Path: path}.Finish(passing))
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), `"findings"`)
	assert.NotContains(t, string(data), `"rerun"`)
}
