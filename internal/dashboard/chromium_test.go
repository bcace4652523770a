package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/dashboard"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// screenshotEnv names the file `make screenshots` wants the dashboard's picture in.
const screenshotEnv = "MALIPO_DASHBOARD_SCREENSHOT"

// driven is what testdata/drive-dashboard.js saw in the browser.
type driven struct {
	Requests            []string `json:"requests"`
	ConsoleErrors       []string `json:"consoleErrors"`
	PayoutID            string   `json:"payoutID"`
	StatusBefore        string   `json:"statusBefore"`
	StatusAfter         string   `json:"statusAfter"`
	MessageAfterSettle  string   `json:"messageAfterSettle"`
	EventID             string   `json:"eventID"`
	EventType           string   `json:"eventType"`
	AttemptsAfterSettle int      `json:"attemptsAfterSettle"`
	FirstAttempt        string   `json:"firstAttempt"`
	AttemptsAfterResend int      `json:"attemptsAfterResend"`
	ResendAttempt       string   `json:"resendAttempt"`
	MessageAfterResend  string   `json:"messageAfterResend"`
	SameDocument        bool     `json:"sameDocument"`
	LiveState           string   `json:"liveState"`
	Screenshot          string   `json:"screenshot"`
	// The first attempt's request, opened before the resend re-rendered the tables.
	RequestOpenAfterResend bool   `json:"requestOpenAfterResend"`
	FirstRequest           string `json:"firstRequest"`
}

// hookReceiver is the merchant's webhook receiver: it records the webhook-id of every delivery and
// answers with a body that would run script if the dashboard did not escape it.
type hookReceiver struct {
	mu  sync.Mutex
	ids []string
}

const receiverAnswer = `{"received":true,"note":"<script>alert(1)</script>"}`

func (rc *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	rc.mu.Lock()
	rc.ids = append(rc.ids, r.Header.Get(api.HeaderWebhookID))
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, receiverAnswer)
}

func (rc *hookReceiver) webhookIDs() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.ids...)
}

// browser returns node, Debian's chromium and tools/node_modules. Like the HTML report's test
// (contracttests/html_test.go) it fails rather than skips when one is missing: make test installs
// chromium (make debian-tools) and the Node tools, so a missing one is a broken setup to report.
func browser(t *testing.T) (node, chromium, nodeModules string) {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the dashboard test drives Chromium from Node.js: install Node.js 20+")
	chromium, err = exec.LookPath("chromium")
	require.NoError(t, err, "the dashboard test opens the page in Debian's chromium: run `make debian-tools` (as root) or apt-get install chromium")
	nodeModules, err = filepath.Abs(filepath.Join("..", "..", "tools", "node_modules"))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(nodeModules, "playwright-core"))
	require.NoError(t, err, "playwright-core comes with the Node tools: run `make deps` (cd tools && npm ci)")
	return node, chromium, nodeModules
}

// The "done when": with the page open in headless Chromium, a payout created through the API
// appears (live); "Settle success" turns its status to success and its event appears with the
// delivery attempt and the receiver's answer; "Resend" adds a second attempt without a reload, and the
// receiver got the same webhook-id twice. With MALIPO_DASHBOARD_SCREENSHOT set (make screenshots) it
// also saves a picture of the page there.
func TestDashboardInChromium(t *testing.T) {
	node, chromium, nodeModules := browser(t)
	srv, err := sandbox.New(
		// Nothing settles on its own: the page's button does it.
		sandbox.WithTimings(sandbox.Timings{PromptDelay: time.Hour, PayoutDelay: time.Hour}),
		sandbox.WithRetrySchedule([]time.Duration{10 * time.Millisecond}),
	)
	require.NoError(t, err)
	dash := dashboard.New(srv)
	ts := httptest.NewServer(dashboard.Mount(srv, dash))
	t.Cleanup(func() {
		dash.Close() // the page's stream would keep ts.Close waiting
		ts.Close()
		_ = srv.Close()
	})
	rc := &hookReceiver{}
	hooks := httptest.NewServer(rc)
	t.Cleanup(hooks.Close)

	script, err := filepath.Abs(filepath.Join("testdata", "drive-dashboard.js"))
	require.NoError(t, err)
	args := []string{script, ts.URL + dashboard.Prefix, chromium}
	if shot := os.Getenv(screenshotEnv); shot != "" {
		abs, err := filepath.Abs(shot)
		require.NoError(t, err)
		args = append(args, abs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)

	require.True(t, lines.Scan(), "drive-dashboard.js ended before the page was ready: %s", &stderr)
	require.Equal(t, "READY", lines.Text())
	id := createPayout(t, ts.URL, hooks.URL+"/hooks")
	_, err = fmt.Fprintln(stdin, id)
	require.NoError(t, err)
	var last string
	for lines.Scan() {
		last = lines.Text()
	}
	require.NoError(t, cmd.Wait(), "drive-dashboard.js: %s", &stderr)
	var got driven
	require.NoError(t, json.Unmarshal([]byte(last), &got), "%s", last)

	assert.Equal(t, id, got.PayoutID)
	assert.Equal(t, string(api.PayoutStatusProcessing), got.StatusBefore, "the payout appears, processing")
	assert.Equal(t, string(api.PayoutStatusSuccess), got.StatusAfter, "Settle success settles it")
	assert.Contains(t, got.MessageAfterSettle, "200")
	assert.Equal(t, "payout."+string(api.PayoutStatusSuccess), got.EventType)
	assert.Equal(t, 1, got.AttemptsAfterSettle)
	assert.Contains(t, got.FirstAttempt, "200")
	assert.Contains(t, got.FirstAttempt, hooks.URL+"/hooks")
	assert.Contains(t, got.FirstAttempt, "<script>alert(1)</script>", "the receiver's answer is shown as text")
	assert.Equal(t, 2, got.AttemptsAfterResend, "Resend adds an attempt")
	assert.Contains(t, got.ResendAttempt, "resend")
	assert.True(t, got.RequestOpenAfterResend, "an opened request stays open when the tables are re-rendered")
	assert.Contains(t, got.FirstRequest, "POST "+hooks.URL+"/hooks")
	assert.Contains(t, got.FirstRequest, webhook.HeaderID+": "+got.EventID)
	assert.Contains(t, got.FirstRequest, `"payout_id": "`+id+`"`, "the body, indented")
	assert.NotContains(t, got.FirstRequest, "whsec_")
	assert.NotContains(t, got.FirstRequest, sandbox.DefaultSecretKey)
	assert.Contains(t, got.MessageAfterResend, "202")
	assert.True(t, got.SameDocument, "everything happened live, without a reload")
	assert.Equal(t, "live", got.LiveState)
	assert.Empty(t, got.ConsoleErrors, "no script error, no CSP violation")
	for _, u := range got.Requests {
		assert.True(t, strings.HasPrefix(u, ts.URL+"/"), "the page loads nothing from elsewhere: %s", u)
	}

	p, ok := srv.Payout(sandbox.DefaultPublicKey, id)
	require.True(t, ok)
	assert.Equal(t, api.PayoutStatusSuccess, p.Status)
	assert.Equal(t, []string{got.EventID, got.EventID}, rc.webhookIDs(), "the receiver got the event twice, with the same webhook-id")
	if got.Screenshot != "" {
		info, err := os.Stat(got.Screenshot)
		require.NoError(t, err)
		assert.Positive(t, info.Size())
		t.Logf("screenshot: %s", got.Screenshot)
	}
}

// createPayout creates a mobile payout to the merchant's own wallet (no momo_phone_number: success)
// through the API, as the default merchant, and returns its id.
func createPayout(t *testing.T, base, hookURL string) string {
	t.Helper()
	data := create(t, base, api.OpProcessPayout(), fmt.Sprintf(`{"amount":120,"countryId":"ctry_zm","transfer_to":"mobile_number","webhook_url":%q}`, hookURL))
	var env struct {
		Data struct {
			PayoutID string `json:"payout_id"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(data, &env))
	return env.Data.PayoutID
}

// create sends body to op as the default merchant and returns the 201's body.
func create(t *testing.T, base string, op api.Operation, body string) []byte {
	t.Helper()
	req, err := http.NewRequest(op.Method, base+op.Path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
	req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusCreated, resp.StatusCode, "%s", data)
	return data
}
