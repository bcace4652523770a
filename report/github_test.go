package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/junitxsd"
	"github.com/malipo/terraform-provider-malipo/internal/mdrender"
	"github.com/malipo/terraform-provider-malipo/report"
)

// A workflow command is one line whatever its text: the message escapes '%', CR and LF, and the
// properties ':' and ',' as well, as GitHub's runner decodes them. A finding whose rule the grader
// placed is annotated on its file and line; one cited from another text (no pointer) on no file; a run
// that stopped early says so first.
func TestGitHubAnnotationsAreEscaped(t *testing.T) {
	s := summaryOf(
		failedResult("a.b", report.Rule{Pointer: "#/components/schemas/Error/required", Says: "required: [a, b]",
			At: report.Place{File: "specs/v1,a:b.yaml", Line: 12}},
			report.Failure{Message: "50% of\r\nbodies: bad, very"}),
		failedResult("receiver.rejects.forged-signature/payout.success", report.Rule{},
			report.Failure{Message: "accepted a forged signature", SpecLocation: "Standard Webhooks, \"Verifying\": compare"}),
	)
	s.Rerun = []string{"malipo", "conform", "--seed", "7"}
	s.Aborted = "the target stopped answering: dial tcp: connection refused"
	got := report.Annotations(s, report.Findings(s))
	assert.Equal(t, []string{
		"::error title=malipo conform stopped early::the target stopped answering: dial tcp: connection refused; " +
			"0 checks were interrupted and 0 did not run: what they would have found is unknown",
		"::error title=malipo conform%3A Standard Webhooks%2C \"Verifying\"%3A compare (1 check)::" +
			"the first check: accepted a forged signature%0A" +
			"checks: receiver.rejects.forged-signature/payout.success%0A" +
			"rerun: malipo conform --seed 7 --run '^receiver\\.rejects\\.forged-signature/payout\\.success$'",
		"::error file=specs/v1%2Ca%3Ab.yaml,line=12,title=malipo conform%3A required%3A [a%2C b] (1 check)::" +
			"the first check: 50%25 of%0D%0Abodies: bad, very%0A" +
			"where: #/components/schemas/Error/required, specs/v1,a:b.yaml:12%0A" +
			"checks: a.b%0A" +
			"rerun: malipo conform --seed 7 --run '^a\\.b$'",
	}, got)
	for _, c := range got {
		assert.NotContains(t, c, "\n")
		assert.NotContains(t, c, "\r")
	}
}

// manyFindings is a run whose failed checks break n rules, the i-th (from 0) by n-i checks, in the
// document at line 100+i.
func manyFindings(n int) *report.Summary {
	var results []report.Result
	for i := range n {
		rule := report.Rule{Pointer: fmt.Sprintf("#/components/schemas/S%02d/required", i), Says: fmt.Sprintf("required: [f%02d]", i),
			At: report.Place{File: "openapi/malipo.yaml", Line: 100 + i}}
		for j := range n - i {
			results = append(results, failedResult(fmt.Sprintf("check.s%02d.%02d", i, j), rule, report.Failure{Message: "missing"}))
		}
	}
	results = append(results, report.Result{ID: "reference.countries", Outcome: report.Passed})
	s := summaryOf(results...)
	s.Rerun, s.Seed = []string{"malipo", "conform", "--seed", "42"}, 42
	return s
}

// The annotations come largest finding first, so that the ten GitHub shows explain most; the summary
// says how many there are and that GitHub shows ten.
func TestGitHubAnnotationsComeLargestFirst(t *testing.T) {
	s := manyFindings(12)
	got := report.Annotations(s, report.Findings(s))
	require.Len(t, got, 12)
	for i, c := range got {
		assert.True(t, strings.HasPrefix(c, fmt.Sprintf("::error file=openapi/malipo.yaml,line=%d,title=", 100+i)), "%d: %s", i, c)
		assert.Contains(t, c, fmt.Sprintf("(%d check", 12-i))
	}
	summary := report.StepSummary(s, report.Findings(s), report.MaxStepSummary)
	assert.Contains(t, summary, "The failed checks (78) break 12 rules, the largest finding first (a check that failed in several ways counts once). "+
		"The step has 12 error annotations, one per finding, on the line of the document that states its rule; "+
		"GitHub shows the first 10 of a step, so the others are here and in the log only.")
}

// The summary of a failed run: the verdict, the counts, the findings with the document's words and
// where, the command that reruns every failed check with the run's seed (the same command the text
// report prints under each check, for all of them), and every failed check.
func TestStepSummaryOfAFailedRun(t *testing.T) {
	s := manyFindings(2)
	summary := report.StepSummary(s, report.Findings(s), report.MaxStepSummary)
	t.Log("\n" + summary)
	assert.True(t, strings.HasPrefix(summary, "### \u274c malipo conform: 3 of 4 checks failed\n\n"), summary)
	assert.Contains(t, summary, "Target `http://t` \u00b7 4 checks in 0s \u00b7 generated from `--seed 42`\n")
	assert.Contains(t, summary, "| Outcome | Checks |\n| --- | ---: |\n| passed | 1 |\n| failed | 3 |\n| skipped | 0 |\n\n")
	assert.Contains(t, summary, "| 1 | required\\: \\[f00\\] | `openapi/malipo.yaml:100` `#/components/schemas/S00/required` | 2 | missing |\n")
	assert.Contains(t, summary, "```sh\n"+s.RerunCommand("check.s00.00", "check.s00.01", "check.s01.00")+"\n```\n")
	assert.Contains(t, summary, "malipo conform --seed 42 --run '^(check\\.s00\\.00|check\\.s00\\.01|check\\.s01\\.00)$'")
	assert.Contains(t, summary, "| `check.s01.00` | required\\: \\[f01\\] | `openapi/malipo.yaml:101` `#/components/schemas/S01/required` | missing |\n")
	assert.NotContains(t, summary, "The summary stops here")

	// A rule each operation states for itself, broken alike by several: the first place, then the others.
	broken := brokenEnvelopeRun()
	summary = report.StepSummary(broken, report.Findings(broken), report.MaxStepSummary)
	assert.Contains(t, summary, "| 1 | \u2014 | `#/paths/~1v1~1payment~1payouts~1{payout_id}/get` and 2 more places: "+
		"`#/paths/~1v1~1payment~1payouts~1process/post`, `#/paths/~1v1~1payment~1init/post` | 4 | header.content-type\\: response breaks the spec")
	assert.Contains(t, report.Annotations(broken, report.Findings(broken))[0], "%0Awhere: #/paths/~1v1~1payment~1payouts~1{payout_id}/get and 2 more places: "+
		"#/paths/~1v1~1payment~1payouts~1process/post, #/paths/~1v1~1payment~1init/post%0A")

	passed := summaryOf(report.Result{ID: "a", Outcome: report.Passed})
	assert.True(t, strings.HasPrefix(report.StepSummary(passed, nil, report.MaxStepSummary), "### \u2705 malipo conform: every check passed\n\n"))
}

// A summary larger than GitHub takes is cut, not lost: the head and the findings stay, the failed
// checks that do not fit are left out from the end, and its last line says how many; what the step's
// summary file held before counts against the limit; a limit that leaves no room for the head writes
// nothing.
func TestStepSummaryIsCutToTheLimit(t *testing.T) {
	s := manyFindings(40) // 820 failed checks
	const limit = 24 << 10
	summary := report.StepSummary(s, report.Findings(s), limit)
	assert.LessOrEqual(t, len(summary), limit)
	assert.Contains(t, summary, "#### Findings")
	rows := regexp.MustCompile("(?m)^\\| `check\\.").FindAllString(summary, -1)
	require.NotEmpty(t, rows)
	note := regexp.MustCompile(`(?m)^_The summary stops here: GitHub keeps at most 1024 KiB of a step's summary. Left out: (.*)\. The log and the --junit, --json and --html reports have every failure\._\n$`).
		FindStringSubmatch(summary)
	require.NotNil(t, note, "the last line says what was left out:\n%s", summary[max(0, len(summary)-600):])
	assert.Contains(t, note[1], fmt.Sprintf("%d of 820 failed checks", 820-len(rows)))
	if strings.Contains(note[1], "rerun") {
		assert.NotContains(t, summary, "```sh", "the rerun command is left out whole")
	}
	assert.Empty(t, report.StepSummary(s, report.Findings(s), 600), "no room for the head")

	// Through the reporter: appended after what the step wrote, within the limit with it.
	path := filepath.Join(t.TempDir(), "step_summary")
	before := strings.Repeat("earlier step\n", 900)
	require.NoError(t, os.WriteFile(path, []byte(before), 0o644))
	var out strings.Builder
	require.NoError(t, (&report.GitHubReporter{W: &out, SummaryPath: path, SummaryLimit: len(before) + limit}).Finish(s))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), before+"\n### \u274c malipo conform: 820 of 821 checks failed"))
	assert.LessOrEqual(t, len(data), len(before)+limit)
	assert.Contains(t, string(data), "The summary stops here")
	assert.Len(t, strings.Split(strings.TrimSpace(out.String()), "\n"), 40, "one annotation per finding")

	// The whole of it fits in GitHub's limit.
	whole := report.StepSummary(s, report.Findings(s), report.MaxStepSummary)
	assert.NotContains(t, whole, "The summary stops here")
	assert.Len(t, regexp.MustCompile("(?m)^\\| `check\\.").FindAllString(whole, -1), 820)
}

// What the summary quotes (the document's words, a failure's message, ids) renders as the text it is:
// no character of it makes markup, whether Markdown's (emphasis, code, links, HTML, tables) or
// GitHub's (emoji, mentions, math); the summary renders to its headings, tables and code block only.
func TestStepSummaryRendersTheTextItQuotes(t *testing.T) {
	says := "required: [a|b] *not* _em_ `code` <b>bold</b> [link](http://x) :+1: @someone #12 $x$ ~~gone~~ &amp; back\\slash!"
	message := "want <html> | got `{\"a\": \"*\"}` ** __ \\| \\ end"
	s := summaryOf(failedResult("auth.getPayout.no-keys", report.Rule{Pointer: "#/components/schemas/Error/required", Says: says,
		At: report.Place{File: "openapi/malipo.yaml", Line: 7}}, report.Failure{Message: message}))
	s.Target = "http://127.0.0.1:8080/`x`"
	s.Rerun = []string{"malipo", "conform", "--target", s.Target}
	summary := report.StepSummary(s, report.Findings(s), report.MaxStepSummary)
	t.Log("\n" + summary)
	page := mdrender.Render(t, summary)
	t.Log("\n" + page)

	allowed := []string{"h3", "h4", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "pre", "em"}
	for _, tag := range mdrender.Tags(page) {
		assert.Contains(t, allowed, tag, "the summary makes only its own structure")
	}
	tags := mdrender.Tags(page)
	assert.Equal(t, 3, count(tags, "table"), "the counts, the findings, the failed checks")
	assert.Equal(t, 1, count(tags, "pre"), "the rerun command")
	text := mdrender.Text(page)
	assert.Contains(t, text, says, "the document's words, as they are")
	assert.Contains(t, text, message)
	assert.Contains(t, text, s.RerunCommand("auth.getPayout.no-keys"))
	assert.Contains(t, page, "<code>http://127.0.0.1:8080/`x`</code>", "a code span holds backticks")
	for _, syntax := range []string{"| ---", "\\[", "\\:", "\\*", "\\<"} {
		assert.NotContains(t, text, syntax, "no Markdown syntax shows")
	}
}

func count(items []string, item string) int {
	n := 0
	for _, i := range items {
		if i == item {
			n++
		}
	}
	return n
}

// The JUnit failure's text, what GitLab shows of a failed test, starts with what the document says and
// where, file and line; in GitLab's flavour a failed testcase names the document in its file
// attribute, which the schemas the plain file is valid against have no place for.
func TestJUnitFailureSaysTheRuleAndItsLine(t *testing.T) {
	rule := report.Rule{Pointer: "#/components/schemas/Error/required", Says: "required: [status, code]",
		At: report.Place{File: "openapi/malipo.yaml", Line: 1234}}
	s := summaryOf(
		failedResult("auth.getPayout.no-keys", rule, report.Failure{Message: "response breaks the spec", Pointer: "/code",
			SpecLocation: "#/components/schemas/Error/properties/code", At: report.Place{File: "openapi/malipo.yaml", Line: 1240}}),
		report.Result{ID: "reference.countries", Category: "reference", Outcome: report.Passed, Rule: rule},
	)
	s.Duration = time.Second
	dir := t.TempDir()
	for _, gitlab := range []bool{false, true} {
		path := filepath.Join(dir, fmt.Sprintf("gitlab-%t.xml", gitlab))
		require.NoError(t, report.JUnitReporter{Path: path, GitLab: gitlab}.Finish(s))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		xml := string(data)
		assert.Contains(t, xml, "<![CDATA[the document says: required: [status, code] (#/components/schemas/Error/required, openapi/malipo.yaml:1234)\n"+
			"/code: response breaks the spec (#/components/schemas/Error/properties/code, openapi/malipo.yaml:1240)\n")
		if gitlab {
			assert.Contains(t, xml, `<testcase name="auth.getPayout.no-keys" classname="malipo.auth" time="0.000" file="openapi/malipo.yaml">`)
			assert.Equal(t, 1, strings.Count(xml, ` file="`), "a passed check names no file")
		} else {
			assert.NotContains(t, xml, ` file="`)
			junitxsd.Validate(t, path)
		}
	}
}

// The text report's failures say where the document states each rule, file and line.
func TestTextSaysTheRulesLine(t *testing.T) {
	s := summaryOf(failedResult("auth.getPayout.no-keys", report.Rule{Pointer: "#/components/schemas/Error/required", Says: "required: [status]",
		At: report.Place{File: "openapi/malipo.yaml", Line: 1234}}, report.Failure{Message: "no status"}))
	var out strings.Builder
	r := &report.TextReporter{W: &out, Quiet: true}
	r.Start(nil)
	require.NoError(t, r.Finish(s))
	assert.Contains(t, out.String(), "    the document says: required: [status] (#/components/schemas/Error/required, openapi/malipo.yaml:1234)\n")
	assert.True(t, slices.Contains(strings.Split(out.String(), "\n"), "    no status"))
}

// githubRunner reads a step's output as GitHub's runner does: a line starting with "::" is a workflow
// command unless commands are stopped (::stop-commands::TOKEN), which only a line "::TOKEN::" ends. It
// returns the commands it would carry out.
func githubRunner(output string) []string {
	var honoured []string
	stopped := ""
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case stopped != "":
			if line == "::"+stopped+"::" {
				stopped = ""
			}
		case strings.HasPrefix(line, "::stop-commands::"):
			stopped = strings.TrimPrefix(line, "::stop-commands::")
		case strings.HasPrefix(line, "::"):
			honoured = append(honoured, line)
		}
	}
	return honoured
}

// What the target sends cannot forge a workflow command: the text report on the same output quotes its
// answers, and between the GitHub reporter's Start and its Finish (the last reporter's) GitHub reads no
// command from the step; the annotations come after, and are the only commands carried out.
func TestTargetTextForgesNoWorkflowCommand(t *testing.T) {
	forged := "HTTP 500\n::error title=INJECTED::from the body\n::add-mask::x\n::stop-commands::forever\n  ::warning::indented"
	s := summaryOf(failedResult("a.b", report.Rule{Pointer: "#/components/schemas/Error/required", Says: "required: [a]",
		At: report.Place{File: "openapi/malipo.yaml", Line: 12}}, report.Failure{Message: "got " + forged}))
	var out strings.Builder
	reporters := []report.Reporter{&report.TextReporter{W: &out, Command: "malipo conform"}, &report.GitHubReporter{W: &out}}
	for _, r := range reporters {
		r.Start([]string{"a.b"})
	}
	for _, r := range reporters {
		r.CheckDone(s.Results[0])
	}
	for _, r := range reporters {
		require.NoError(t, r.Finish(s))
	}
	require.Contains(t, out.String(), "::error title=INJECTED", "the text report quotes the target")
	honoured := githubRunner(out.String())
	require.Len(t, honoured, 1, "only the reporter's own annotation is carried out:\n%s", strings.Join(honoured, "\n"))
	assert.True(t, strings.HasPrefix(honoured[0], "::error file=openapi/malipo.yaml,line=12,title=malipo conform%3A"), honoured[0])

	var again strings.Builder
	other := &report.GitHubReporter{W: &again}
	other.Start(nil)
	assert.NotEqual(t, strings.SplitN(out.String(), "\n", 2)[0], strings.TrimSpace(again.String()), "each run stops commands with a token of its own")
}

// GitHub reads an annotation's file relative to the checkout: a document on disk inside it is cited
// relative to it, one outside with no file, and a path no file has (the embedded document's) as it is.
func TestGitHubCitesFilesRelativeToTheWorkspace(t *testing.T) {
	workspace, outside := t.TempDir(), t.TempDir()
	inside := filepath.Join(workspace, "api", "v1.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(inside), 0o755))
	require.NoError(t, os.WriteFile(inside, []byte("x"), 0o644))
	elsewhere := filepath.Join(outside, "v1.yaml")
	require.NoError(t, os.WriteFile(elsewhere, []byte("x"), 0o644))
	for file, want := range map[string]string{
		inside:                "::error file=api/v1.yaml,line=7,",
		elsewhere:             "::error title=",
		"openapi/malipo.yaml": "::error file=openapi/malipo.yaml,line=7,",
	} {
		s := summaryOf(failedResult("a.b", report.Rule{Pointer: "#/x", Says: "x: 1", At: report.Place{File: file, Line: 7}}, report.Failure{Message: "m"}))
		var out strings.Builder
		r := &report.GitHubReporter{W: &out, Workspace: workspace}
		r.Start(nil)
		require.NoError(t, r.Finish(s))
		honoured := githubRunner(out.String())
		require.Len(t, honoured, 1, file)
		assert.True(t, strings.HasPrefix(honoured[0], want), "%s: %s", file, honoured[0])
	}
}

// A summary file that cannot be written stops nothing: the run goes on, and its page says, as a
// warning, that it has no summary.
func TestAnUnwritableSummaryIsAWarning(t *testing.T) {
	s := summaryOf(failedResult("a.b", report.Rule{Pointer: "#/x", Says: "x: 1"}, report.Failure{Message: "m"}))
	var out strings.Builder
	r := &report.GitHubReporter{W: &out, SummaryPath: filepath.Join(t.TempDir(), "missing", "summary.md")}
	require.NoError(t, r.Prepare(), "no reason to stop the run")
	r.Start(nil)
	require.NoError(t, r.Finish(s))
	honoured := githubRunner(out.String())
	require.Len(t, honoured, 2)
	assert.True(t, strings.HasPrefix(honoured[1], "::warning title=malipo conform%3A no job summary::the job summary was not written: "), honoured[1])
}

// GitHub links "www.host" in text by itself: text the target sends stays text.
func TestStepSummaryLinksNothingTheTargetSent(t *testing.T) {
	s := summaryOf(failedResult("a.b", report.Rule{Pointer: "#/x", Says: "x: 1"}, report.Failure{Message: "see www.evil.example or WWW.Evil.example"}))
	summary := report.StepSummary(s, report.Findings(s), report.MaxStepSummary)
	assert.Contains(t, summary, `www\.evil.example or WWW\.Evil.example`)
}

// A rule the grader cites from a text (the receiver grader's Standard Webhooks citations) is what the
// summary says the rule is, in both tables; it is not listed again as another place of the document.
func TestStepSummaryShowsACitedRuleAsItsWords(t *testing.T) {
	const cited = `Standard Webhooks, "Verifying": compare in constant time`
	s := summaryOf(failedResult("receiver.rejects.forged-signature/payout.success", report.Rule{},
		report.Failure{Message: "accepted a forged signature", SpecLocation: cited}))
	summary := report.StepSummary(s, report.Findings(s), report.MaxStepSummary)
	assert.NotContains(t, summary, "more place")
	assert.Equal(t, 2, strings.Count(summary, `Standard Webhooks, "Verifying"\: compare in constant time`),
		"the findings' and the failed checks' tables show the citation as the rule's words:\n%s", summary)
}
