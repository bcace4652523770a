// Command runsummary prints the end of `make run`: each stage with its verdict and counts, where every
// report is, and what to try next, in a screenful that reads in a few seconds after a long log.
//
// make run's stages are shell commands in the GNUmakefile; after each, the recipe appends a line to a
// stages file, which is this program's only argument:
//
//	NAME <tab> EXIT STATUS <tab> SECONDS [<tab> FILE]...
//
// The files are what the stage left, told apart by their names: a .json file is a grader's JSON report
// (malipo conform --json), whose counts become the stage's; .xml is a JUnit report; .html an HTML report;
// a .txt file holds the stage's counts in its first line (spec --check's answer, the walkthrough's
// result); a directory holds a stage's state and logs. The program exits 1 when a stage failed, so that
// make run fails after the summary, not before it.
//
// It reads the JSON report into a struct of its own rather than importing package report, so that it
// links in a moment; its tests write their reports with report.JSONReporter, which holds the two to the
// same field names.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	malipo := flag.String("malipo", "bin/malipo", "the malipo binary the next steps name")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: runsummary [-malipo PATH] STAGES_FILE\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	stages, err := readStagesFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "runsummary: %v\n", err)
		os.Exit(2)
	}
	if err := write(os.Stdout, stages, *malipo); err != nil {
		fmt.Fprintf(os.Stderr, "runsummary: %v\n", err)
		os.Exit(2)
	}
	if failed(stages) > 0 {
		os.Exit(1)
	}
}

// stage is one line of the stages file: a step of make run and what it left.
type stage struct {
	Name    string
	Exit    int
	Seconds int
	Files   []string
}

// OK reports whether the stage's command succeeded.
func (s stage) OK() bool { return s.Exit == 0 }

// readStagesFile reads the stages file that make run's recipe writes.
func readStagesFile(path string) ([]stage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the stages of make run: %w (make run writes it; run make run)", err)
	}
	defer func() { _ = f.Close() }()
	return parseStages(f, path)
}

// parseStages reads the stages, one per line; name names the input in errors.
func parseStages(r io.Reader, name string) ([]stage, error) {
	var stages []stage
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 3 {
			return nil, fmt.Errorf("%s:%d: want NAME, EXIT STATUS and SECONDS separated by tabs, got %q", name, n, sc.Text())
		}
		exit, err1 := strconv.Atoi(fields[1])
		secs, err2 := strconv.Atoi(fields[2])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("%s:%d: the exit status and the seconds must be whole numbers: %w", name, n, err)
		}
		st := stage{Name: fields[0], Exit: exit, Seconds: secs}
		for _, f := range fields[3:] {
			if f != "" {
				st.Files = append(st.Files, f)
			}
		}
		stages = append(stages, st)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(stages) == 0 {
		return nil, fmt.Errorf("%s names no stage: make run stopped before its first stage (see its output)", name)
	}
	return stages, nil
}

// failed counts the stages that failed.
func failed(stages []stage) int {
	n := 0
	for _, s := range stages {
		if !s.OK() {
			n++
		}
	}
	return n
}

// graderReport is what the summary reads of a grader's JSON report (report.JSONReporter).
type graderReport struct {
	Passed      int           `json:"passed"`
	Failed      int           `json:"failed"`
	Skipped     int           `json:"skipped"`
	Interrupted int           `json:"interrupted"`
	NotRun      int           `json:"not_run"`
	Aborted     string        `json:"aborted"`
	Duration    time.Duration `json:"duration_ns"`
	Findings    []struct {
		Says      string `json:"says"`
		Violation string `json:"violation"`
		Count     int    `json:"count"`
	} `json:"findings"`
}

// headlineWidth is where a finding's headline is cut in the counts: the summary's lines stay short.
const headlineWidth = 90

// graderCounts is a JSON report's counts in one line: passed, failed, skipped, and when checks failed
// the largest finding, which is where to start.
func graderCounts(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var r graderReport
	if err := json.Unmarshal(data, &r); err != nil {
		return "", fmt.Errorf("%s is not a grader's JSON report: %w", path, err)
	}
	counts := fmt.Sprintf("%d passed, %d failed, %d skipped", r.Passed, r.Failed, r.Skipped)
	if r.Aborted != "" {
		return counts + fmt.Sprintf(", %d interrupted, %d not run; stopped early: %s", r.Interrupted, r.NotRun, r.Aborted), nil
	}
	if len(r.Findings) > 0 {
		f := r.Findings[0]
		headline := f.Says
		if headline == "" {
			headline = f.Violation
		}
		if runes := []rune(headline); len(runes) > headlineWidth {
			headline = string(runes[:headlineWidth-1]) + "…"
		}
		counts += fmt.Sprintf("; the largest finding (%s): %s", plural(f.Count, "check"), headline)
	}
	return counts, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// countsOf is the stage's counts: from its JSON report, else the first line of its .txt file; when
// neither was written, what is missing.
func countsOf(s stage) string {
	for _, f := range s.Files {
		if strings.HasSuffix(f, ".json") {
			counts, err := graderCounts(f)
			if errors.Is(err, os.ErrNotExist) {
				return "no JSON report: the run stopped before writing it (see its output above)"
			}
			if err != nil {
				return err.Error()
			}
			return counts
		}
	}
	for _, f := range s.Files {
		if strings.HasSuffix(f, ".txt") {
			data, err := os.ReadFile(f)
			if err != nil {
				return "no result written (see its output above)"
			}
			line, _, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
			return line
		}
	}
	return ""
}

// reportKind names a file a stage left, for the reader; "" for a file that is not a report (the .txt
// that holds the counts).
func reportKind(path string) string {
	switch {
	case strings.HasSuffix(path, ".html"):
		return "HTML"
	case strings.HasSuffix(path, ".json"):
		return "JSON"
	case strings.HasSuffix(path, ".xml"):
		return "JUnit"
	case strings.HasSuffix(path, ".txt"):
		return ""
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "state and logs"
	}
	return "file"
}

// shortPath is path relative to the working directory when it is below it (bin/conform.html), else as
// it was given: a path to copy, as short as it can be.
func shortPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return path
	}
	return rel
}

// htmlReport is the stage's HTML report, if it wrote one.
func htmlReport(s stage) string {
	for _, f := range s.Files {
		if strings.HasSuffix(f, ".html") {
			if _, err := os.Stat(f); err == nil {
				return f
			}
		}
	}
	return ""
}

// write prints the summary: a headline, the stages, the reports and the next steps.
func write(w io.Writer, stages []stage, malipo string) error {
	b := &strings.Builder{}
	total := 0
	width := 0
	for _, s := range stages {
		total += s.Seconds
		width = max(width, len([]rune(s.Name)))
	}
	took := (time.Duration(total) * time.Second).String()
	if n := failed(stages); n > 0 {
		fmt.Fprintf(b, "\nmake run: %d of %d stages FAILED (%s)\n", n, len(stages), took)
	} else {
		fmt.Fprintf(b, "\nmake run: all %d stages passed (%s)\n", len(stages), took)
	}
	verdicts := make([]string, len(stages))
	verdictWidth := 0
	for i, s := range stages {
		verdicts[i] = "PASS"
		if !s.OK() {
			verdicts[i] = fmt.Sprintf("FAIL (exit %d)", s.Exit)
		}
		verdictWidth = max(verdictWidth, len(verdicts[i]))
	}
	for i, s := range stages {
		fmt.Fprintf(b, "  %-*s  %-*s %4ds  %s\n", verdictWidth, verdicts[i], width, s.Name, s.Seconds, countsOf(s))
	}
	writeReports(b, stages, width)
	writeNext(b, stages, malipo)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeReports lists every report and directory the stages left, one stage a line, the HTML report
// first: it is the one to open.
func writeReports(b *strings.Builder, stages []stage, width int) {
	var lines []string
	for _, s := range stages {
		var parts []string
		for _, kind := range []string{"HTML", "JSON", "JUnit", "state and logs", "file"} {
			for _, f := range s.Files {
				if reportKind(f) != kind {
					continue
				}
				part := kind + " " + shortPath(f)
				if _, err := os.Stat(f); err != nil {
					part += " (not written)"
				}
				parts = append(parts, part)
			}
		}
		if len(parts) > 0 {
			lines = append(lines, fmt.Sprintf("  %-*s  %s", width, s.Name, strings.Join(parts, "  ")))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(b, "\nReports:\n%s\n", strings.Join(lines, "\n"))
	}
}

// writeNext says what to do next: with a failed stage, where to look first; then the report to open
// and the commands to try on one's own implementation, receiver and Terraform.
func writeNext(b *strings.Builder, stages []stage, malipo string) {
	b.WriteString("\nNext:\n")
	for _, s := range stages {
		if s.OK() {
			continue
		}
		if html := htmlReport(s); html != "" {
			fmt.Fprintf(b, "  %s failed: open %s (the findings come first), or read its output above\n", s.Name, shortPath(html))
		} else {
			fmt.Fprintf(b, "  %s failed: its output above says why\n", s.Name)
		}
	}
	for _, s := range stages {
		if html := htmlReport(s); html != "" && s.OK() {
			fmt.Fprintf(b, "  open %s in a browser: every check by category, the coverage of the document\n", shortPath(html))
			break
		}
	}
	tries := [][2]string{
		{malipo + " conform --target URL --public-key … --secret-key …", "check your own implementation"},
		{malipo + " sandbox", "the reference sandbox and its dashboard, to build against"},
		{malipo + " webhooks test --url URL --secret whsec_…", "grade your webhook receiver"},
		{"make run CONFORM_FLAGS=", "the conform stages with a line per check"},
	}
	width := 0
	for _, t := range tries {
		width = max(width, len([]rune(t[0])))
	}
	for _, t := range tries {
		fmt.Fprintf(b, "  %s%s  %s\n", t[0], strings.Repeat(" ", width-len([]rune(t[0]))), t[1])
	}
	b.WriteString("  README.md: \"The contract suite\", \"The sandbox\", \"Test your receiver\", \"Terraform provider\"\n")
}
