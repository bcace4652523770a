package contracttests

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
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
type TextReporter struct {
	W   io.Writer
	mu  sync.Mutex
	err error // the first write error, returned by Finish
}

func (r *TextReporter) printf(format string, args ...any) {
	if _, err := fmt.Fprintf(r.W, format, args...); err != nil && r.err == nil {
		r.err = fmt.Errorf("write the text report: %w", err)
	}
}

// Start prints the number of checks.
func (r *TextReporter) Start(checks []*Check) {
	r.printf("malipo conform: running %d checks\n", len(checks))
}

// CheckDone prints one progress line.
func (r *TextReporter) CheckDone(res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	line := fmt.Sprintf("%-4s %-58s %6s", strings.ToUpper(string(res.Outcome)), res.ID, res.Duration.Round(time.Millisecond))
	if res.Outcome == Skipped {
		line += "  (" + res.SkipReason + ")"
	}
	r.printf("%s\n", line)
}

// Finish prints coverage and failures.
func (r *TextReporter) Finish(s *Summary) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.printf("\nCoverage: %d of %d documented status codes seen; webhook types seen: %d of %d\n",
		s.Coverage.StatusCodesSeen, s.Coverage.StatusCodesDefined, len(s.Coverage.WebhookTypesSeen), len(s.Coverage.WebhookTypes))
	for _, oc := range s.Coverage.Operations {
		line := fmt.Sprintf("  %-28s seen %-24s of %s", oc.Operation, strings.Join(oc.Seen, ","), strings.Join(oc.Documented, ","))
		if len(oc.Undocumented) > 0 {
			line += "  UNDOCUMENTED: " + strings.Join(oc.Undocumented, ",")
		}
		r.printf("%s\n", line)
	}
	if missing := difference(s.Coverage.WebhookTypes, s.Coverage.WebhookTypesSeen); len(missing) > 0 {
		r.printf("  webhook types never delivered: %s\n", strings.Join(missing, ", "))
	}
	if s.Failed > 0 {
		r.printf("\nFailures:\n")
		for _, res := range s.Results {
			if res.Outcome != Failed {
				continue
			}
			doc := ""
			if res.Check != nil {
				doc = " — " + res.Check.Doc
			}
			r.printf("  %s%s\n", res.ID, doc)
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
		}
	}
	r.printf("\n%d passed, %d failed, %d skipped in %s\n", s.Passed, s.Failed, s.Skipped, s.Duration.Round(time.Millisecond))
	return r.err
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

// JSONReporter writes the whole Summary as JSON to a file when the run ends.
type JSONReporter struct{ Path string }

// Start does nothing.
func (JSONReporter) Start([]*Check) {}

// CheckDone does nothing.
func (JSONReporter) CheckDone(Result) {}

// Finish writes the file.
func (r JSONReporter) Finish(s *Summary) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JSON report: %w", err)
	}
	if err := os.WriteFile(r.Path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// JUnitReporter writes a JUnit XML file (one testsuite per category) that CI systems parse.
type JUnitReporter struct{ Path string }

// Start does nothing.
func (JUnitReporter) Start([]*Check) {}

// CheckDone does nothing.
func (JUnitReporter) CheckDone(Result) {}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
	duration time.Duration
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	// SystemOut holds every exchange of a failed check in full (redacted, bodies up to MaxEvidenceBody).
	SystemOut *junitOutput `xml:"system-out,omitempty"`
}

// junitFailure's text, like system-out, is CDATA so that the exchanges read as they were when the
// file is opened; xmlText keeps out what XML cannot hold.
type junitFailure struct {
	Message string `xml:"message,attr"`
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

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// Finish writes the file.
func (r JUnitReporter) Finish(s *Summary) error {
	byCat := map[Category]*junitSuite{}
	for _, res := range s.Results {
		js := byCat[res.Category]
		if js == nil {
			js = &junitSuite{Name: "malipo." + string(res.Category)}
			byCat[res.Category] = js
		}
		jc := junitCase{Name: res.ID, Classname: "malipo." + string(res.Category), Time: seconds(res.Duration)}
		js.Tests++
		js.duration += res.Duration
		switch res.Outcome {
		case Failed:
			js.Failures++
			var text strings.Builder
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
			msg := ""
			if len(res.Failures) > 0 {
				msg = res.Failures[0].Message
			}
			jc.Failure = &junitFailure{Message: msg, Text: xmlText(text.String())}
			if out := fullEvidence(res); out != "" {
				jc.SystemOut = &junitOutput{Text: xmlText(out)}
			}
		case Skipped:
			js.Skipped++
			jc.Skipped = &junitSkipped{Message: res.SkipReason}
		}
		js.Cases = append(js.Cases, jc)
	}
	for _, js := range byCat {
		js.Time = seconds(js.duration)
	}
	out := junitSuites{Name: "malipo conform", Tests: len(s.Results), Failures: s.Failed, Skipped: s.Skipped, Time: seconds(s.Duration)}
	cats := make([]string, 0, len(byCat))
	for c := range byCat {
		cats = append(cats, string(c))
	}
	sort.Strings(cats)
	for _, c := range cats {
		out.Suites = append(out.Suites, *byCat[Category(c)])
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

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// Limits of the text report's evidence: a body shows as a one-line snippet, and a curl command longer
// than maxTextCurl (one with a large body) is left to the JSON and JUnit reports.
const (
	textSnippet = 160
	maxTextCurl = 2 << 10
)

// compactEvidence renders one exchange in two or three lines, each starting with indent: the request
// (or delivery), the answer, and the curl command.
func compactEvidence(ev Evidence, indent string) string {
	var b strings.Builder
	line := func(label, text string) { b.WriteString(indent + fmt.Sprintf("%-9s ", label+":") + text + "\n") }
	if ev.Kind == EvidenceWebhook {
		what := ev.Operation
		if id := ev.Request.Header.Get("Webhook-Id"); id != "" {
			what += ", webhook-id " + id
		}
		line("delivery", strings.TrimSpace(fmt.Sprintf("%s %s  %s  %s", ev.Request.Method, ev.Request.URL, what, bodySnippet(ev.Request))))
		if ev.Error != "" {
			line("answered", "nothing: "+ev.Error)
		} else {
			line("answered", fmt.Sprintf("%d", ev.Response.Status))
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
			res.EvidenceOmitted, evidenceHead-1, evidenceHead, maxEvidencePerCheck)
	}
	return b.String()
}

// writeMessage writes a message's headers, sorted, and its body.
func writeMessage(b *strings.Builder, m HTTPMessage) {
	names := make([]string, 0, len(m.Header))
	for name := range m.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range m.Header[name] {
			fmt.Fprintf(b, "%s: %s\n", name, v)
		}
	}
	if m.BodySize > 0 {
		b.WriteString("\n" + m.Body + "\n")
		if m.BodyTruncated {
			fmt.Fprintf(b, "(body cut: %d of %d bytes shown)\n", len(m.Body), m.BodySize)
		}
	}
}
