package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/report"
)

// jsonReport writes a grader's JSON report with report.JSONReporter, the writer malipo conform uses, so
// that the summary reads the fields the report really has: passed checks, then failed ones, each
// failed check breaking the same rule.
func jsonReport(t *testing.T, path string, passed, failed, skipped int) {
	t.Helper()
	s := &report.Summary{Duration: 1300 * time.Millisecond}
	add := func(n int, outcome report.Outcome) {
		for i := range n {
			res := report.Result{ID: fmt.Sprintf("%s.%d", outcome, i), Category: "auth", Outcome: outcome}
			if outcome == report.Failed {
				res.Rule = report.Rule{Pointer: "#/components/schemas/Error/description", Quote: "The error envelope."}
				res.Failures = []report.Failure{{Message: "want an error envelope, got text/plain"}}
			}
			s.Results = append(s.Results, res)
		}
	}
	add(passed, report.Passed)
	add(failed, report.Failed)
	add(skipped, report.Skipped)
	s.Count()
	require.NoError(t, report.JSONReporter{Path: path}.Finish(s))
}

// touch writes a file with the given content.
func touch(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// makeRun lays out what make run's stages leave in dir (the reports of two conform runs, spec
// --check's answer, the walkthrough's directory and result) and returns its stages; conformExit is the
// exit status of the --target run, whose JSON report has targetFailed failed checks.
func makeRun(t *testing.T, dir string, conformExit, targetFailed int) []stage {
	t.Helper()
	touch(t, filepath.Join(dir, "spec.txt"), "OK: Malipo Collections & Payouts API 1.0.0, 17 operations, 5 webhook event types\n")
	for _, name := range []string{"conform", "conform-target"} {
		touch(t, filepath.Join(dir, name+".html"), "<!doctype html>")
		touch(t, filepath.Join(dir, name+".junit.xml"), "<testsuites/>")
	}
	jsonReport(t, filepath.Join(dir, "conform.json"), 347, 0, 0)
	jsonReport(t, filepath.Join(dir, "conform-target.json"), 343-targetFailed, targetFailed, 4)
	walk := filepath.Join(dir, "walkthrough")
	require.NoError(t, os.Mkdir(walk, 0o755))
	touch(t, filepath.Join(walk, "result.txt"), "4 resources applied (and 4 data sources read), every resource destroyed\n")
	files := func(name string) []string {
		return []string{filepath.Join(dir, name+".json"), filepath.Join(dir, name+".junit.xml"), filepath.Join(dir, name+".html")}
	}
	return []stage{
		{Name: "spec --check", Seconds: 0, Files: []string{filepath.Join(dir, "spec.txt")}},
		{Name: "conform (embedded sandbox)", Seconds: 2, Files: files("conform")},
		{Name: "conform --target (separate sandbox)", Exit: conformExit, Seconds: 3, Files: files("conform-target")},
		{Name: "Terraform walkthrough", Seconds: 14, Files: []string{walk, filepath.Join(walk, "result.txt")}},
	}
}

// summary writes the summary of stages and returns it.
func summary(t *testing.T, stages []stage) string {
	t.Helper()
	var out strings.Builder
	require.NoError(t, write(&out, stages, "bin/malipo"))
	t.Log("\n" + out.String())
	return out.String()
}

// A passing make run ends with a screenful: the verdict of every stage with its counts, every report
// (the HTML ones first), and what to try next.
func TestSummaryOfAPassingRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(filepath.Dir(dir))
	rel := filepath.Base(dir) + "/"
	out := summary(t, makeRun(t, dir, 0, 0))

	assert.True(t, strings.HasPrefix(out, "\nmake run: all 4 stages passed (19s)\n"), "the headline comes first")
	for _, line := range []string{
		"  PASS  spec --check                           0s  OK: Malipo Collections & Payouts API 1.0.0, 17 operations, 5 webhook event types\n",
		"  PASS  conform (embedded sandbox)             2s  347 passed, 0 failed, 0 skipped\n",
		"  PASS  conform --target (separate sandbox)    3s  343 passed, 0 failed, 4 skipped\n",
		"  PASS  Terraform walkthrough                 14s  4 resources applied (and 4 data sources read), every resource destroyed\n",
		"\nReports:\n  conform (embedded sandbox)           HTML " + rel + "conform.html  JSON " + rel + "conform.json  JUnit " + rel + "conform.junit.xml\n",
		"  conform --target (separate sandbox)  HTML " + rel + "conform-target.html  JSON " + rel + "conform-target.json  JUnit " + rel + "conform-target.junit.xml\n",
		"  Terraform walkthrough                state and logs " + rel + "walkthrough\n",
		"\nNext:\n  open " + rel + "conform.html in a browser: every check by category, the coverage of the document\n",
		"  bin/malipo conform --target URL --public-key … --secret-key …  check your own implementation\n",
		"  bin/malipo sandbox  ",
		"  bin/malipo webhooks test --url URL --secret whsec_…  ",
		"  make run CONFORM_FLAGS=  ",
		`  README.md: "The contract suite"`,
	} {
		assert.Contains(t, out, line)
	}
	assert.NotContains(t, out, "FAIL")
	assert.NotContains(t, out, "spec.txt", "the file that holds the counts is not a report")
	assert.LessOrEqual(t, strings.Count(out, "\n"), 20, "a screenful")
}

// A failed stage is named in the headline and its line, with the largest finding of its report, and
// the next steps start with where to look: its HTML report.
func TestSummaryOfAFailedStage(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	stages := makeRun(t, dir, 1, 2)
	out := summary(t, stages)

	assert.True(t, strings.HasPrefix(out, "\nmake run: 1 of 4 stages FAILED (19s)\n"))
	assert.Contains(t, out, "  PASS           conform (embedded sandbox)             2s  347 passed, 0 failed, 0 skipped\n",
		"the columns line up across verdicts")
	assert.Contains(t, out, "  FAIL (exit 1)  conform --target (separate sandbox)    3s  341 passed, 2 failed, 4 skipped; "+
		"the largest finding (2 checks): The error envelope.\n")
	assert.Contains(t, out, "\nNext:\n  conform --target (separate sandbox) failed: open conform-target.html (the findings come first), or read its output above\n"+
		"  open conform.html in a browser")
	assert.Equal(t, 1, failed(stages))
}

// A stage that stopped before writing its reports (a grader's exit 2, a walkthrough that failed
// half-way) says so, and points at its output, not at a report that is not there.
func TestSummaryOfAStageThatWroteNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	stages := []stage{
		{Name: "conform", Exit: 2, Files: []string{filepath.Join(dir, "c.json"), filepath.Join(dir, "c.html")}},
		{Name: "walkthrough", Exit: 1, Files: []string{filepath.Join(dir, "walk", "result.txt")}},
	}
	out := summary(t, stages)
	assert.Contains(t, out, "  FAIL (exit 2)  conform        0s  no JSON report: the run stopped before writing it (see its output above)\n")
	assert.Contains(t, out, "  FAIL (exit 1)  walkthrough    0s  no result written (see its output above)\n")
	assert.Contains(t, out, "  conform      HTML c.html (not written)  JSON c.json (not written)\n")
	assert.Contains(t, out, "\nNext:\n  conform failed: its output above says why\n  walkthrough failed: its output above says why\n")
	assert.NotContains(t, out, "open ")
}

// The stages file is what make run's recipe writes: tab-separated, files optional; a line that is not
// one names its place.
func TestParseStages(t *testing.T) {
	stages, err := parseStages(strings.NewReader("spec --check\t0\t1\tbin/run/spec.txt\n\nconform\t1\t12\ta.json\tb.html\nwalkthrough\t0\t9\t\n"), "stages")
	require.NoError(t, err)
	assert.Equal(t, []stage{
		{Name: "spec --check", Exit: 0, Seconds: 1, Files: []string{"bin/run/spec.txt"}},
		{Name: "conform", Exit: 1, Seconds: 12, Files: []string{"a.json", "b.html"}},
		{Name: "walkthrough", Exit: 0, Seconds: 9},
	}, stages)

	_, err = parseStages(strings.NewReader("spec\t0\t1\nconform 1 12\n"), "bin/run/stages.tsv")
	assert.ErrorContains(t, err, `bin/run/stages.tsv:2: want NAME, EXIT STATUS and SECONDS separated by tabs, got "conform 1 12"`)
	_, err = parseStages(strings.NewReader("spec\tzero\t1\n"), "stages")
	assert.ErrorContains(t, err, "stages:1: the exit status and the seconds must be whole numbers")
	_, err = parseStages(strings.NewReader(""), "stages")
	assert.ErrorContains(t, err, "names no stage")
}
