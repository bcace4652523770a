package report_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/junitxsd"
	"github.com/malipo/terraform-provider-malipo/report"
)

// A run with every kind of outcome (passed, failed with text that needs escaping, skipped, and
// interrupted) gives a file valid against
// Jenkins' schema, and, less what Ant's schema has no place for, against Ant's.
func TestJUnitIsValidAgainstTheJUnitSchemas(t *testing.T) {
	sum := &report.Summary{Target: "http://127.0.0.1:8080", Duration: 1500 * time.Millisecond, Passed: 1, Failed: 1, Skipped: 1,
		Results: []report.Result{
			{ID: "auth.getPayout.no-keys", Category: "auth", Outcome: report.Failed, Duration: 12 * time.Millisecond,
				Failures: []report.Failure{
					{Message: "want HTTP 401, got 404: <html> & \"quotes\" \x01 control", Exchange: "GET /x → 404", Pointer: "/code", Evidence: []int{0}},
					{Message: "second failure"},
				},
				Evidence: []report.Evidence{{Kind: report.EvidenceRequest, Operation: "getPayout",
					Request:  report.HTTPMessage{Method: "GET", URL: "http://127.0.0.1:8080/x"},
					Response: report.HTTPMessage{Status: 404, Body: "]]> <b>not found</b>", BodySize: 20},
					Curl:     "curl -sS 'http://127.0.0.1:8080/x'"}}},
			{ID: "auth.isolation.payout", Category: "auth", Outcome: report.Skipped,
				SkipReason: "needs a second merchant's keys"},
			{ID: "reference.countries", Category: "reference", Outcome: report.Passed, Duration: 3 * time.Millisecond},
			{ID: "state.payout.bank.success", Category: "state", Outcome: report.Interrupted,
				Interruption: "the run was cancelled"},
		}}
	path := filepath.Join(t.TempDir(), "junit.xml")
	require.NoError(t, report.JUnitReporter{Path: path}.Finish(sum))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	t.Log(string(data))

	junitxsd.Validate(t, path)

	// What the schemas type as strings (Jenkins') or do not hold (the counts of <testsuites>).
	var doc struct {
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Time     string `xml:"time,attr"`
		Suites   []struct {
			Name      string `xml:"name,attr"`
			Tests     int    `xml:"tests,attr"`
			Failures  int    `xml:"failures,attr"`
			Errors    int    `xml:"errors,attr"`
			Skipped   int    `xml:"skipped,attr"`
			Time      string `xml:"time,attr"`
			Timestamp string `xml:"timestamp,attr"`
			Cases     []struct {
				Name    string `xml:"name,attr"`
				Skipped *struct {
					Reason string `xml:",chardata"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	assert.Equal(t, []int{4, 1, 0}, []int{doc.Tests, doc.Failures, doc.Errors}, "an interrupted check is no error of the target")
	assert.Equal(t, "1.500", doc.Time)
	require.Len(t, doc.Suites, 3)
	auth, state := doc.Suites[0], doc.Suites[2]
	assert.Equal(t, []int{2, 1, 0, 1}, []int{auth.Tests, auth.Failures, auth.Errors, auth.Skipped})
	assert.Equal(t, "0.012", auth.Time, "a suite's time is the sum of its checks'")
	stamp, err := time.Parse("2006-01-02T15:04:05", auth.Timestamp)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(-sum.Duration), stamp, time.Hour, "the run's start, in UTC")
	require.NotNil(t, state.Cases[0].Skipped, "an interrupted check claims no verdict: JUnit's skipped")
	assert.Equal(t, "interrupted: the run was cancelled", state.Cases[0].Skipped.Reason)
}
