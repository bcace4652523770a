package main

import (
	"encoding/json"
	"encoding/xml"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/receiverfaults"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/report"
)

func newWebhookSecret(t *testing.T) webhook.Secret {
	t.Helper()
	s, err := webhook.NewSecret()
	require.NoError(t, err)
	return s
}

// flawedReceiver serves the receiver of internal/receiverfaults named name, with a new secret, until the
// test ends.
func flawedReceiver(t *testing.T, name string) (webhook.Secret, *httptest.Server) {
	t.Helper()
	secret := newWebhookSecret(t)
	fault, ok := receiverfaults.Named(name)
	require.True(t, ok, "receiverfaults has no %s", name)
	srv := httptest.NewServer(fault.New(secret))
	t.Cleanup(srv.Close)
	return secret, srv
}

// `malipo webhooks test` against a correct receiver exits 0 and writes every report; the secret comes
// from $MALIPO_WEBHOOK_SECRET and is printed nowhere.
func TestWebhooksTestPassesACorrectReceiver(t *testing.T) {
	secret := newWebhookSecret(t)
	srv := httptest.NewServer(receiverfaults.Correct(secret))
	defer srv.Close()
	t.Setenv(webhookSecretEnv, secret.Reveal())
	dir := t.TempDir()
	jsonPath, junitPath, htmlPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.html")
	code, stdout, stderr := runCLI(t, "webhooks", "test", "--url", srv.URL+"/hooks", "--burst", "5",
		"--json", jsonPath, "--junit", junitPath, "--html", htmlPath)
	assert.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "malipo webhooks test: running")
	assert.Contains(t, stdout, "PASS receiver.rejects.forged-signature/payment.success")
	assert.Contains(t, stdout, "PASS receiver.accepts.raw-body/whitespace")
	assert.Contains(t, stdout, "PASS receiver.accepts.generated/payout.failed")
	assert.Regexp(t, `generated payloads from --seed [1-9][0-9]*\n`, stderr, "a seed is drawn and printed")
	assert.NotContains(t, stdout, "Coverage:", "a receiver run covers no operation")
	for _, out := range []string{stdout, stderr} {
		assert.NotContains(t, out, secret.Reveal())
	}

	var sum report.Summary
	data, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	assert.Equal(t, "malipo webhooks test", sum.Tool)
	assert.Contains(t, sum.Rerun, "--seed", "the JSON report has the seed")
	assert.Zero(t, sum.Failed)
	assert.NotZero(t, sum.Passed)

	data, err = os.ReadFile(junitPath)
	require.NoError(t, err)
	var suites struct {
		Name  string `xml:"name,attr"`
		Tests int    `xml:"tests,attr"`
	}
	require.NoError(t, xml.Unmarshal(data, &suites))
	assert.Equal(t, "malipo webhooks test", suites.Name)
	assert.Equal(t, sum.Passed, suites.Tests)

	data, err = os.ReadFile(htmlPath)
	require.NoError(t, err)
	page := string(data)
	assert.Contains(t, page, "<h1>malipo webhooks test</h1>")
	assert.NotContains(t, page, `id="coverage"`, "no empty coverage matrix")
	assert.NotContains(t, page, "#coverage")
}

// Run with a settings file, here the ./malipo.yaml found in the working directory, the rerun line names
// it and leaves it the flags it set: the receiver's URL, from a variable, is not repeated in it.
func TestWebhooksTestRerunNamesTheSettingsFile(t *testing.T) {
	secret, srv := flawedReceiver(t, "accepts-any-signature")
	t.Setenv("HOOK_URL", srv.URL)
	t.Setenv("HOOK_SECRET", secret.Reveal())
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile(configFile, []byte("webhooks:\n  test:\n    url: ${HOOK_URL}\n    secret: ${HOOK_SECRET}\n"), 0o600))
	code, stdout, stderr := runCLI(t, "webhooks", "test", "--run", `^receiver\.rejects\.forged-signature/`, "--event-types", "payout.failed", "--seed", "7", "--quiet")
	assert.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	m := regexp.MustCompile(`(?m)^    rerun: (.*)$`).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	assert.Equal(t, "malipo webhooks test --config malipo.yaml --event-types payout.failed --seed 7 --run '^receiver\\.rejects\\.forged-signature/payout\\.failed$'", m[1],
		"no --url: the file gives it")
	assert.NotContains(t, stdout+stderr, secret.Reveal())
}

// Against a receiver that breaks a rule it exits 1, naming the failed check, its rule and a curl line.
func TestWebhooksTestFailsAFlawedReceiver(t *testing.T) {
	secret, srv := flawedReceiver(t, "accepts-any-signature")
	htmlPath := filepath.Join(t.TempDir(), "r.html")
	code, stdout, stderr := runCLI(t, "webhooks", "test", "--url", srv.URL, "--secret", secret.Reveal(), "--quiet", "--html", htmlPath,
		"--seed", "7")
	assert.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "FAIL receiver.rejects.forged-signature/payout.success", "every attack, for every event type")
	assert.Contains(t, stdout, "FAIL receiver.rejects.forged-signature/payment.processing")
	assert.Contains(t, stderr, "generated payloads from --seed 7")
	assert.Contains(t, stdout, "rerun: malipo webhooks test --url "+srv.URL+" --seed 7 --run ", "the rerun line sends the same payloads")
	assert.NotContains(t, stdout, "PASS ", "--quiet prints failures only")
	assert.Contains(t, stdout, "Standard Webhooks")
	assert.Contains(t, stdout, "replay:   curl ")
	assert.Contains(t, stdout, "webhook-signature: v1,")
	assert.NotContains(t, stdout, secret.Reveal())
	page, err := os.ReadFile(htmlPath)
	require.NoError(t, err)
	assert.Contains(t, string(page), "receiver.rejects.forged-signature")
	assert.Contains(t, string(page), "curl -sS -i")
}

// A receiver that does not answer, a wrong secret, an unknown event type: exit 2, each saying what to do.
func TestWebhooksTestSetupAndUsageErrors(t *testing.T) {
	dead := httptest.NewServer(nil)
	deadURL := dead.URL + "/hooks"
	dead.Close()
	secret := newWebhookSecret(t).Reveal()
	t.Setenv(webhookSecretEnv, "")

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unreachable", []string{"--url", deadURL, "--secret", secret}, deadURL},
		{"no url", []string{"--secret", secret}, "--url is required"},
		{"no secret", []string{"--url", deadURL}, "whsec_"},
		{"secret not whsec", []string{"--url", deadURL, "--secret", "sk_test_abc"}, "--secret-key"},
		{"secret not base64", []string{"--url", deadURL, "--secret", "whsec_%%%"}, "base64"},
		{"both secrets", []string{"--url", deadURL, "--secret", secret, "--secret-key", "sk_test_abc"}, "not both"},
		{"unknown event type", []string{"--url", deadURL, "--secret", secret, "--event-types", "payment.refunded"}, "payout.success"},
		{"bad timeout", []string{"--url", deadURL, "--secret", secret, "--timeout", "5"}, "unit"},
		{"url without scheme", []string{"--url", "127.0.0.1:8090/hooks", "--secret", secret}, "http://127.0.0.1:8090/hooks"},
		{"run selects nothing", []string{"--url", deadURL, "--secret", secret, "--run", "^nothing$"}, "matches none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"webhooks", "test"}, c.args...)...)
			assert.Equal(t, exitUsage, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			assert.Contains(t, stderr, c.want)
			assert.NotContains(t, stdout+stderr, strings.TrimPrefix(secret, "whsec_"))
		})
	}
}

func TestWebhooksShowsItsHelp(t *testing.T) {
	code, stdout, _ := runCLI(t, "webhooks")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "test ")
	code, stdout, _ = runCLI(t, "webhooks", "test", "--list")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "receiver.accepts.redelivery")
	// A single-dash long flag of the subcommand works as for the others.
	code, stdout, _ = runCLI(t, "webhooks", "test", "-list", "-run", "burst")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "1 checks")
}
