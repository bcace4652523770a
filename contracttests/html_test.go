package contracttests_test

import (
	"context"
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
	"github.com/malipo/terraform-provider-malipo/internal/junitxsd"
	"github.com/malipo/terraform-provider-malipo/internal/reportview"
	"github.com/malipo/terraform-provider-malipo/report"
)

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
		report.HTMLReporter{Path: htmlPath}, report.JUnitReporter{Path: junitPath})
	require.NoError(t, err)
	outcomes := map[string]report.Outcome{}
	var failed report.Result
	for _, r := range sum.Results {
		outcomes[r.ID] = r.Outcome
		if r.ID == failing {
			failed = r
		}
	}
	require.Equal(t, map[string]report.Outcome{"auth.getPayout.no-keys": report.Passed, "auth.isolation.payout": report.Skipped,
		failing: report.Failed, "reference.countries": report.Passed}, outcomes)
	require.NotEmpty(t, failed.Failures)
	require.NotEmpty(t, failed.Failures[0].Evidence, "the failure points at its exchange")
	failingExchange := failed.Evidence[failed.Failures[0].Evidence[0]]
	failingStatus := failingExchange.Response.Status

	junitxsd.Validate(t, junitPath) // a real run's file: a failure with its evidence, a skip, passes

	raw, err := os.ReadFile(htmlPath)
	require.NoError(t, err)
	for _, key := range []string{cfg.Keys.Public, cfg.Keys.Secret} {
		assert.NotContains(t, string(raw), key, "no key value in the report")
	}

	page := reportview.Render(t, htmlPath)

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
