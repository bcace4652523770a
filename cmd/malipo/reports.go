package main

import (
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// reportFlags are the flags both graders share, `malipo conform` and `malipo webhooks test`: which
// checks run (--run, --skip, --list) and which reports the run leaves (--junit, --json, --html,
// --record, --quiet). They are declared once, here, so that their names, help and behaviour cannot
// drift apart between the two commands.
type reportFlags struct {
	run, skip                    *regexp.Regexp
	list, quiet                  bool
	junit, jsonOut, html, record string
}

// declare defines the flags on cmd; --run and --skip complete with the ids of the checks listed.
func (f *reportFlags) declare(cmd *cobra.Command, listed func() ([]runner.Check, error)) {
	completeIDs := func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		checks, err := listed()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var ids []cobra.Completion
		for _, c := range checks {
			if strings.HasPrefix(c.ID, toComplete) {
				ids = append(ids, cobra.CompletionWithDesc(c.ID, c.Doc))
			}
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
	fs := cmd.Flags()
	fs.Var(regexpValue{&f.run}, "run", "only run checks whose id matches this regular expression")
	fs.Var(regexpValue{&f.skip}, "skip", "leave out checks whose id matches this regular expression (after --run)")
	fs.BoolVar(&f.list, "list", false, "list the checks and exit")
	fs.StringVar(&f.junit, "junit", "", "write a JUnit XML report to this `file`")
	fs.StringVar(&f.jsonOut, "json", "", "write a JSON report to this `file`")
	fs.StringVar(&f.html, "html", "", "write a self-contained HTML report (findings, failures with their exchanges and curl commands, coverage) to this `file`")
	fs.StringVar(&f.record, "record", "", "record every HTTP exchange and webhook delivery of the run as HAR 1.2 to this `file` (key values redacted)")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print only failures, the summary and, in a log, a progress line at each tenth of a long run (no line per passed or skipped check)")
	_ = cmd.MarkFlagFilename("junit", "xml")
	_ = cmd.MarkFlagFilename("json", "json")
	_ = cmd.MarkFlagFilename("html", "html")
	_ = cmd.MarkFlagFilename("record", "har")
	_ = cmd.RegisterFlagCompletionFunc("run", completeIDs)
	_ = cmd.RegisterFlagCompletionFunc("skip", completeIDs)
}

// reporters returns the text report on stdout, headed by tool, the file reports the flags ask for, and
// what the CI system the run is in reads: in a GitHub Actions job, the annotations on stdout and the job
// summary ($GITHUB_STEP_SUMMARY); in a GitLab CI job, the file attribute GitLab's test report reads in
// the JUnit report.
func (f *reportFlags) reporters(stdout io.Writer, tool string) []report.Reporter {
	reporters := []report.Reporter{&report.TextReporter{W: stdout, Quiet: f.quiet, Command: tool}}
	if f.html != "" {
		reporters = append(reporters, report.HTMLReporter{Path: f.html})
	}
	if f.record != "" {
		reporters = append(reporters, &report.HARRecorder{Path: f.record, Tool: tool})
	}
	if f.junit != "" {
		reporters = append(reporters, report.JUnitReporter{Path: f.junit, GitLab: os.Getenv("GITLAB_CI") == "true"})
	}
	if f.jsonOut != "" {
		reporters = append(reporters, report.JSONReporter{Path: f.jsonOut})
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		// Last: its Finish resumes the workflow commands it stopped at Start, after the text report's
		// summary has quoted what the target sent.
		reporters = append(reporters, &report.GitHubReporter{W: stdout, SummaryPath: os.Getenv("GITHUB_STEP_SUMMARY"),
			Workspace: os.Getenv("GITHUB_WORKSPACE")})
	}
	return reporters
}
