package report

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// HTMLReporter writes the run as one self-contained HTML page when it ends: the summary (target,
// verdict, counts, duration), every failure first with the exchanges it is about (request and response
// in collapsible blocks) and a curl command that replays each request, the results by category, the
// coverage matrix (operations × status codes) and the webhook types seen, and the slowest checks.
//
// The page loads nothing: its style and script are inline, it names no font, image or other file, and
// its Content-Security-Policy allows no source but the hashes of its own style and script, so that it
// works as a CI artifact opened from disk (file://) and a body the target sent cannot make it load
// anything or run anything. Everything the target sent is escaped by html/template.
type HTMLReporter struct{ Path string }

// Start does nothing.
func (HTMLReporter) Start([]string) {}

// CheckDone does nothing.
func (HTMLReporter) CheckDone(Result) {}

// Finish writes the page.
func (r HTMLReporter) Finish(s *Summary) error {
	var buf bytes.Buffer
	if err := htmlReport.page.Execute(&buf, newHTMLPage(s, time.Now())); err != nil {
		return fmt.Errorf("render the HTML report: %w", err)
	}
	if err := os.WriteFile(r.Path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the HTML report: %w", err)
	}
	return nil
}

//go:embed report.html.tmpl report.css report.js
var htmlFiles embed.FS

// htmlReport is the parsed page template, with the page's style and script and the policy that allows
// exactly them.
var htmlReport = func() (r struct {
	page   *template.Template
	css    template.CSS
	js     template.JS
	policy string
}) {
	css, err := htmlFiles.ReadFile("report.css")
	if err != nil {
		panic(err) // embedded: present whenever the package compiles
	}
	js, err := htmlFiles.ReadFile("report.js")
	if err != nil {
		panic(err)
	}
	r.css, r.js = template.CSS(css), template.JS(js) //nolint:gosec // our own embedded files, not input
	r.policy = "default-src 'none'; style-src " + cspHash(css) + "; script-src " + cspHash(js) +
		"; img-src 'none'; font-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"
	r.page = template.Must(template.ParseFS(htmlFiles, "report.html.tmpl"))
	return r
}()

// cspHash is the Content-Security-Policy source that allows an inline style or script with exactly
// this text.
func cspHash(text []byte) string {
	sum := sha256.Sum256(text)
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// htmlPage is what the template shows, prepared so that the template only lays it out.
type htmlPage struct {
	CSS    template.CSS
	JS     template.JS
	Policy string

	// Seed is the run's seed (Summary.Seed), 0 when it generated nothing.
	Seed uint64
	// Tool names the run (Summary.ToolName); ReplayNote says how its curl commands replay.
	Tool, ReplayNote string
	// HasCoverage is false for a grader that covers no operation (Summary.HasCoverage): the page
	// then has no coverage section.
	HasCoverage bool
	Target      string
	OK          bool
	Generated   string
	Duration    string
	Total       int
	Passed      int
	Failed      int
	Skipped     int
	// Other counts checks that neither passed, failed nor were skipped (a check the run could not end).
	Other int
	// Aborted says why the run stopped before every check had run (Summary.Aborted); Interrupted and
	// NotRun count the checks it left without a verdict. A stopped run with no failure is not
	// "not conformant": the page says there is no verdict, as the exit code (2) does.
	Aborted             string
	Interrupted, NotRun int

	// Findings are the failed checks grouped by the rule they break (Findings), shown above the
	// failures when some finding explains more than one check.
	Findings []htmlFinding
	// Failures are the checks that failed (or ended otherwise), in id order.
	Failures   []htmlResult
	Categories []htmlCategory
	Coverage   htmlCoverage
	Slowest    []htmlResult
}

type htmlCategory struct {
	Name                            string
	Results                         []htmlResult
	Passed, Failed, Skipped, Others int
}

// htmlFinding is one Finding: N numbers it (#finding-N), HasSays says Headline is the document's
// words (and Violation is then shown under it).
type htmlFinding struct {
	N                   int
	Headline, Violation string
	HasSays             bool
	Pointer             string
	Locations, Checks   []string
}

type htmlResult struct {
	ID, Category, Outcome, Doc, Duration, SkipReason string
	// Rule is what the document says that the check enforces (RuleWords); Rerun the command
	// that runs the check again alone (Summary.RerunCommand); Finding the number of the finding the
	// check is part of (0: findings are not shown).
	Rule, Rerun string
	Finding     int
	Failures    []htmlFailure
	// Exchanges are every exchange and delivery the check made (kept for a check that did not pass);
	// Unshown says some of them are under no failure, so the page lists them all.
	Exchanges []htmlExchange
	Unshown   bool
	// Omitted counts exchanges the suite did not keep.
	Omitted int
}

type htmlFailure struct {
	Message, Exchange, Pointer, SpecLocation string
	// Exchanges are the ones this failure is about, less those an earlier failure of the check is
	// about too: those are shown once, and SeeAlso names the failures (numbered from 1) they are under.
	Exchanges []htmlExchange
	SeeAlso   []int
}

type htmlExchange struct {
	Kind, Title, Operation, Duration, Error, Curl string
	Request, Response                             htmlMessage
}

type htmlMessage struct {
	StartLine string
	Headers   []string
	Body      string
	// Note says the body is cut, and how long the whole was.
	Note string
}

type htmlCoverage struct {
	Seen, Documented int
	Columns          []htmlColumn
	Rows             []htmlRow
	Webhooks         []htmlWebhook
	WebhooksSeen     int
}

// htmlColumn is one status code of the matrix; Undocumented marks a code some operation answered
// without documenting it.
type htmlColumn struct {
	Code         string
	Undocumented bool
}

type htmlRow struct {
	Operation        string
	Cells            []htmlCell
	Undocumented     bool
	Seen, Documented int
}

// htmlCell is one operation × status code: State is "seen", "not-seen" (documented, never answered),
// "undocumented" (answered, not documented) or "none" (neither). Label is one symbol, so that the
// matrix of every operation and status code fits a screen and reads at a glance; Title says it in
// words (a tooltip, and what a screen reader reads).
type htmlCell struct {
	Code, State, Label, Title string
}

type htmlWebhook struct {
	Type string
	Seen bool
}

// slowestShown is how many of the slowest checks the page lists.
const slowestShown = 10

func newHTMLPage(s *Summary, now time.Time) htmlPage {
	p := htmlPage{CSS: htmlReport.css, JS: htmlReport.js, Policy: htmlReport.policy,
		Target: s.Target, OK: s.OK(), Generated: now.UTC().Format(time.RFC3339),
		Duration: s.Duration.Round(time.Millisecond).String(), Total: len(s.Results),
		Passed: s.Passed, Failed: s.Failed, Skipped: s.Skipped,
		Aborted: s.Aborted, Interrupted: s.Interrupted, NotRun: s.NotRun,
		Tool: s.ToolName(), ReplayNote: s.ReplayNote, HasCoverage: s.HasCoverage(), Seed: s.Seed}
	if p.ReplayNote == "" {
		p.ReplayNote = "Each curl command sends the request again; it reads the keys from $MALIPO_PUBLIC_KEY and $MALIPO_SECRET_KEY."
	}
	findingOf := map[string]int{}
	if findings := Findings(s); showFindings(s, findings) {
		for i, f := range findings {
			p.Findings = append(p.Findings, htmlFinding{N: i + 1, Headline: f.Headline(), Violation: f.Violation, HasSays: f.Says != "",
				Pointer: f.Rule.Pointer, Locations: f.Locations, Checks: f.Checks})
			for _, id := range f.Checks {
				findingOf[id] = i + 1
			}
		}
	}
	byCat := map[Category]*htmlCategory{}
	var cats []Category
	for _, res := range s.Results {
		hr := newHTMLResult(res)
		if res.Outcome != Passed && res.Outcome != Skipped {
			hr.Rule, hr.Rerun, hr.Finding = RuleWords(res.Rule), s.RerunCommand(res.ID), findingOf[res.ID]
		}
		c := byCat[res.Category]
		if c == nil {
			c = &htmlCategory{Name: string(res.Category)}
			byCat[res.Category] = c
			cats = append(cats, res.Category)
		}
		c.Results = append(c.Results, hr)
		switch res.Outcome {
		case Passed:
			c.Passed++
		case Skipped:
			c.Skipped++
		case Failed:
			c.Failed++
			p.Failures = append(p.Failures, hr)
		default:
			c.Others++
			p.Other++
			p.Failures = append(p.Failures, hr)
		}
	}
	sort.SliceStable(p.Failures, func(i, j int) bool { return p.Failures[i].ID < p.Failures[j].ID })
	// Categories with failures come first; within a category, failures, then the rest, then skips,
	// then passes, each by id.
	slices.SortStableFunc(cats, func(a, b Category) int {
		fa, fb := byCat[a].Failed+byCat[a].Others > 0, byCat[b].Failed+byCat[b].Others > 0
		if fa != fb {
			if fa {
				return -1
			}
			return 1
		}
		return strings.Compare(string(a), string(b))
	})
	for _, c := range cats {
		cat := byCat[c]
		sort.SliceStable(cat.Results, func(i, j int) bool {
			ri, rj := outcomeRank(cat.Results[i].Outcome), outcomeRank(cat.Results[j].Outcome)
			if ri != rj {
				return ri < rj
			}
			return cat.Results[i].ID < cat.Results[j].ID
		})
		p.Categories = append(p.Categories, *cat)
	}
	p.Slowest = slowest(s.Results)
	p.Coverage = newHTMLCoverage(s.Coverage)
	return p
}

// outcomeRank orders outcomes in the results by category: what needs attention first.
func outcomeRank(o string) int {
	switch Outcome(o) {
	case Failed:
		return 0
	case Skipped:
		return 2
	case Passed:
		return 3
	default:
		return 1
	}
}

func slowest(results []Result) []htmlResult {
	sorted := slices.Clone(results)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Duration > sorted[j].Duration })
	var out []htmlResult
	for _, res := range sorted[:min(slowestShown, len(sorted))] {
		if res.Duration <= 0 {
			break
		}
		out = append(out, htmlResult{ID: res.ID, Category: string(res.Category), Outcome: string(res.Outcome),
			Duration: res.Duration.Round(time.Millisecond).String()})
	}
	return out
}

func newHTMLResult(res Result) htmlResult {
	hr := htmlResult{ID: res.ID, Category: string(res.Category), Outcome: string(res.Outcome),
		Duration: res.Duration.Round(time.Millisecond).String(), SkipReason: res.SkipReason, Omitted: res.EvidenceOmitted,
		Doc: res.Doc}
	exchanges := make([]htmlExchange, len(res.Evidence))
	for i, ev := range res.Evidence {
		exchanges[i] = newHTMLExchange(ev)
	}
	hr.Exchanges = exchanges
	shownUnder := map[int]int{} // exchange index → the failure (from 1) it is shown under
	for n, f := range res.Failures {
		hf := htmlFailure{Message: f.Message, Exchange: f.Exchange, Pointer: f.Pointer, SpecLocation: f.SpecLocation}
		for _, i := range f.Evidence {
			switch under, shown := shownUnder[i]; {
			case i < 0 || i >= len(exchanges):
			case shown:
				if !slices.Contains(hf.SeeAlso, under) {
					hf.SeeAlso = append(hf.SeeAlso, under)
				}
			default:
				shownUnder[i] = n + 1
				hf.Exchanges = append(hf.Exchanges, exchanges[i])
			}
		}
		hr.Failures = append(hr.Failures, hf)
	}
	hr.Unshown = len(shownUnder) < len(exchanges) || res.EvidenceOmitted > 0
	return hr
}

func newHTMLExchange(ev Evidence) htmlExchange {
	he := htmlExchange{Kind: ev.Kind, Operation: ev.Operation, Duration: ev.Duration.Round(time.Millisecond).String(),
		Error: ev.Error, Curl: ev.Curl}
	status := "no answer"
	if ev.Response.Status != 0 {
		status = strconv.Itoa(ev.Response.Status)
	}
	switch ev.Kind {
	case EvidenceWebhook:
		he.Title = fmt.Sprintf("webhook %s %s %s → %s", ev.Operation, ev.Request.Method, ev.Request.URL, status)
	default:
		he.Title = fmt.Sprintf("%s %s → %s", ev.Request.Method, ev.Request.URL, status)
	}
	he.Request = newHTMLMessage(ev.Request.Method+" "+ev.Request.URL, ev.Request)
	if ev.Response.Status != 0 {
		he.Response = newHTMLMessage(fmt.Sprintf("HTTP %d", ev.Response.Status), ev.Response)
	}
	return he
}

func newHTMLMessage(startLine string, m HTTPMessage) htmlMessage {
	hm := htmlMessage{StartLine: startLine, Body: prettyBody(m.Body), Headers: m.headerLines()}
	if m.BodyTruncated {
		hm.Note = fmt.Sprintf("body cut at %d of %d bytes", len(m.Body), m.BodySize)
	}
	return hm
}

// prettyBody indents a JSON body for reading; anything else is shown as it came.
func prettyBody(body string) string {
	var out bytes.Buffer
	if json.Indent(&out, []byte(body), "", "  ") == nil {
		return out.String()
	}
	return body
}

// newHTMLCoverage lays the coverage out as a matrix: one row per operation, one column per status
// code that any operation documents or answered.
func newHTMLCoverage(c Coverage) htmlCoverage {
	hc := htmlCoverage{Seen: c.StatusCodesSeen, Documented: c.StatusCodesDefined, WebhooksSeen: len(c.WebhookTypesSeen)}
	codes := map[string]bool{} // code → answered undocumented by some operation
	for _, oc := range c.Operations {
		for _, code := range oc.Documented {
			if _, ok := codes[code]; !ok {
				codes[code] = false
			}
		}
		for _, code := range oc.Undocumented {
			codes[code] = true
		}
	}
	for code, undocumented := range codes {
		hc.Columns = append(hc.Columns, htmlColumn{Code: code, Undocumented: undocumented})
	}
	// "2XX" after "299", "default" last: byte order does both for three-character codes.
	sort.Slice(hc.Columns, func(i, j int) bool {
		a, b := hc.Columns[i].Code, hc.Columns[j].Code
		if (a == "default") != (b == "default") {
			return b == "default"
		}
		return a < b
	})
	for _, oc := range c.Operations {
		row := htmlRow{Operation: oc.Operation, Undocumented: len(oc.Undocumented) > 0,
			Seen: len(oc.Seen), Documented: len(oc.Documented)}
		for _, col := range hc.Columns {
			cell := htmlCell{Code: col.Code, State: "none", Title: oc.Operation + " does not document " + col.Code}
			switch {
			case slices.Contains(oc.Seen, col.Code):
				cell.State, cell.Label, cell.Title = "seen", "✓", oc.Operation+" answered "+col.Code+", as documented"
			case slices.Contains(oc.Documented, col.Code):
				cell.State, cell.Label, cell.Title = "not-seen", "✗", oc.Operation+" documents "+col.Code+"; no check saw it"
			case slices.Contains(oc.Undocumented, col.Code):
				cell.State, cell.Label, cell.Title = "undocumented", "⚠", oc.Operation+" answered "+col.Code+", which the document does not list for it"
			}
			row.Cells = append(row.Cells, cell)
		}
		hc.Rows = append(hc.Rows, row)
	}
	seen := map[string]bool{}
	for _, t := range c.WebhookTypesSeen {
		seen[t] = true
	}
	for _, t := range c.WebhookTypes {
		hc.Webhooks = append(hc.Webhooks, htmlWebhook{Type: t, Seen: seen[t]})
	}
	return hc
}
