package contracttests_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/faults"
)

// renderedReport is what testdata/render-report.js saw of a report in headless Chromium.
type renderedReport struct {
	Requests      []string `json:"requests"`
	ConsoleErrors []string `json:"consoleErrors"`
	Title         string   `json:"title"`
	Text          string   `json:"text"`
	CheckOrder    []struct {
		ID  string `json:"id"`
		Tag string `json:"tag"`
	} `json:"checkOrder"`
	FirstFailure struct {
		ID   string `json:"id"`
		Text string `json:"text"`
		Curl string `json:"curl"`
	} `json:"firstFailure"`
	ExchangeVisibleBefore bool   `json:"exchangeVisibleBefore"`
	ExchangeVisibleAfter  bool   `json:"exchangeVisibleAfter"`
	ExchangeText          string `json:"exchangeText"`
	CopyLabel             string `json:"copyLabel"`
	Clipboard             string `json:"clipboard"`
	Columns               []struct {
		Code         string `json:"code"`
		Undocumented bool   `json:"undocumented"`
	} `json:"columns"`
	Matrix   map[string]map[string]struct{ State, Text, Title string } `json:"matrix"`
	Webhooks map[string]string                                         `json:"webhooks"`
}

// renderInChromium opens the report at path in Debian's headless Chromium through playwright-core
// (tools/node_modules) and returns what the page shows.
func renderInChromium(t *testing.T, path string) renderedReport {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the HTML report test drives Chromium from Node.js: install Node.js 20+")
	chromium, err := exec.LookPath("chromium")
	require.NoError(t, err, "the HTML report test opens the report in Debian's chromium: run `make debian-tools` (as root) or apt-get install chromium")
	nodeModules, err := filepath.Abs(filepath.Join("..", "tools", "node_modules"))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(nodeModules, "playwright-core"))
	require.NoError(t, err, "playwright-core comes with the Node tools: run `make deps` (cd tools && npm ci)")
	script, err := filepath.Abs(filepath.Join("testdata", "render-report.js"))
	require.NoError(t, err)
	abs, err := filepath.Abs(path)
	require.NoError(t, err)

	cmd := exec.Command(node, script, abs, chromium)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "render-report.js: %s", stderr.String())
	var page renderedReport
	require.NoError(t, json.Unmarshal(out, &page), "%s", out)
	return page
}

// The "done when": a run through a target that breaks one rule shows, in the HTML report
// opened in headless Chromium, the failing check with its curl line, and that curl line, executed,
// gets the failing status. Also: the failing check comes first, exchanges are collapsible, the copy
// button copies the command, the coverage matrix says what the run saw, the page loads nothing but
// itself, and the JUnit report of the same run is valid against the JUnit schemas.
func TestHTMLReportInChromium(t *testing.T) {
	t.Parallel()
	faulty, err := faults.Options(faults.SecretKeyNotChecked)
	require.NoError(t, err)
	cfg, stop, err := contracttests.StartEmbeddedWith(faulty...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, stop()) })
	// A read with a wrong secret key: the target answers as if the key were right. (A create is no
	// good here: replayed without an Idempotency-Key it meets its own merchant reference, and gets 409.)
	const failing = "auth.getPayout.wrong-secret-key"
	// A check that passes and sorts before the failing one, one after it, and one skipped for want of
	// a second merchant.
	cfg.OtherMerchant = nil
	cfg.Run = regexp.MustCompile(`^(auth\.getPayout\.no-keys|auth\.isolation\.payout|` + regexp.QuoteMeta(failing) + `|reference\.countries)$`)
	checks, err := contracttests.All()
	require.NoError(t, err)
	dir := t.TempDir()
	htmlPath, junitPath := filepath.Join(dir, "report.html"), filepath.Join(dir, "junit.xml")
	sum, err := contracttests.Run(context.Background(), cfg, checks,
		contracttests.HTMLReporter{Path: htmlPath}, contracttests.JUnitReporter{Path: junitPath})
	require.NoError(t, err)
	outcomes := map[string]contracttests.Outcome{}
	var failed contracttests.Result
	for _, r := range sum.Results {
		outcomes[r.ID] = r.Outcome
		if r.ID == failing {
			failed = r
		}
	}
	require.Equal(t, map[string]contracttests.Outcome{"auth.getPayout.no-keys": contracttests.Passed, "auth.isolation.payout": contracttests.Skipped,
		failing: contracttests.Failed, "reference.countries": contracttests.Passed}, outcomes)
	require.NotEmpty(t, failed.Failures)
	require.NotEmpty(t, failed.Failures[0].Evidence, "the failure points at its exchange")
	failingExchange := failed.Evidence[failed.Failures[0].Evidence[0]]
	failingStatus := failingExchange.Response.Status

	validateJUnit(t, junitPath) // a real run's file: a failure with its evidence, a skip, passes

	raw, err := os.ReadFile(htmlPath)
	require.NoError(t, err)
	for _, key := range []string{cfg.Keys.Public, cfg.Keys.Secret} {
		assert.NotContains(t, string(raw), key, "no key value in the report")
	}

	page := renderInChromium(t, htmlPath)

	require.NotEmpty(t, page.Requests)
	for _, u := range page.Requests {
		assert.True(t, strings.HasPrefix(u, "file://"), "the page loaded %s: it must load nothing but itself", u)
	}
	assert.Empty(t, page.ConsoleErrors, "no script error, no resource the page's Content-Security-Policy refused")

	// The summary.
	assert.Contains(t, page.Title, "not conformant")
	for _, s := range []string{"Not conformant", cfg.BaseURL, "4 run: 2 passed, 1 failed, 1 skipped"} {
		assert.Contains(t, page.Text, s)
	}
	// The failing check first, in full, before the coverage and the results.
	require.NotEmpty(t, page.CheckOrder)
	assert.Equal(t, failing, page.CheckOrder[0].ID)
	assert.Equal(t, "article", page.CheckOrder[0].Tag, "the failure itself, not its row in the results")
	assert.Equal(t, failing, page.FirstFailure.ID)
	assert.Contains(t, page.FirstFailure.Text, failed.Failures[0].Message)
	assert.Less(t, strings.Index(page.Text, failed.Failures[0].Message), strings.LastIndex(page.Text, "Results by category"), "before the results (the last mention: the first is in the header)")

	// Its curl line, as rendered.
	curl := page.FirstFailure.Curl
	assert.Contains(t, curl, "curl ")
	assert.Contains(t, curl, "$MALIPO_PUBLIC_KEY", "the suite's keys are read from the environment")
	assert.Contains(t, page.Text, curl)

	// The exchange is collapsed until clicked, then shows the request and the response.
	assert.False(t, page.ExchangeVisibleBefore)
	assert.True(t, page.ExchangeVisibleAfter)
	assert.Contains(t, page.ExchangeText, "HTTP "+strconv.Itoa(failingStatus))
	// The copy button copies the command.
	assert.Equal(t, "copied", page.CopyLabel)
	assert.Equal(t, curl, page.Clipboard)

	// The coverage matrix: a row per operation, a cell per status code, saying what the run saw.
	require.Len(t, page.Matrix, len(sum.Coverage.Operations))
	var seen, notSeen int
	for _, oc := range sum.Coverage.Operations {
		row, ok := page.Matrix[oc.Operation]
		require.True(t, ok, "no row for %s", oc.Operation)
		require.Len(t, row, len(page.Columns))
		for _, col := range page.Columns {
			want := "none"
			switch {
			case slices.Contains(oc.Seen, col.Code):
				want = "seen"
				seen++
			case slices.Contains(oc.Documented, col.Code):
				want = "not-seen"
				notSeen++
			case slices.Contains(oc.Undocumented, col.Code):
				want = "undocumented"
			}
			assert.Equal(t, want, row[col.Code].State, "%s × %s", oc.Operation, col.Code)
		}
	}
	assert.Equal(t, sum.Coverage.StatusCodesSeen, seen)
	assert.Positive(t, notSeen, "a short run leaves documented status codes unseen")
	cell := page.Matrix[failingExchange.Operation][strconv.Itoa(failingStatus)]
	assert.Equal(t, "✓", cell.Text)
	assert.Equal(t, failingExchange.Operation+" answered "+strconv.Itoa(failingStatus)+", as documented", cell.Title)
	require.Len(t, page.Webhooks, len(sum.Coverage.WebhookTypes))
	for _, typ := range sum.Coverage.WebhookTypes {
		want := "✗ never delivered"
		if slices.Contains(sum.Coverage.WebhookTypesSeen, typ) {
			want = "✓ seen"
		}
		assert.Equal(t, want, page.Webhooks[typ])
	}

	// The curl line, executed as the page shows it, gets the failing status from the target.
	cmd := exec.Command("bash", "-c", curl)
	cmd.Env = append(os.Environ(), "MALIPO_PUBLIC_KEY="+cfg.Keys.Public, "MALIPO_SECRET_KEY="+cfg.Keys.Secret)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	statusLine, _, _ := strings.Cut(string(out), "\n")
	fields := strings.Fields(statusLine) // HTTP/1.1 201 Created
	require.GreaterOrEqual(t, len(fields), 2, "curl -i prints the status line first: %s", out)
	assert.Equal(t, strconv.Itoa(failingStatus), fields[1], "the replayed request gets the status the check failed on:\n%s", out)
}

// What the target sent is shown as text: a body with markup neither runs a script nor loads anything,
// and the page's policy allows its own style and script alone (by hash, so an injected one is
// refused even if escaping failed). Undocumented status codes are flagged in the matrix.
func TestHTMLReportEscapesWhatTheTargetSent(t *testing.T) {
	hostile := `<script>alert(1)</script><img src="https://example.org/x.png"><style>body{display:none}</style>`
	ev := contracttests.Evidence{Kind: contracttests.EvidenceRequest, Operation: "getPayout",
		Request:  contracttests.HTTPMessage{Method: "GET", URL: "http://127.0.0.1:1/p?q=" + hostile},
		Response: contracttests.HTTPMessage{Status: 418, Header: map[string][]string{"X-Evil": {hostile}}, Body: hostile, BodySize: len(hostile)},
		Curl:     "curl -sS -i 'http://127.0.0.1:1/p' # " + hostile}
	sum := &contracttests.Summary{Target: "http://127.0.0.1:1/" + hostile, Failed: 1, Results: []contracttests.Result{{
		ID: "auth.getPayout.no-keys", Category: contracttests.CategoryAuth, Outcome: contracttests.Failed,
		Failures: []contracttests.Failure{{Message: "want HTTP 401, got 418: " + hostile, Evidence: []int{0}}},
		Evidence: []contracttests.Evidence{ev}}},
		Coverage: contracttests.Coverage{Operations: []contracttests.OperationCoverage{
			{Operation: "getPayout", Documented: []string{"200", "401"}, Seen: []string{"401"}, Undocumented: []string{"418"}}}}}
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, contracttests.HTMLReporter{Path: path}.Finish(sum))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	page := string(data)

	assert.NotContains(t, page, "<script>alert")
	assert.NotContains(t, page, "<img")
	assert.Equal(t, 1, strings.Count(page, "<script"), "the page's own script only")
	assert.Equal(t, 1, strings.Count(page, "<style"), "the page's own style only")
	assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;")

	// The policy names exactly the hashes of the inline style and script.
	policy := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(page)
	require.NotNil(t, policy)
	csp := html.UnescapeString(policy[1])
	for _, tag := range []string{"style", "script"} {
		inline := regexp.MustCompile(`(?s)<` + tag + `>(.*?)</` + tag + `>`).FindStringSubmatch(page)
		require.NotNil(t, inline, tag)
		sum := sha256.Sum256([]byte(inline[1]))
		assert.Contains(t, csp, tag+"-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	assert.Contains(t, csp, "default-src 'none'")

	// 418 is a column, flagged, and getPayout's cell says it was answered without being documented.
	assert.Contains(t, page, `<th scope="col" data-code="418" class="undocumented"`)
	assert.Regexp(t, `<td class="cell undocumented" data-code="418" data-state="undocumented" title="getPayout answered 418, which the document does not list for it"`, page)
	assert.Regexp(t, `<td class="cell not-seen" data-code="200" data-state="not-seen"`, page)
	assert.Regexp(t, `<td class="cell seen" data-code="401" data-state="seen"`, page)
}

// A run that stopped early (the target went away) has no verdict unless a check had already failed:
// the page says so and why, as the text report and the exit code (2) do, rather than "Not conformant".
func TestHTMLReportOfARunThatStoppedEarly(t *testing.T) {
	why := "the target stopped answering after check state.payout.bank.paid: connection refused"
	for _, tc := range []struct {
		failed  int
		verdict string
	}{
		{0, "No verdict: the run stopped early"},
		{1, "Not conformant"},
	} {
		sum := &contracttests.Summary{Target: "http://127.0.0.1:1", Passed: 3, Failed: tc.failed, Interrupted: 2, NotRun: 40, Aborted: why}
		path := filepath.Join(t.TempDir(), "report.html")
		require.NoError(t, contracttests.HTMLReporter{Path: path}.Finish(sum))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		page := string(data)
		assert.Contains(t, page, `<p class="verdict" id="verdict">`+tc.verdict+`</p>`)
		assert.Contains(t, page, `<p class="aborted" id="aborted">Run stopped early: `+why+`</p>`)
		assert.Regexp(t, `; 2 interrupted, 40 not run</dd>`, page)
	}
}

// The HTML page leads with the findings (the broken rule and how many checks it explains, the checks
// linked), then the failures, each saying what the document says, which finding it is part of and how
// to run it again; the policy still names the page's own style and script.
func TestHTMLReportLeadsWithFindings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, contracttests.HTMLReporter{Path: path}.Finish(brokenEnvelopeRun()))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	page := string(data)

	findings, failures := strings.Index(page, `<section id="findings">`), strings.Index(page, `<section id="failures">`)
	require.GreaterOrEqual(t, findings, 0)
	assert.Less(t, findings, failures)
	assert.Contains(t, page, `<a href="#findings">Findings</a>`)
	assert.Contains(t, page, `<h2>Findings (2)</h2>`)
	assert.Contains(t, page, `<li class="finding" id="finding-1">
<p class="finding-head"><strong>header.content-type: response breaks the spec: The content type &#39;text/plain&#39; of the GET response received has not been defined in the schema</strong> — <span class="count">4 checks</span></p>`)
	assert.Contains(t, page, `<summary>Where: 3 places in the document</summary>`)
	assert.Contains(t, page, `<li><a href="#check-negative.initializePayment.amount.below-minimum"><code>negative.initializePayment.amount.below-minimum</code></a></li>`)
	assert.Contains(t, page, `<p class="finding-head"><strong>The error envelope.</strong> — <span class="count">1 check</span></p>
<p class="violation">Violation: want final status &#34;success&#34;, got &#34;failed&#34;</p>
<p class="spec">Where: <code>#/components/schemas/Error/description</code></p>`)

	article := page[strings.Index(page, `<article class="check fail" id="check-auth.getPayout.no-keys"`):]
	article = article[:strings.Index(article, "</article>")]
	assert.Contains(t, article, `<p class="rule">The document says: “The merchant&#39;s secret key.” (#/components/securitySchemes/SecretKey/description)</p>`)
	assert.Contains(t, article, `<p class="note">Part of <a href="#finding-1">finding 1</a>.</p>`)
	assert.Contains(t, article, `<div class="curl rerun"><button type="button" class="copy" title="copy the command">copy</button><pre><code class="rerun-line">malipo conform --target http://127.0.0.1:8080 --run &#39;^auth\.getPayout\.no-keys$&#39;</code></pre></div>`)
	assert.Equal(t, 5, strings.Count(page, `<code class="rerun-line">`), "one per failed check")

	// The policy names exactly the hashes of the inline style and script.
	policy := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(page)
	require.NotNil(t, policy)
	for _, tag := range []string{"style", "script"} {
		inline := regexp.MustCompile(`(?s)<` + tag + `>(.*?)</` + tag + `>`).FindStringSubmatch(page)
		require.NotNil(t, inline, tag)
		sum := sha256.Sum256([]byte(inline[1]))
		assert.Contains(t, html.UnescapeString(policy[1]), tag+"-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
}

// A run whose failures are each a finding of their own, without rules or a rerun command, has no
// findings section, no rule and no rerun block: the page is as it was.
func TestHTMLReportWithoutFindings(t *testing.T) {
	sum := &contracttests.Summary{Target: "http://t", Failed: 1, Results: []contracttests.Result{{ID: "auth.getPayout.no-keys",
		Category: contracttests.CategoryAuth, Outcome: contracttests.Failed, Failures: []contracttests.Failure{{Message: "want HTTP 401, got 200"}}}}}
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, contracttests.HTMLReporter{Path: path}.Finish(sum))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, s := range []string{`id="findings"`, `href="#findings"`, `class="rule"`, `class="rerun-label"`, `class="rerun-line"`, `href="#finding-`} {
		assert.NotContains(t, string(data), s)
	}
}
