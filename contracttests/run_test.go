package contracttests_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/embedded"
	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

func TestRunRejectsAnUnreachableTarget(t *testing.T) {
	checks, err := contracttests.All()
	require.NoError(t, err)
	_, err = contracttests.Run(context.Background(), contracttests.Config{BaseURL: "http://127.0.0.1:1"}, checks)
	require.ErrorIs(t, err, runner.ErrUnreachable)
	assert.Contains(t, err.Error(), "check --target")
}

// A run keeps its connections to the target open between requests: every check of the registry, at the
// default concurrency and with the default client, opens fewer connections than a quarter of the checks
// (the checks in flight and their requests at once, and those the target closes after a 400). With
// net/http's default pool of two idle connections a host, the same run opened more than one a check.
func TestARunReusesItsConnections(t *testing.T) {
	cfg := embeddedConfig(t)
	cfg.Defaults()
	transport := cfg.HTTPClient.Transport.(*http.Transport)
	dial := transport.DialContext
	var opened atomic.Int64
	transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		opened.Add(1)
		return dial(ctx, network, addr)
	}
	checks := allChecks(t)
	sum, err := contracttests.Run(context.Background(), cfg, checks)
	require.NoError(t, err)
	require.Equal(t, len(checks), sum.Passed, "every check runs and passes: the count below is of a whole run")
	assert.Less(t, 4*opened.Load(), int64(len(checks)), "connections opened to the target by %d checks: fewer than one for every four checks", len(checks))
	t.Logf("%d checks opened %d connections to the target", len(checks), opened.Load())
}

// A target without the webhook-endpoint extension gets those checks skipped, or failed when
// extensions are required.
func TestExtensionsAreDetected(t *testing.T) {
	srv, err := sandbox.New(sandbox.WithTimings(embedded.Timings.Network))
	require.NoError(t, err)
	withoutExtension := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, api.OpListWebhookEndpoints().Path) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(api.CodeNotFound.HTTPStatus())
			_, _ = fmt.Fprintf(w, `{"status":"error","code":%d,"message":"no such path","errors":[]}`, api.CodeNotFound)
			return
		}
		srv.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(withoutExtension)
	defer ts.Close()
	checks, err := contracttests.All()
	require.NoError(t, err)
	cfg := contracttests.Config{BaseURL: ts.URL, Keys: contracttests.Keys{Public: sandbox.DefaultPublicKey, Secret: sandbox.DefaultSecretKey},
		Run: regexp.MustCompile(`^(extensions\.webhook-endpoints\.crud|reference\.countries)$`)}

	sum, err := contracttests.Run(context.Background(), cfg, checks)
	require.NoError(t, err)
	outcomes := map[string]report.Outcome{}
	for _, r := range sum.Results {
		outcomes[r.ID] = r.Outcome
	}
	assert.Equal(t, map[string]report.Outcome{"extensions.webhook-endpoints.crud": report.Skipped,
		"reference.countries": report.Passed}, outcomes)

	cfg.RequireExtensions = true
	sum, err = contracttests.Run(context.Background(), cfg, checks)
	require.NoError(t, err)
	assert.Equal(t, 1, sum.Failed)
}

// Each extension is detected on its own: a target without the event log has the event-log checks
// skipped (or failed under --require-extensions), naming its probe, while the webhook-endpoint checks
// run.
func TestTheEventLogExtensionIsDetectedOnItsOwn(t *testing.T) {
	srv, err := sandbox.New(sandbox.WithTimings(embedded.Timings.Network))
	require.NoError(t, err)
	withoutEventLog := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, api.OpListEvents().Path) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(api.CodeNotFound.HTTPStatus())
			_, _ = fmt.Fprintf(w, `{"status":"error","code":%d,"message":"no such path","errors":[]}`, api.CodeNotFound)
			return
		}
		srv.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(withoutEventLog)
	defer ts.Close()
	checks, err := contracttests.All()
	require.NoError(t, err)
	cfg := contracttests.Config{BaseURL: ts.URL, Keys: contracttests.Keys{Public: sandbox.DefaultPublicKey, Secret: sandbox.DefaultSecretKey},
		Run: regexp.MustCompile(`^(extensions\.webhook-endpoints\.crud|extensions\.events\.(get|resend-to-endpoint)|auth\.getEvent\.no-keys)$`)}

	sum, err := contracttests.Run(context.Background(), cfg, checks)
	require.NoError(t, err)
	outcomes := map[string]report.Outcome{}
	for _, r := range sum.Results {
		outcomes[r.ID] = r.Outcome
		if r.Outcome == report.Skipped {
			assert.Equal(t, "the target does not implement the event-log extension (GET "+api.OpListEvents().Path+" answered 404)", r.SkipReason, r.ID)
		}
	}
	assert.Equal(t, map[string]report.Outcome{"extensions.webhook-endpoints.crud": report.Passed,
		"extensions.events.get": report.Skipped, "extensions.events.resend-to-endpoint": report.Skipped,
		"auth.getEvent.no-keys": report.Skipped}, outcomes)

	cfg.RequireExtensions = true
	sum, err = contracttests.Run(context.Background(), cfg, checks)
	require.NoError(t, err)
	assert.Equal(t, 3, sum.Failed)
}

func TestReports(t *testing.T) {
	faulty, err := faults.Options(faults.AuthNotEnforced)
	require.NoError(t, err)
	cfg, stop, err := contracttests.StartEmbeddedWith(faulty...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, stop()) })
	checks, err := contracttests.All()
	require.NoError(t, err)
	cfg.Run = regexp.MustCompile(`^(auth\.getPayout\.|reference\.countries$)`)
	dir := t.TempDir()
	junitPath, jsonPath := filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.json")
	var text strings.Builder
	sum, err := contracttests.Run(context.Background(), cfg, checks, &report.TextReporter{W: &text},
		report.JUnitReporter{Path: junitPath}, report.JSONReporter{Path: jsonPath})
	require.NoError(t, err)
	require.Len(t, sum.Results, 6, "5 auth checks of getPayout and reference.countries")
	assert.Equal(t, 1, sum.Passed)
	assert.Equal(t, 5, sum.Failed, "the fault lets every auth check of getPayout through")

	out := text.String()
	assert.Contains(t, out, "FAIL auth.getPayout.no-keys")
	missing, notFound := api.CodeMissingAPIKey, api.CodeNotFound.HTTPStatus()
	assert.Contains(t, out, fmt.Sprintf("auth.getPayout.no-keys — getPayout without any key header is rejected with %d (code %d)",
		missing.HTTPStatus(), missing))
	assert.Contains(t, out, fmt.Sprintf("[%s %s → %d] want HTTP %d, got %d", api.OpGetPayout().Method, api.OpGetPayout().URL("conform-unknown-id"),
		notFound, missing.HTTPStatus(), notFound))
	assert.Contains(t, out, "1 passed, 5 failed, 0 skipped")
	assert.Contains(t, out, "Coverage:")

	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junitPath)
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(data, &junit))
	assert.Equal(t, 6, junit.Tests)
	assert.Equal(t, 5, junit.Failures)
	require.Len(t, junit.Suites, 2)
	assert.Equal(t, "malipo.auth", junit.Suites[0].Name)
	require.NotNil(t, junit.Suites[0].Cases[0].Failure)
	assert.Contains(t, junit.Suites[0].Cases[0].Failure.Message, "want HTTP 401")

	var report struct {
		report.Summary
		Findings []report.Finding `json:"findings"`
	}
	data, err = os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &report))
	assert.Equal(t, 5, report.Failed)
	assert.NotEmpty(t, report.Coverage.Operations)
	// The findings account for every failed check once.
	var grouped []string
	for _, f := range report.Findings {
		assert.Len(t, f.Checks, f.Count)
		grouped = append(grouped, f.Checks...)
	}
	assert.ElementsMatch(t, failedIDs(sum), grouped)
}
