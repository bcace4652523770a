// Package report is what a grader's run leaves behind: the result model (Result, Failure, Summary,
// Evidence), the evidence of each exchange with its keys redacted and a curl line that replays it, the
// findings (failed checks grouped by the rule they break), and the reporters that write it as text,
// JSON, JUnit XML, a self-contained HTML page and HAR 1.2, and as what GitHub Actions shows (error
// annotations on the document's lines and a job summary).
//
// Reporters only format: they receive the run's events (Reporter) and know nothing of how a check runs
// or what it sends. Both graders report through them: `malipo conform` (package contracttests) and
// `malipo webhooks test` (package receivertests), run by package runner.
package report

import (
	"strconv"
	"time"
)

// Category groups checks in reports; each is explained in docs/conform.md, "Check categories".
type Category string

// Rule is where the document states what a check enforces: a JSON pointer into the document (a schema
// keyword, an operation's response or security, an extension, a description) and, for a rule written
// in prose, the sentence, verbatim as it appears in the text at Pointer (line breaks aside). Reports
// show it next to each failure ("the document says: …"), and failures of many checks that share a rule
// and a violation are reported as one finding.
type Rule struct {
	// Pointer is a JSON pointer into the document, starting with "#/".
	Pointer string `json:"pointer"`
	// Quote is the sentence of the text at Pointer that states the rule; empty when Pointer names a
	// schema keyword, whose value is the rule.
	Quote string `json:"quote,omitempty"`
	// Says is, for a rule without a Quote, what the document says at Pointer, short (a keyword and its
	// value, a description's opening): the grader reads it from the document, the reports show it.
	Says string `json:"says,omitempty"`
	// At is where Pointer is written in the document's file, which CI annotations point at; the grader
	// fills it, like Says, for a check that failed.
	At Place `json:"at,omitzero"`
}

// Place is a line of a file: where the document writes a rule, as the grader found it (package report
// reads no document). File is the document's path as the run was given it (openapi/malipo.yaml for
// the embedded document, or --spec's argument); Line counts from 1. The zero Place is unknown.
type Place struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// String is "file:line" (the form editors and CI logs link), or what is known of it; "" for the zero
// Place.
func (p Place) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.File == "":
		return "line " + strconv.Itoa(p.Line)
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// String renders the rule for a report: the quote, then where it is.
func (r Rule) String() string {
	if r.Quote == "" {
		return r.Pointer
	}
	return "\u201c" + r.Quote + "\u201d (" + r.Pointer + ")"
}

// Outcome is the verdict of one check.
type Outcome string

// The outcomes. Interrupted is no verdict: the check was running when the run stopped early (the
// caller's context ended, or the target stopped answering), so what it saw says nothing about the
// target's conformance.
const (
	Passed      Outcome = "pass"
	Failed      Outcome = "fail"
	Skipped     Outcome = "skip"
	Interrupted Outcome = "interrupted"
)

// Failure is one piece of evidence that a check failed.
type Failure struct {
	// Message says what was expected and what happened.
	Message string `json:"message"`
	// Exchange is the HTTP exchange at fault, if any ("POST /v1/payment/payouts/process → 201").
	Exchange string `json:"exchange,omitempty"`
	// Pointer names the offending field (JSON pointer or `header.name`), if known.
	Pointer string `json:"pointer,omitempty"`
	// SpecLocation points into openapi/malipo.yaml at the rule that was broken, if known; a grader
	// citing another text (Standard Webhooks) gives its words here instead of a pointer.
	SpecLocation string `json:"spec_location,omitempty"`
	// Says is what the document says at SpecLocation, short (see Rule.Says), when the grader found it.
	Says string `json:"says,omitempty"`
	// At is where SpecLocation is written in the document's file (see Rule.At), when it is a pointer the
	// grader found.
	At Place `json:"at,omitzero"`
	// Evidence holds indexes into Result.Evidence of the exchanges the failure is about: the one
	// Exchange names, or, for a failure that names none, the exchange the check had made last.
	Evidence []int `json:"evidence,omitempty"`
}

// String renders a failure on one line.
func (f Failure) String() string {
	s := f.Message
	if f.Pointer != "" {
		s = f.Pointer + ": " + s
	}
	if f.Exchange != "" {
		s = "[" + f.Exchange + "] " + s
	}
	if where := withPlace(f.SpecLocation, f.At); where != "" {
		s += " (" + where + ")"
	}
	return s
}

// withPlace is a location in the document followed by its place in the file: "#/components/…,
// openapi/malipo.yaml:120", or either alone.
func withPlace(location string, at Place) string {
	switch place := at.String(); {
	case place == "":
		return location
	case location == "":
		return place
	default:
		return location + ", " + place
	}
}

// Result is the outcome of one check with its evidence.
type Result struct {
	ID string `json:"id"`
	// Doc is the check's one-line description, which the text and HTML reports show next to a failure.
	Doc      string   `json:"-"`
	Category Category `json:"category"`
	// Rule is the check's Rule: what the document says that the check enforces.
	Rule       Rule          `json:"rule,omitzero"`
	Outcome    Outcome       `json:"outcome"`
	Duration   time.Duration `json:"duration_ns"`
	SkipReason string        `json:"skip_reason,omitempty"`
	// Interruption says why an Interrupted check was stopped.
	Interruption string    `json:"interruption,omitempty"`
	Failures     []Failure `json:"failures,omitempty"`
	// Evidence is every exchange and webhook delivery of a check that did not pass, in the order they
	// ended; a check that passed or was skipped keeps none, to keep reports small.
	Evidence []Evidence `json:"evidence,omitempty"`
	// EvidenceOmitted counts the exchanges left out of Evidence because the check made more than
	// the grader keeps per check (the first and the latest are kept).
	EvidenceOmitted int `json:"evidence_omitted,omitempty"`
}

// Reporter receives the run's events; reporters only format.
type Reporter interface {
	// Start is called once with the ids of the checks that will run, in their order.
	Start(ids []string)
	// CheckDone is called as each check ends (from one goroutine at a time).
	CheckDone(r Result)
	// Finish is called once with the whole run.
	Finish(s *Summary) error
}

// Summary is the whole run: every result and the spec coverage. A run that stopped early (the
// caller's context ended, or the target stopped answering) has a Summary too, so that reports can be
// written: Aborted says why, Interrupted and NotRun count the checks that have no verdict.
type Summary struct {
	// Tool names the run in the reports' titles; empty means "malipo conform". Another grader that
	// reports through these reporters (`malipo webhooks test`) sets its own.
	Tool string `json:"tool,omitempty"`
	// ReplayNote says, above the failures of the HTML report, how the curl commands replay the
	// exchanges; empty means the suite's (they read the keys from the environment).
	ReplayNote string   `json:"replay_note,omitempty"`
	Target     string   `json:"target"`
	Results    []Result `json:"results"`
	Passed     int      `json:"passed"`
	Failed     int      `json:"failed"`
	Skipped    int      `json:"skipped"`
	// Interrupted counts the checks that were running when the run stopped early.
	Interrupted int `json:"interrupted"`
	// NotRun counts the selected checks that had not started when the run stopped early; they have
	// no Result.
	NotRun int `json:"not_run"`
	// Aborted says why the run stopped before every selected check had run; empty when it did not.
	Aborted  string        `json:"aborted,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Coverage Coverage      `json:"coverage"`
	// Rerun is the command line that runs the grader again against the same target, without a
	// selection and without a key; RerunCommand adds the selection of some checks.
	Rerun []string `json:"rerun,omitempty"`
	// Seed is the seed the run drew its generated inputs from (`--seed`): the same seed repeats them.
	// Zero: the grader generates nothing.
	Seed uint64 `json:"seed,omitempty"`
}

// DefaultTool is the name of a run whose Summary.Tool is empty, in the reports' titles: the contract
// suite's, whose JSON report has always left the field out.
const DefaultTool = "malipo conform"

// ToolName returns Tool, or DefaultTool when it is empty.
func (s *Summary) ToolName() string {
	if s.Tool == "" {
		return DefaultTool
	}
	return s.Tool
}

// HasCoverage reports whether the run has coverage to show: a run of the contract suite has; another
// grader's (one that sends no API request) has none, and the reports leave the section out.
func (s *Summary) HasCoverage() bool {
	return s.Coverage.StatusCodesDefined > 0 || len(s.Coverage.WebhookTypes) > 0 || len(s.Coverage.Operations) > 0
}

// OK reports whether the run finished and no check failed: an aborted run proves nothing either way.
func (s *Summary) OK() bool { return s.Failed == 0 && s.Aborted == "" }

// Coverage says how much of the spec a run exercised: each operation's documented status codes that
// were seen, and the webhook types that were delivered.
type Coverage struct {
	Operations         []OperationCoverage `json:"operations"`
	StatusCodesSeen    int                 `json:"status_codes_seen"`
	StatusCodesDefined int                 `json:"status_codes_documented"`
	WebhookTypesSeen   []string            `json:"webhook_types_seen"`
	WebhookTypes       []string            `json:"webhook_types_declared"`
}

// OperationCoverage is one operation's documented status codes, and which of them the run saw.
type OperationCoverage struct {
	Operation  string   `json:"operation"`
	Documented []string `json:"documented"`
	Seen       []string `json:"seen"`
	// Undocumented lists status codes the target sent that the spec does not document.
	Undocumented []string `json:"undocumented,omitempty"`
}

// Count tallies Results by outcome into Passed, Failed, Skipped and Interrupted.
func (s *Summary) Count() {
	for _, r := range s.Results {
		switch r.Outcome {
		case Passed:
			s.Passed++
		case Failed:
			s.Failed++
		case Skipped:
			s.Skipped++
		case Interrupted:
			s.Interrupted++
		}
	}
}

// Preparer is implemented by reporters that write files: the runner calls Prepare before the target is
// even contacted, so that a report that could not be written fails the run at once, not after it.
type Preparer interface {
	Prepare() error
}

// Prepare checks that the JSON report can be written (CheckPath).
func (r JSONReporter) Prepare() error { return CheckPath(r.Path) }

// Prepare checks that the JUnit report can be written (CheckPath).
func (r JUnitReporter) Prepare() error { return CheckPath(r.Path) }

// Prepare checks that the HTML report can be written (CheckPath): a CI job must not lose it after the
// whole run.
func (r HTMLReporter) Prepare() error { return CheckPath(r.Path) }

// Prepare checks that the archive can be written (CheckPath), before Start creates it.
func (h *HARRecorder) Prepare() error { return CheckPath(h.Path) }
