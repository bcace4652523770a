package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// TextReporter prints one line per check as it ends, then a summary with coverage and every failure's
// evidence: under each failure, the exchange it is about in two lines (the request, the answer, bodies
// cut to a snippet) and the curl command that sends the request again. It is what people read in a
// terminal or a CI log; the JSON and JUnit reports hold the whole exchanges.
//
// On a terminal (W is an *os.File that is a character device) it also keeps one progress line at the
// bottom, "[123/276] 2 failed, 1 skipped  last.check.id", redrawn in place with a carriage return and
// an erase-line sequence. Anywhere else (a CI log, a pipe, a file) it writes no control character at
// all: redrawn lines would be noise in a log. There, in quiet mode, the same progress line is printed
// as a line of its own each time another tenth of the checks has ended (logProgressStep), so that a
// CI log of a long run shows it is moving, and where, without a line per check.
type TextReporter struct {
	W io.Writer
	// Command names the run in the first line; empty means DefaultTool.
	Command string
	// Quiet prints the failures (as they happen, then with their evidence at the end) and the summary
	// only: no line per passed or skipped check and no per-operation coverage, so that a CI log of a
	// passing run is a few lines instead of one per check.
	Quiet bool

	mu  sync.Mutex
	err error // the first write error, returned by Finish
	// width is the check-id column: the longest id among the selected checks, so that the durations
	// line up whatever the ids are. Ids are never cut: people copy them into --run.
	width int
	// total is how many checks were selected; done, failed and skipped count those that ended.
	total, done, failed, skipped int
	// terminal says W is a terminal, and so gets the progress line; shown says one is on screen now.
	terminal, shown bool
	// logStep is how many checks end between two progress lines in a quiet log; 0 prints none.
	logStep int
}

// minLogProgressStep is the fewest checks between two progress lines in a quiet log: a run of fewer
// checks than that is over before a reader of the log wonders whether it is moving, and a line every
// few checks would be the per-check listing quiet mode leaves out.
const minLogProgressStep = 25

// logProgressStep is how many checks end between two progress lines in a quiet log of a run of total
// checks: a tenth of them, and no fewer than minLogProgressStep.
func logProgressStep(total int) int {
	return max((total+9)/10, minLogProgressStep)
}

// progressWidth is the longest progress line: it must fit on one row of a terminal (80 columns is the
// common minimum), since a line that wraps can no longer be erased with one carriage return.
const progressWidth = 79

func (r *TextReporter) printf(format string, args ...any) {
	if _, err := fmt.Fprintf(r.W, format, args...); err != nil && r.err == nil {
		r.err = fmt.Errorf("write the text report: %w", err)
	}
}

// isTerminal reports whether w is a terminal: an *os.File whose mode is a character device. A file, a
// pipe or a buffer (CI logs, tests, `| tee`) is not.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Start prints the number of checks and sizes the check-id column to the selected checks.
func (r *TextReporter) Start(ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.terminal = isTerminal(r.W)
	r.total = len(ids)
	if r.Quiet && !r.terminal {
		r.logStep = logProgressStep(r.total)
	}
	for _, id := range ids {
		r.width = max(r.width, len(id))
	}
	command := r.Command
	if command == "" {
		command = DefaultTool
	}
	r.printf("%s: running %d checks\n", command, len(ids))
}

// CheckDone prints the check's line (in quiet mode only one that neither passed nor was skipped), and on a terminal redraws the
// progress line below it; in a quiet log it prints the progress line when another logStep checks have
// ended, but not after the last one, which the summary follows at once.
func (r *TextReporter) CheckDone(res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done++
	switch res.Outcome {
	case Failed:
		r.failed++
	case Skipped:
		r.skipped++
	}
	r.clearProgress()
	if !r.Quiet || (res.Outcome != Passed && res.Outcome != Skipped) {
		line := fmt.Sprintf("%-4s %-*s %7s", strings.ToUpper(string(res.Outcome)), r.width, res.ID, res.Duration.Round(time.Millisecond))
		if res.Outcome == Skipped {
			line += "  (" + res.SkipReason + ")"
		}
		r.printf("%s\n", line)
	}
	switch {
	case r.terminal:
		r.printf("%s", r.progressLine(res.ID))
		r.shown = true
	case r.logStep > 0 && r.done%r.logStep == 0 && r.done < r.total:
		r.printf("%s\n", r.progressLine(res.ID))
	}
}

// progressLine is "[done/total] n failed, n skipped  last.check.id", cut to progressWidth runes.
func (r *TextReporter) progressLine(last string) string {
	line := fmt.Sprintf("[%d/%d]", r.done, r.total)
	if r.failed > 0 {
		line += fmt.Sprintf(" %d failed", r.failed)
	}
	if r.skipped > 0 {
		if r.failed > 0 {
			line += ","
		}
		line += fmt.Sprintf(" %d skipped", r.skipped)
	}
	line += "  " + last
	if runes := []rune(line); len(runes) > progressWidth {
		line = string(runes[:progressWidth-1]) + "…"
	}
	return line
}

// clearProgress erases the progress line, if one is on screen, so that the next output starts at the
// beginning of an empty row.
func (r *TextReporter) clearProgress() {
	if r.shown {
		r.printf("\r\x1b[K")
		r.shown = false
	}
}

// Finish prints coverage, the findings, the failures and the counts.
func (r *TextReporter) Finish(s *Summary) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearProgress()
	if s.HasCoverage() {
		r.coverage(s)
	}
	findings := Findings(s)
	show := showFindings(s, findings)
	if show {
		r.findings(s, findings)
	}
	r.failures(s)
	if s.Aborted != "" {
		r.printf("\nRun stopped early: %s\n", s.Aborted)
		r.printf("\n%d passed, %d failed, %d skipped, %d interrupted, %d not run in %s%s\n", s.Passed, s.Failed, s.Skipped,
			s.Interrupted, s.NotRun, s.Duration.Round(time.Millisecond), seedNote(s))
		return r.err
	}
	if show {
		// The end of a long log is where it is read first: it names the finding to start with.
		r.printf("\nThe %d failed checks are %d findings (above the failures); the largest, %s: %s\n",
			s.Failed, len(findings), checksCount(findings[0].Count), findings[0].Headline())
	}
	r.printf("\n%d passed, %d failed, %d skipped in %s%s\n", s.Passed, s.Failed, s.Skipped, s.Duration.Round(time.Millisecond), seedNote(s))
	return r.err
}

// seedNote names the run's seed after its counts ("; generated inputs from --seed 42"), so that a
// log's last line says how to repeat what it generated; "" when the run generated nothing.
func seedNote(s *Summary) string {
	if s.Seed == 0 {
		return ""
	}
	return fmt.Sprintf("; generated inputs from --seed %d", s.Seed)
}

// coverage prints the coverage of the document: status codes per operation, webhook types.
func (r *TextReporter) coverage(s *Summary) {
	r.printf("\nCoverage: %d of %d documented status codes seen; webhook types seen: %d of %d\n",
		s.Coverage.StatusCodesSeen, s.Coverage.StatusCodesDefined, len(s.Coverage.WebhookTypesSeen), len(s.Coverage.WebhookTypes))
	for _, oc := range s.Coverage.Operations {
		if r.Quiet && len(oc.Undocumented) == 0 {
			continue // quiet: only the operations that answered with a status the document lacks
		}
		line := fmt.Sprintf("  %-28s seen %-24s of %s", oc.Operation, strings.Join(oc.Seen, ","), strings.Join(oc.Documented, ","))
		if len(oc.Undocumented) > 0 {
			line += "  UNDOCUMENTED: " + strings.Join(oc.Undocumented, ",")
		}
		r.printf("%s\n", line)
	}
	if missing := difference(s.Coverage.WebhookTypes, s.Coverage.WebhookTypesSeen); len(missing) > 0 && s.Aborted == "" {
		r.printf("  webhook types never delivered: %s\n", strings.Join(missing, ", "))
	}
}

// checksCount is "1 check" or "n checks".
func checksCount(n int) string {
	if n == 1 {
		return "1 check"
	}
	return fmt.Sprintf("%d checks", n)
}

// findingsListed is how many check ids the text report lists under a finding; the JSON and HTML
// reports list them all.
const findingsListed = 5

// findings prints the findings, largest first: the document's words (or the violation) with the number
// of checks, then how the rule was broken, where the document states it, and which checks.
func (r *TextReporter) findings(s *Summary, findings []Finding) {
	r.printf("\nFindings: the %d failed checks break %d rules (a check that failed in several ways counts once):\n", s.Failed, len(findings))
	for i, f := range findings {
		r.printf("  %d. %s \u2014 %s\n", i+1, f.Headline(), checksCount(f.Count))
		if f.Says != "" {
			r.printf("     violation: %s\n", f.Violation)
		}
		switch {
		case len(f.Locations) > 1:
			r.printf("     where: %d places: %s\n", len(f.Locations), listed(f.Locations, 3))
		case f.Rule.Pointer != "":
			r.printf("     where: %s\n", f.Rule.Pointer)
		}
		r.printf("     checks: %s\n", listed(f.Checks, findingsListed))
	}
}

// listed joins the first n items and says how many more there are.
func listed(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

// failures prints every failure with the exchanges it is about, under its check with the rule the
// check enforces and the command that runs it again.
func (r *TextReporter) failures(s *Summary) {
	if s.Failed > 0 {
		r.printf("\nFailures:\n")
		for _, res := range s.Results {
			if res.Outcome != Failed {
				continue
			}
			doc := ""
			if res.Doc != "" {
				doc = " \u2014 " + res.Doc
			}
			r.printf("  %s%s\n", res.ID, doc)
			if words := RuleWords(res.Rule); words != "" {
				r.printf("    the document says: %s\n", words)
			}
			shown := map[int]bool{}
			for _, f := range res.Failures {
				r.printf("    %s\n", f)
				for _, i := range f.Evidence {
					if i < 0 || i >= len(res.Evidence) || shown[i] {
						continue
					}
					shown[i] = true
					r.printf("%s", compactEvidence(res.Evidence[i], "      "))
				}
			}
			if rerun := s.RerunCommand(res.ID); rerun != "" {
				r.printf("    rerun: %s\n", rerun)
			}
		}
	}
}

func difference(all, some []string) []string {
	have := map[string]bool{}
	for _, s := range some {
		have[s] = true
	}
	var out []string
	for _, a := range all {
		if !have[a] {
			out = append(out, a)
		}
	}
	return out
}

// JSONReporter writes the whole Summary as JSON to a file when the run ends, with its findings
// (Findings) as "findings".
type JSONReporter struct{ Path string }

// Start does nothing.
func (JSONReporter) Start([]string) {}

// CheckDone does nothing.
func (JSONReporter) CheckDone(Result) {}

// Finish writes the file.
func (r JSONReporter) Finish(s *Summary) error {
	data, err := json.MarshalIndent(struct {
		*Summary
		Findings []Finding `json:"findings,omitempty"`
	}{s, Findings(s)}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JSON report: %w", err)
	}
	if err := os.WriteFile(r.Path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// JUnitReporter writes a JUnit XML file (one testsuite per category) that CI systems parse.
//
// The file is valid against the JUnit schema Jenkins' xUnit plugin publishes (junit-4.xsd, which
// GitLab, Azure DevOps and most CI importers follow), and carries everything the stricter Apache Ant
// schema requires of a testsuite as well (timestamp, hostname, id, package, properties, system-out
// and system-err in that order, decimal times, a type on every failure): a file without skipped
// checks, less the counts on <testsuites>, which Ant's schema has no place for, is valid against it
// too. A check that failed is a <failure>; one that neither passed, failed nor was skipped (a check
// the run could not finish) is an <error>, with its outcome as the type. The failure's text, which is
// what GitLab shows of it (it ignores the message attribute), starts with what the document says and
// where (file and line), then each failure with its exchange.
type JUnitReporter struct {
	Path string
	// GitLab adds what GitLab's test report reads beyond those schemas: the file attribute of a failed
	// testcase, the document that states its rule (GitLab's Filename column). Jenkins' and Ant's schemas
	// have no such attribute, so the CLI sets it only in a GitLab CI job.
	GitLab bool
}

// Start does nothing.
func (JUnitReporter) Start([]string) {}

// CheckDone does nothing.
func (JUnitReporter) CheckDone(Result) {}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Hostname   string          `xml:"hostname,attr"`
	ID         int             `xml:"id,attr"`
	Package    string          `xml:"package,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out"`
	SystemErr  string          `xml:"system-err"`
	duration   time.Duration
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	File      string        `xml:"file,attr,omitempty"` // JUnitReporter.GitLab only
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	// SystemOut holds every exchange of a failed check in full (redacted, bodies up to MaxEvidenceBody).
	SystemOut *junitOutput `xml:"system-out,omitempty"`
}

// junitFailure's text, like system-out, is CDATA so that the exchanges read as they were when the
// file is opened; xmlText keeps out what XML cannot hold.
type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

type junitOutput struct {
	Text string `xml:",cdata"`
}

// xmlText replaces what XML 1.0 cannot hold, even in CDATA (control characters, invalid UTF-8, as a
// body may contain), with U+FFFD.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r', r >= 0x20 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return utf8.RuneError
	}, s)
}

// junitSkipped holds the skip reason as text: Jenkins' schema types <skipped> as a string and allows
// it no attribute.
type junitSkipped struct {
	Reason string `xml:",chardata"`
}

// junitTimestamp is the format of a testsuite's timestamp: ISO 8601 without a zone, as Ant's schema
// requires (its pattern allows none); the time is UTC.
const junitTimestamp = "2006-01-02T15:04:05"

// Finish writes the file.
func (r JUnitReporter) Finish(s *Summary) error {
	hostname, err := os.Hostname()
	if err != nil || strings.TrimSpace(hostname) == "" {
		hostname = "localhost"
	}
	// The run started Duration before it was summed up; every suite ran in that window.
	started := time.Now().Add(-s.Duration).UTC().Format(junitTimestamp)
	out := junitSuites{Name: s.ToolName(), Time: seconds(s.Duration)}
	byCat := map[Category]*junitSuite{}
	for _, res := range s.Results {
		js := byCat[res.Category]
		if js == nil {
			name := "malipo." + string(res.Category)
			js = &junitSuite{Name: name, Package: name, Timestamp: started, Hostname: hostname,
				Properties: []junitProperty{{Name: "target", Value: s.Target}}}
			if s.Seed != 0 {
				js.Properties = append(js.Properties, junitProperty{Name: "seed", Value: strconv.FormatUint(s.Seed, 10)})
			}
			byCat[res.Category] = js
		}
		jc := junitCaseOf(res)
		if r.GitLab && (jc.Failure != nil || jc.Error != nil) {
			jc.File = ruleFile(res)
		}
		js.Cases = append(js.Cases, jc)
		js.Tests++
		js.duration += res.Duration
		switch res.Outcome {
		case Passed:
		case Failed:
			js.Failures++
		case Skipped:
			js.Skipped++
		case Interrupted: // JUnit has no such state; skipped is the one that claims no verdict
			js.Skipped++
		default:
			js.Errors++
		}
	}
	cats := make([]string, 0, len(byCat))
	for c := range byCat {
		cats = append(cats, string(c))
	}
	sort.Strings(cats)
	for i, c := range cats {
		js := byCat[Category(c)]
		// A suite's time is the sum of its checks' times: they run concurrently, so the sums of all
		// suites exceed the run's wall-clock time, which is the time of <testsuites>.
		js.ID, js.Time = i, seconds(js.duration)
		out.Tests += js.Tests
		out.Failures += js.Failures
		out.Errors += js.Errors
		out.Suites = append(out.Suites, *js)
	}
	data, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JUnit report: %w", err)
	}
	if err := os.WriteFile(r.Path, append([]byte(xml.Header), append(data, '\n')...), 0o644); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	return nil
}

// junitCaseOf is one check as a testcase: a failure, an error (an outcome other than pass, fail and
// skip) or a skip. A failure's text has what the document says (RuleWords: the words, the pointer, the
// file and line), then each failure with the exchange it is about in short; the testcase's system-out
// has every exchange of the check in full.
func junitCaseOf(res Result) junitCase {
	jc := junitCase{Name: res.ID, Classname: "malipo." + string(res.Category), Time: seconds(res.Duration)}
	var text strings.Builder
	if words := RuleWords(res.Rule); words != "" {
		text.WriteString("the document says: " + words + "\n")
	}
	shown := map[int]bool{}
	for _, f := range res.Failures {
		text.WriteString(f.String() + "\n")
		for _, i := range f.Evidence {
			if i >= 0 && i < len(res.Evidence) && !shown[i] {
				shown[i] = true
				text.WriteString(compactEvidence(res.Evidence[i], "  "))
			}
		}
	}
	msg := res.SkipReason
	if len(res.Failures) > 0 {
		msg = res.Failures[0].Message
	}
	switch res.Outcome {
	case Passed:
	case Failed:
		jc.Failure = &junitFailure{Message: msg, Type: "conformance", Text: xmlText(text.String())}
		jc.SystemOut = junitOutputOf(res)
	case Skipped:
		jc.Skipped = &junitSkipped{Reason: res.SkipReason}
	case Interrupted:
		jc.Skipped = &junitSkipped{Reason: "interrupted: " + res.Interruption}
	default:
		jc.Error = &junitFailure{Message: msg, Type: string(res.Outcome), Text: xmlText(text.String())}
		jc.SystemOut = junitOutputOf(res)
	}
	return jc
}

// ruleFile is the file of the document that states a check's rule (Rule.At), else of its first failure
// that names one; "" when the grader found none.
func ruleFile(res Result) string {
	if res.Rule.At.File != "" {
		return res.Rule.At.File
	}
	for _, f := range res.Failures {
		if f.At.File != "" {
			return f.At.File
		}
	}
	return ""
}

// junitOutputOf is a failed check's <system-out>: its exchanges in full, or nothing.
func junitOutputOf(res Result) *junitOutput {
	if out := fullEvidence(res); out != "" {
		return &junitOutput{Text: xmlText(out)}
	}
	return nil
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// Limits of the text report's evidence: a body shows as a one-line snippet, and a curl command longer
// than maxTextCurl (one with a large body) is left to the JSON and JUnit reports.
const (
	textSnippet = 160
	maxTextCurl = 2 << 10 // 2 KiB
)

// compactEvidence renders one exchange in two or three lines, each starting with indent: the request
// (or delivery), the answer, and the curl command.
func compactEvidence(ev Evidence, indent string) string {
	var b strings.Builder
	line := func(label, text string) { b.WriteString(indent + fmt.Sprintf("%-9s ", label+":") + text + "\n") }
	if ev.Kind == EvidenceWebhook || ev.Kind == EvidenceDelivery {
		// A webhook the target sent to the suite's receiver, or a delivery the receiver grader sent to
		// the receiver under test: only the latter's answer body and replay command matter to the reader.
		what := ev.Operation
		if id := ev.Request.Header.Get("Webhook-Id"); id != "" {
			what += ", webhook-id " + id
		}
		line("delivery", strings.TrimSpace(fmt.Sprintf("%s %s  %s  %s", ev.Request.Method, ev.Request.URL, what, bodySnippet(ev.Request))))
		switch {
		case ev.Error != "":
			line("answered", "nothing: "+ev.Error)
		case ev.Kind == EvidenceDelivery:
			line("answered", strings.TrimSpace(fmt.Sprintf("%d  %s", ev.Response.Status, bodySnippet(ev.Response))))
		default:
			line("answered", fmt.Sprintf("%d", ev.Response.Status))
		}
		if ev.Kind == EvidenceDelivery && ev.Curl != "" && len(ev.Curl) <= maxTextCurl {
			line("replay", ev.Curl)
		}
		return b.String()
	}
	req := ev.Request.Method + " " + ev.Request.URL
	if keys := keyHeadersSent(ev.Request.Header); keys != "" {
		req += "  " + keys
	}
	if s := bodySnippet(ev.Request); s != "" {
		req += "  " + s
	}
	line("request", req)
	if ev.Error != "" {
		line("response", "none: "+ev.Error)
	} else {
		resp := fmt.Sprintf("%d", ev.Response.Status)
		if ct := ev.Response.Header.Get("Content-Type"); ct != "" {
			resp += " " + ct
		}
		if s := bodySnippet(ev.Response); s != "" {
			resp += "  " + s
		}
		line("response", resp)
	}
	switch {
	case ev.Curl == "":
	case len(ev.Curl) > maxTextCurl:
		line("replay", fmt.Sprintf("a %d-character curl command (the body is large): in the JSON and JUnit reports", len(ev.Curl)))
	default:
		line("replay", strings.ReplaceAll(ev.Curl, "\n", "\n"+indent+"          "))
	}
	return b.String()
}

// keyHeadersSent names the key headers a request carried, with their redacted values.
func keyHeadersSent(h http.Header) string {
	var parts []string
	for _, name := range []string{api.HeaderPublicKey, api.HeaderSecretKey} {
		for _, v := range h.Values(name) {
			parts = append(parts, name+": "+v)
		}
	}
	if len(parts) == 0 {
		return "(no key header)"
	}
	return strings.Join(parts, ", ")
}

// bodySnippet is a body on one line, cut to textSnippet characters, with its size.
func bodySnippet(m HTTPMessage) string {
	if m.BodySize == 0 {
		return ""
	}
	s := strings.Join(strings.Fields(m.Body), " ")
	if r := []rune(s); len(r) > textSnippet {
		s = string(r[:textSnippet]) + "…"
	}
	return fmt.Sprintf("(%d B) %s", m.BodySize, s)
}

// fullEvidence renders every exchange of a result in full, in the form of HTTP messages, for JUnit's
// system-out.
func fullEvidence(res Result) string {
	if len(res.Evidence) == 0 {
		return ""
	}
	var b strings.Builder
	for i, ev := range res.Evidence {
		fmt.Fprintf(&b, "=== #%d %s %s, started %s, took %s\n", i, ev.Kind, ev.Operation,
			ev.Started.UTC().Format(time.RFC3339Nano), ev.Duration.Round(time.Microsecond))
		fmt.Fprintf(&b, "%s %s\n", ev.Request.Method, ev.Request.URL)
		writeMessage(&b, ev.Request)
		switch {
		case ev.Error != "":
			fmt.Fprintf(&b, "--- no answer: %s\n", ev.Error)
		case ev.Kind == EvidenceWebhook:
			fmt.Fprintf(&b, "--- the receiver answered %d\n", ev.Response.Status)
		default:
			fmt.Fprintf(&b, "--- HTTP %d\n", ev.Response.Status)
			writeMessage(&b, ev.Response)
		}
		if ev.Curl != "" {
			fmt.Fprintf(&b, "--- replay:\n%s\n", ev.Curl)
		}
		b.WriteString("\n")
	}
	if res.EvidenceOmitted > 0 {
		fmt.Fprintf(&b, "(%d exchanges between #%d and #%d were not kept: a check keeps at most %d)\n",
			res.EvidenceOmitted, EvidenceHead-1, EvidenceHead, MaxEvidencePerCheck)
	}
	return b.String()
}

// writeMessage writes a message's headers, sorted, and its body.
func writeMessage(b *strings.Builder, m HTTPMessage) {
	for _, line := range m.headerLines() {
		b.WriteString(line + "\n")
	}
	if m.BodySize > 0 {
		b.WriteString("\n" + m.Body + "\n")
		if m.BodyTruncated {
			fmt.Fprintf(b, "(body cut: %d of %d bytes shown)\n", len(m.Body), m.BodySize)
		}
	}
}
