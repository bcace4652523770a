package report

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// GitHubReporter writes what GitHub Actions shows of a run, for a run in a workflow job (the CLI adds
// it when GITHUB_ACTIONS is true and passes it the step's outputs; the reporter only formats):
//
//   - one error annotation per finding (Findings: the largest first), as a workflow command on W, the
//     step's standard output: `::error file=…,line=…,title=…::message` on the line of the document
//     that states the rule (Rule.At, which the grader fills), or without file and line for a rule the
//     grader cites from another text (Standard Webhooks). GitHub shows the first MaxStepAnnotations
//     errors of a step, on the file in a pull request's diff and in the run's summary; an annotation
//     on a file the repository does not have shows in the run's summary only.
//   - a job summary in Markdown appended to SummaryPath ($GITHUB_STEP_SUMMARY): the verdict, the
//     counts by outcome, the findings (the document's words, where it says them, how many checks, how
//     the first broke it), how many annotations there are, the command that reruns the failed checks
//     with the run's seed, and every failed check. It is cut to fit GitHub's limit, saying what was
//     left out (MaxStepSummary).
type GitHubReporter struct {
	// W receives the workflow commands: the step's standard output.
	W io.Writer
	// SummaryPath is the step's summary file, appended to; empty writes no summary.
	SummaryPath string
	// SummaryLimit is the size in bytes the summary file may reach, what was in it before included; 0
	// means MaxStepSummary.
	SummaryLimit int
	// Workspace is the checkout GitHub reads an annotation's file from ($GITHUB_WORKSPACE): a document
	// given by a path on disk (--spec) is cited relative to it, and without a file when it lies
	// outside; a path no file has (the embedded document's) is cited as it is. Empty: as it is.
	Workspace string

	// token stops GitHub reading workflow commands from W between Start and Finish (stop-commands):
	// the text report on the same output quotes what the target sent, which could otherwise forge
	// an annotation, a mask or a stop of its own.
	token string
	// noSummary says why the summary file cannot be written (Prepare): the run goes on without it.
	noSummary string
}

// GitHub's limits on a step.
const (
	// MaxStepAnnotations is how many error annotations of a step GitHub shows; it drops the others.
	MaxStepAnnotations = 10
	// MaxStepSummary is the largest summary a step may leave, in bytes: GitHub shows none of a larger
	// one.
	MaxStepSummary = 1 << 20
)

// The summary's limits: a table cell holds one line of text, cut to a readable length; the note that
// says what a cut summary left out has its room kept.
const (
	summaryCell    = 240
	summaryReserve = 1 << 10
)

// Prepare checks that the summary file can be written (CheckPath). One that cannot is no reason to stop
// the run: a convenience of the job's page, its absence is a warning on it (Finish).
func (r *GitHubReporter) Prepare() error {
	if r.SummaryPath != "" {
		if err := CheckPath(r.SummaryPath); err != nil {
			r.noSummary = err.Error()
		}
	}
	return nil
}

// Start stops GitHub reading workflow commands from W until Finish, with a random token: what the
// other reporters print meanwhile (the target's answers quoted in failures) is text, whatever it holds.
func (r *GitHubReporter) Start([]string) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	r.token = hex.EncodeToString(b[:])
	_, _ = io.WriteString(r.W, "::stop-commands::"+r.token+"\n")
}

// CheckDone does nothing: the annotations are findings, known when the run ends.
func (*GitHubReporter) CheckDone(Result) {}

// Finish resumes the workflow commands (it comes after the text report's summary: the CLI lists it
// last), then writes the annotations and appends the summary.
func (r *GitHubReporter) Finish(s *Summary) error {
	var errs []error
	if r.token != "" {
		if _, err := io.WriteString(r.W, "::"+r.token+"::\n"); err != nil {
			errs = append(errs, fmt.Errorf("write the GitHub annotations: %w", err))
		}
	}
	findings := Findings(s)
	commands := Annotations(s, r.inWorkspace(findings))
	if r.noSummary != "" {
		commands = append(commands, "::warning title="+escapeProperty(s.ToolName()+": no job summary")+"::"+
			escapeData("the job summary was not written: "+r.noSummary))
	}
	if len(commands) > 0 {
		if _, err := io.WriteString(r.W, strings.Join(commands, "\n")+"\n"); err != nil {
			errs = append(errs, fmt.Errorf("write the GitHub annotations: %w", err))
		}
	}
	if r.SummaryPath != "" && r.noSummary == "" {
		if err := r.appendSummary(s, findings); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// inWorkspace returns findings with each rule's file as GitHub reads it from the Workspace.
func (r *GitHubReporter) inWorkspace(findings []Finding) []Finding {
	if r.Workspace == "" {
		return findings
	}
	out := make([]Finding, len(findings))
	for i, f := range findings {
		f.Rule.At = r.workspacePlace(f.Rule.At)
		out[i] = f
	}
	return out
}

// workspacePlace is at with its file relative to the Workspace (see Workspace); the file left out
// when it lies outside.
func (r *GitHubReporter) workspacePlace(at Place) Place {
	if at.File == "" {
		return at
	}
	if _, err := os.Stat(at.File); err != nil {
		return at // no file on disk: the embedded document's path, cited as it is
	}
	abs, err := filepath.Abs(at.File)
	if err != nil {
		return Place{}
	}
	workspace, err := filepath.Abs(r.Workspace)
	if err != nil {
		return Place{}
	}
	rel, err := filepath.Rel(workspace, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return Place{} // outside the checkout: no file of the repository to annotate
	}
	return Place{File: filepath.ToSlash(rel), Line: at.Line}
}

// appendSummary appends the summary to SummaryPath within what the limit leaves of it.
func (r GitHubReporter) appendSummary(s *Summary, findings []Finding) error {
	limit := r.SummaryLimit
	if limit <= 0 {
		limit = MaxStepSummary
	}
	var before int64
	if info, err := os.Stat(r.SummaryPath); err == nil {
		before = info.Size()
	}
	text := StepSummary(s, findings, limit-int(before))
	if text == "" {
		return nil
	}
	if before > 0 {
		text = "\n" + text // a block of its own after what the step wrote before
	}
	f, err := os.OpenFile(r.SummaryPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("write the GitHub job summary: %w", err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write the GitHub job summary %s: %w", r.SummaryPath, err)
	}
	return nil
}

// Annotations are the run's workflow commands: an error for a run that stopped early, then one error
// per finding, in the order of findings (the largest first, so that the MaxStepAnnotations GitHub
// shows are the ones that explain most).
func Annotations(s *Summary, findings []Finding) []string {
	tool := s.ToolName()
	var out []string
	if s.Aborted != "" {
		out = append(out, workflowError(Place{}, tool+" stopped early",
			fmt.Sprintf("%s; %d checks were interrupted and %d did not run: what they would have found is unknown", s.Aborted, s.Interrupted, s.NotRun)))
	}
	for _, f := range findings {
		lines := []string{f.Violation}
		if f.Says != "" {
			lines[0] = "the first check: " + f.Violation
		}
		if f.Rule.Pointer != "" {
			where := "where: " + withPlace(f.Rule.Pointer, f.Rule.At)
			if others := otherLocations(f); len(others) > 0 {
				where += " and " + plural(len(others), "more place") + ": " + listed(others, 3)
			}
			lines = append(lines, where)
		}
		lines = append(lines, "checks: "+listed(f.Checks, findingsListed))
		if len(f.Checks) <= findingsListed {
			if rerun := s.RerunCommand(f.Checks...); rerun != "" {
				lines = append(lines, "rerun: "+rerun)
			}
		}
		title := fmt.Sprintf("%s: %s (%s)", tool, cutRunes(oneLine(f.Headline()), 120), checksCount(f.Count))
		out = append(out, workflowError(f.Rule.At, title, strings.Join(lines, "\n")))
	}
	return out
}

// workflowError is an `::error` workflow command: on file and line when at has both, with a title and
// a message, each escaped as GitHub's runner reads them (escapeData, escapeProperty).
func workflowError(at Place, title, message string) string {
	var props []string
	if at.File != "" && at.Line > 0 {
		props = append(props, "file="+escapeProperty(at.File), fmt.Sprintf("line=%d", at.Line))
	}
	props = append(props, "title="+escapeProperty(title))
	return "::error " + strings.Join(props, ",") + "::" + escapeData(message)
}

// escapeData escapes a workflow command's message: '%', CR and LF, which the runner decodes (a message
// of several lines is one command).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value: what escapeData escapes, and ':' and ',',
// which end a property.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// StepSummary is the job summary of a run and its findings in GitHub-flavoured Markdown, at most limit
// bytes: what does not fit is left out from the end (the failed checks first, then the rerun command,
// then the findings), and a last line says what was. "" when not even the head fits.
func StepSummary(s *Summary, findings []Finding, limit int) string {
	w := &summaryWriter{limit: limit}
	tool := s.ToolName()
	var head strings.Builder
	switch total := len(s.Results) + s.NotRun; {
	case s.Aborted != "":
		fmt.Fprintf(&head, "### \u26a0\ufe0f %s stopped early\n\n%s\n\n", mdText(tool), mdText(s.Aborted))
	case s.Failed > 0:
		fmt.Fprintf(&head, "### \u274c %s: %d of %s failed\n\n", mdText(tool), s.Failed, checksCount(total))
	default:
		fmt.Fprintf(&head, "### \u2705 %s: every check passed\n\n", mdText(tool))
	}
	facts := []string{"Target " + mdCode(s.Target), fmt.Sprintf("%s in %s", checksCount(len(s.Results)), s.Duration.Round(time.Millisecond))}
	if s.Seed != 0 {
		facts = append(facts, fmt.Sprintf("generated from `--seed %d`", s.Seed))
	}
	head.WriteString(strings.Join(facts, " \u00b7 ") + "\n\n")
	head.WriteString(table([]string{"Outcome", "Checks"}, []string{"---", "---:"}))
	counts := [][2]any{{"passed", s.Passed}, {"failed", s.Failed}, {"skipped", s.Skipped}}
	if s.Interrupted > 0 || s.NotRun > 0 || s.Aborted != "" {
		counts = append(counts, [2]any{"interrupted", s.Interrupted}, [2]any{"not run", s.NotRun})
	}
	for _, c := range counts {
		head.WriteString(row(fmt.Sprint(c[0]), fmt.Sprint(c[1])))
	}
	if !w.add(head.String() + "\n") {
		return ""
	}

	if len(findings) > 0 {
		annotations := len(findings) // Annotations: one per finding, and one for a run that stopped early
		if s.Aborted != "" {
			annotations++
		}
		shown := plural(annotations, "error annotation") + ", one per finding, on the line of the document that states its rule"
		if s.Aborted != "" {
			shown += ", and one that says the run stopped early"
		}
		if annotations > MaxStepAnnotations {
			shown += fmt.Sprintf("; GitHub shows the first %d of a step, so the others are here and in the log only", MaxStepAnnotations)
		}
		intro := fmt.Sprintf("#### Findings\n\nThe failed checks (%d) break %s, the largest finding first (a check that failed in several ways counts once). The step has %s.\n\n",
			s.Failed, plural(len(findings), "rule"), shown)
		rows := make([]string, len(findings))
		for i, f := range findings {
			says := cmp.Or(f.Says, citation(f), "\u2014")
			rows[i] = row(fmt.Sprint(i+1), mdText(cutRunes(oneLine(says), summaryCell)), findingWhere(f), fmt.Sprint(f.Count),
				mdText(cutRunes(oneLine(f.Violation), summaryCell)))
		}
		w.table(intro, table([]string{"#", "The document says", "Where", "Checks", "How the first check broke it"},
			[]string{"---:", "---", "---", "---:", "---"}), rows, "findings")
	}

	var failed []Result
	var ids []string
	for _, res := range s.Results {
		if res.Outcome == Failed {
			failed = append(failed, res)
			ids = append(ids, res.ID)
		}
	}
	if rerun := s.RerunCommand(ids...); rerun != "" {
		w.addOr("#### Rerun the failed checks\n\nWith the run's seed, against the same target (keys and secrets come from the environment, as in the run):\n\n"+
			mdFence(rerun, "sh")+"\n", "the command that reruns the failed checks")
	}
	if len(failed) > 0 {
		rows := make([]string, len(failed))
		for i, res := range failed {
			words := cmp.Or(res.Rule.Quote, res.Rule.Says)
			if words == "" && len(res.Failures) > 0 && !strings.HasPrefix(res.Failures[0].SpecLocation, "#/") {
				words = res.Failures[0].SpecLocation // a rule cited from a text, in its words
			}
			first := "\u2014"
			if len(res.Failures) > 0 {
				f := res.Failures[0]
				first = f.Message
				if f.Pointer != "" {
					first = f.Pointer + ": " + first
				}
				first = mdText(cutRunes(oneLine(first), summaryCell))
			}
			rows[i] = row(mdCode(res.ID), mdText(cutRunes(oneLine(cmp.Or(words, "\u2014")), summaryCell)), placeCell(res.Rule.Pointer, res.Rule.At), first)
		}
		w.table("#### Failed checks\n\n", table([]string{"Check", "The document says", "Where", "First failure"},
			[]string{"---", "---", "---", "---"}), rows, "failed checks")
	}
	if len(w.left) > 0 {
		fmt.Fprintf(&w.b, "_The summary stops here: GitHub keeps at most %d KiB of a step's summary. Left out: %s. The log and the --junit, --json and --html reports have every failure._\n",
			MaxStepSummary>>10, strings.Join(w.left, ", "))
	}
	return w.b.String()
}

// summaryWriter builds a summary within a limit, keeping summaryReserve bytes for the note that says
// what was left out; once something does not fit, nothing after it is added.
type summaryWriter struct {
	b     strings.Builder
	limit int
	cut   bool
	left  []string // what was left out, for the note
}

// add appends text if it fits, and reports whether it did.
func (w *summaryWriter) add(text string) bool {
	if w.cut || w.b.Len()+len(text)+summaryReserve > w.limit {
		w.cut = true
		return false
	}
	w.b.WriteString(text)
	return true
}

// addOr appends text, or notes what as left out.
func (w *summaryWriter) addOr(text, what string) {
	if !w.add(text) {
		w.left = append(w.left, what)
	}
}

// table appends a section: intro and header with the first row, then the rows that fit; it notes how
// many rows of what were left out.
func (w *summaryWriter) table(intro, header string, rows []string, what string) {
	if len(rows) == 0 {
		return
	}
	n := 0
	if w.add(intro + header + rows[0]) {
		n = 1
		for n < len(rows) && w.add(rows[n]) {
			n++
		}
		w.b.WriteString("\n")
	}
	if n < len(rows) {
		w.left = append(w.left, fmt.Sprintf("%d of %d %s", len(rows)-n, len(rows), what))
	}
}

// findingWhere is a finding's place: the file and line of its rule and its pointer, then the other
// places of the document that state it when several operations do.
func findingWhere(f Finding) string {
	where := placeCell(f.Rule.Pointer, f.Rule.At)
	others := otherLocations(f)
	if len(others) == 0 {
		return where
	}
	codes := make([]string, 0, 3)
	for _, l := range others[:min(3, len(others))] {
		codes = append(codes, mdCode(l))
	}
	where += " and " + plural(len(others), "more place") + ": " + strings.Join(codes, ", ")
	if len(others) > 3 {
		where += fmt.Sprintf(" and %d more", len(others)-3)
	}
	return where
}

// otherLocations are the places of the document that state a finding's rule besides its Rule (one each
// operation states for itself, broken alike by several).
func otherLocations(f Finding) []string {
	var others []string
	for _, l := range f.Locations {
		if l != f.Rule.Pointer && l != citation(f) {
			others = append(others, l)
		}
	}
	return others
}

// citation is the words of a finding's rule when the grader cites it in words rather than by a pointer
// into the document (Standard Webhooks, "Verifying webhook authenticity": …): the summary shows them as
// what the rule says, not as another place beside the Rule the finding may also be placed at.
func citation(f Finding) string {
	if len(f.Locations) == 0 || strings.HasPrefix(f.Locations[0], "#/") {
		return ""
	}
	return f.Locations[0]
}

// placeCell is a rule's file and line, then its pointer, as code; an em dash when neither is known.
func placeCell(pointer string, at Place) string {
	var parts []string
	if s := at.String(); s != "" {
		parts = append(parts, mdCode(s))
	}
	if pointer != "" {
		parts = append(parts, mdCode(pointer))
	}
	if len(parts) == 0 {
		return "\u2014"
	}
	return strings.Join(parts, " ")
}

// table is a Markdown table's header and delimiter rows.
func table(header, align []string) string { return row(header...) + row(align...) }

// row is a Markdown table row of cells that are Markdown already; a '|' in a cell (text or code) is
// escaped, as GFM tables require even inside code spans.
func row(cells ...string) string {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// mdText is text that renders as itself in a Markdown paragraph or table cell: on one line, with every
// character that Markdown or GitHub would read as markup (emphasis, code, links and www. autolinks,
// HTML, headings, strike-through, entities, emoji and mentions, math) backslash-escaped. '|' is left
// to row.
func mdText(s string) string {
	var b strings.Builder
	line := oneLine(s)
	for i, r := range line {
		// GitHub links www.host by itself: the dot after www is escaped so that it is text.
		if strings.ContainsRune("\\`*_[]<>#~&:@$!", r) || r == '.' && i >= 3 && strings.EqualFold(line[i-3:i], "www") {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode is s as an inline code span, on one line: delimited by more backticks than s has in a row, and
// padded with a space where s starts or ends with a backtick.
func mdCode(s string) string {
	s = oneLine(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdFence is s as a fenced code block with an info string: the fence is longer than any run of
// backticks in s.
func mdFence(s, info string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + info + "\n" + s + "\n" + fence + "\n"
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c rune) int {
	longest, n := 0, 0
	for _, r := range s {
		if r == c {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}

// plural is "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// oneLine joins the lines and runs of white space of s with single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cutRunes cuts s to n runes, the last an ellipsis.
func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "\u2026"
	}
	return s
}
