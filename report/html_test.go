package report_test

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/report"
)

// What the target sent is shown as text: a body with markup neither runs a script nor loads anything,
// and the page's policy allows its own style and script alone (by hash, so an injected one is
// refused even if escaping failed). Undocumented status codes are flagged in the matrix.
func TestHTMLReportEscapesWhatTheTargetSent(t *testing.T) {
	hostile := `<script>alert(1)</script><img src="https://example.org/x.png"><style>body{display:none}</style>`
	ev := report.Evidence{Kind: report.EvidenceRequest, Operation: "getPayout",
		Request:  report.HTTPMessage{Method: "GET", URL: "http://127.0.0.1:1/p?q=" + hostile},
		Response: report.HTTPMessage{Status: 418, Header: map[string][]string{"X-Evil": {hostile}}, Body: hostile, BodySize: len(hostile)},
		Curl:     "curl -sS -i 'http://127.0.0.1:1/p' # " + hostile}
	sum := &report.Summary{Target: "http://127.0.0.1:1/" + hostile, Failed: 1, Results: []report.Result{{
		ID: "auth.getPayout.no-keys", Category: "auth", Outcome: report.Failed,
		Failures: []report.Failure{{Message: "want HTTP 401, got 418: " + hostile, Evidence: []int{0}}},
		Evidence: []report.Evidence{ev}}},
		Coverage: report.Coverage{Operations: []report.OperationCoverage{
			{Operation: "getPayout", Documented: []string{"200", "401"}, Seen: []string{"401"}, Undocumented: []string{"418"}}}}}
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, report.HTMLReporter{Path: path}.Finish(sum))
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
		sum := &report.Summary{Target: "http://127.0.0.1:1", Passed: 3, Failed: tc.failed, Interrupted: 2, NotRun: 40, Aborted: why}
		path := filepath.Join(t.TempDir(), "report.html")
		require.NoError(t, report.HTMLReporter{Path: path}.Finish(sum))
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
	require.NoError(t, report.HTMLReporter{Path: path}.Finish(brokenEnvelopeRun()))
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
	sum := &report.Summary{Target: "http://t", Failed: 1, Results: []report.Result{{ID: "auth.getPayout.no-keys",
		Category: "auth", Outcome: report.Failed, Failures: []report.Failure{{Message: "want HTTP 401, got 200"}}}}}
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, report.HTMLReporter{Path: path}.Finish(sum))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, s := range []string{`id="findings"`, `href="#findings"`, `class="rule"`, `class="rerun-label"`, `class="rerun-line"`, `href="#finding-`} {
		assert.NotContains(t, string(data), s)
	}
}
