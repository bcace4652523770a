package contracttests

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// TextReporter prints one line per check as it ends, then a summary with coverage and every failure's
// evidence. It is what people read in a terminal or a CI log.
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
	if missing := difference(s.Coverage.WebhookTypes, s.Coverage.WebhookTypesSeen); len(missing) > 0 && s.Aborted == "" {
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
			for _, f := range res.Failures {
				r.printf("    %s\n", f)
			}
		}
	}
	if s.Aborted != "" {
		r.printf("\nRun stopped early: %s\n", s.Aborted)
		r.printf("\n%d passed, %d failed, %d skipped, %d interrupted, %d not run in %s\n", s.Passed, s.Failed, s.Skipped,
			s.Interrupted, s.NotRun, s.Duration.Round(time.Millisecond))
		return r.err
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
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
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
		switch res.Outcome {
		case Failed:
			js.Failures++
			lines := make([]string, len(res.Failures))
			for i, f := range res.Failures {
				lines[i] = f.String()
			}
			msg := ""
			if len(res.Failures) > 0 {
				msg = res.Failures[0].Message
			}
			jc.Failure = &junitFailure{Message: msg, Text: strings.Join(lines, "\n")}
		case Skipped:
			js.Skipped++
			jc.Skipped = &junitSkipped{Message: res.SkipReason}
		case Interrupted: // JUnit has no such state; skipped is the one that claims no verdict
			js.Skipped++
			jc.Skipped = &junitSkipped{Message: "interrupted: " + res.Interruption}
		}
		js.Cases = append(js.Cases, jc)
	}
	out := junitSuites{Name: "malipo conform", Tests: len(s.Results), Failures: s.Failed, Skipped: s.Skipped + s.Interrupted, Time: seconds(s.Duration)}
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
