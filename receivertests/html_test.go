package receivertests_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/receiverfaults"
	"github.com/malipo/terraform-provider-malipo/internal/reportview"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/receivertests"
	"github.com/malipo/terraform-provider-malipo/report"
)

// The HTML reporter serves another grader too: the report of `malipo webhooks test` against a receiver
// that accepts any signature, opened in headless Chromium, names its tool, shows the failing check
// first with the delivery's curl line (the headers as sent, signature included) and has no coverage
// section (no empty matrix), no script error and no request but itself.
func TestHTMLReportOfAReceiverRun(t *testing.T) {
	secret, err := webhook.NewSecret()
	require.NoError(t, err)
	fault, ok := receiverfaults.Named("accepts-any-signature")
	require.True(t, ok)
	srv := httptest.NewServer(fault.New(secret))
	defer srv.Close()
	htmlPath := filepath.Join(t.TempDir(), "receiver.html")
	sum, err := receivertests.Run(context.Background(), receivertests.Config{URL: srv.URL, Secret: secret, Timeout: 5 * time.Second, Burst: 3},
		report.HTMLReporter{Path: htmlPath})
	require.NoError(t, err)
	require.Positive(t, sum.Failed)

	page := reportview.Render(t, htmlPath)
	for _, u := range page.Requests {
		assert.True(t, strings.HasPrefix(u, "file://"), "the page loaded %s", u)
	}
	assert.Empty(t, page.ConsoleErrors)
	assert.Contains(t, page.Title, "malipo webhooks test")
	assert.NotContains(t, page.Title, "malipo conform")
	assert.Empty(t, page.Matrix, "no coverage matrix")
	assert.Empty(t, page.Webhooks, "no webhook-types table")
	assert.NotContains(t, page.Text, "Coverage")
	assert.NotContains(t, page.Text, "$MALIPO_PUBLIC_KEY", "the replay note is the grader's")
	require.NotEmpty(t, page.CheckOrder)
	assert.Equal(t, "article", page.CheckOrder[0].Tag)
	assert.True(t, strings.HasPrefix(page.FirstFailure.ID, "receiver.rejects."), page.FirstFailure.ID)
	assert.Contains(t, page.FirstFailure.Curl, "curl -sS -i "+srv.URL)
	assert.Contains(t, page.FirstFailure.Curl, "webhook-signature: ")
	assert.Contains(t, page.FirstFailure.Text, "Standard Webhooks", "the failure names its rule")
	assert.Equal(t, page.FirstFailure.Curl, page.Clipboard)
	assert.NotContains(t, page.Text, secret.Reveal())
}
