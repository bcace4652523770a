package contracttests_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/report"
)

// evidenceRun is one run of a few checks against a sandbox broken in several ways, with every report.
type evidenceRun struct {
	cfg                          contracttests.Config
	sum                          *report.Summary
	text                         string
	jsonPath, junitPath, harPath string
	// secrets are the webhook secrets that crossed the wire: every whsec_ value the target sent, and
	// the usable ones the suite sent.
	secrets []string
	// requests counts the requests that reached the target.
	requests int
}

// The checks of the evidence run: failures of different kinds (a GET, bodies, the auth matrix with a
// literal wrong key, swapped keys and the other merchant's keys, a body over 1 MiB, webhook deliveries
// with bad signatures, webhook secrets in bodies), and one check that passes.
var evidenceChecks = regexp.MustCompile(`^(auth\.getPayout\.no-keys|auth\.processPayout\.(wrong-public-key|keys-swapped)|auth\.isolation\.payout|` +
	`negative\.processPayout\.bank\.amount\.below-minimum|negative\.processPayout\.body-too-large|` +
	`extensions\.webhook-endpoints\.(crud|supplied-secret)|state\.payout\.bank\.success\..*|reference\.countries)$`)

var evidenceFaults = []faults.Fault{faults.AuthNotEnforced, faults.AcceptInvalidInput, faults.CrossMerchantVisible,
	faults.ErrorNotEnvelope, faults.SecretInEndpointRead, faults.BadSignature, faults.SuppliedSecretIgnored}

// TestEvidenceOfAFailingRun runs the evidence checks once, keeping the sandbox up for the replays,
// and reads every report.
func TestEvidenceOfAFailingRun(t *testing.T) {
	run := startEvidenceRun(t)
	t.Run("failures carry their exchanges", func(t *testing.T) { failuresCarryTheirExchanges(t, run) })
	t.Run("curl reproduces the failing status", func(t *testing.T) { curlReproducesTheFailingStatus(t, run) })
	t.Run("no secret in any report", func(t *testing.T) { noSecretInAnyReport(t, run) })
	t.Run("reports show the evidence", func(t *testing.T) { reportsShowEvidence(t, run) })
	t.Run("HAR recording", func(t *testing.T) { harRecording(t, run) })
}

var whsec = regexp.MustCompile(`whsec_[A-Za-z0-9+/=]+`)

func startEvidenceRun(t *testing.T) *evidenceRun {
	faulty, err := faults.Options(evidenceFaults...)
	require.NoError(t, err)
	cfg, stop, err := contracttests.StartEmbeddedWith(faulty...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, stop()) })
	dir := t.TempDir()
	run := &evidenceRun{jsonPath: filepath.Join(dir, "r.json"), junitPath: filepath.Join(dir, "r.xml"), harPath: filepath.Join(dir, "r.har")}

	// A proxy in front of the sandbox collects every webhook secret on the wire.
	target, err := url.Parse(cfg.BaseURL)
	require.NoError(t, err)
	var mu sync.Mutex
	proxy := httputil.NewSingleHostReverseProxy(target)
	seen := func(body []byte, usableOnly bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range whsec.FindAllString(string(body), -1) {
			if _, err := webhook.ParseEndpointSecret(s); err == nil || !usableOnly {
				run.secrets = append(run.secrets, s)
			}
		}
	}
	proxy.ModifyResponse = func(resp *http.Response) error {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		seen(body, false)
		return nil
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		seen(body, true)
		mu.Lock()
		run.requests++
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	cfg.BaseURL = front.URL
	cfg.Run = evidenceChecks
	run.cfg = cfg

	checks, err := contracttests.All()
	require.NoError(t, err)
	var text strings.Builder
	run.sum, err = contracttests.Run(context.Background(), cfg, checks, &report.TextReporter{W: &text},
		report.JSONReporter{Path: run.jsonPath}, report.JUnitReporter{Path: run.junitPath},
		&report.HARRecorder{Path: run.harPath})
	require.NoError(t, err)
	run.text = text.String()
	return run
}

func (r *evidenceRun) result(t *testing.T, pattern string) report.Result {
	t.Helper()
	re := regexp.MustCompile(pattern)
	for _, res := range r.sum.Results {
		if re.MatchString(res.ID) {
			return res
		}
	}
	t.Fatalf("no result matches %s", pattern)
	return report.Result{}
}

// Failed checks carry their exchanges, and each failure that names an exchange points at it; a check
// that passed keeps none. Deliveries belong to the check whose receiver path they hit.
func failuresCarryTheirExchanges(t *testing.T, run *evidenceRun) {
	assert.Empty(t, run.result(t, `^reference\.countries$`).Evidence, "a passed check keeps no evidence")
	assert.Equal(t, report.Passed, run.result(t, `^reference\.countries$`).Outcome)
	var webhooks int
	for _, res := range run.sum.Results {
		if res.Outcome != report.Failed {
			continue
		}
		require.NotEmpty(t, res.Evidence, "%s failed without evidence", res.ID)
		for _, ev := range res.Evidence {
			assert.Equal(t, res.ID, ev.Check, "evidence of %s names another check", res.ID)
			if ev.Kind == report.EvidenceWebhook {
				webhooks++
				assert.Contains(t, ev.Request.URL, "/"+res.ID, "a delivery to another check's path")
				assert.NotZero(t, ev.Response.Status, "the receiver's answer")
			} else {
				assert.True(t, strings.HasPrefix(ev.Request.URL, run.cfg.BaseURL), ev.Request.URL)
				assert.NotEmpty(t, ev.Curl)
			}
		}
		for _, f := range res.Failures {
			if f.Exchange == "" {
				continue
			}
			require.Len(t, f.Evidence, 1, "%s: failure %q points at no exchange", res.ID, f)
			ev := res.Evidence[f.Evidence[0]]
			if ev.Kind == report.EvidenceWebhook {
				assert.True(t, strings.HasSuffix(f.Exchange, " to "+strings.TrimPrefix(ev.Request.URL, urlBase(ev.Request.URL))),
					"%s: failure about %q points at the delivery to %s", res.ID, f.Exchange, ev.Request.URL)
				continue
			}
			u, err := url.Parse(ev.Request.URL)
			require.NoError(t, err)
			assert.Equal(t, f.Exchange, ev.Request.Method+" "+u.RequestURI()+" → "+itoa(ev.Response.Status),
				"%s: the failure points at another exchange", res.ID)
		}
	}
	assert.Positive(t, webhooks, "no failed check kept a delivery")
	body := run.result(t, `^negative\.processPayout\.body-too-large$`).Evidence[0].Request
	assert.True(t, body.BodyTruncated)
	assert.Greater(t, body.BodySize, report.MaxEvidenceBody)
	assert.LessOrEqual(t, len(body.Body), report.MaxEvidenceBody)
}

// The curl command of every exchange a failure points at, pasted into bash with the keys in the
// environment, gets the status the suite got.
func curlReproducesTheFailingStatus(t *testing.T, run *evidenceRun) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("this test runs the replay commands with the real curl, which is not on PATH: install it (apt-get install curl): %v", err)
	}
	env := append(os.Environ(), "MALIPO_PUBLIC_KEY="+run.cfg.Keys.Public, "MALIPO_SECRET_KEY="+run.cfg.Keys.Secret,
		"MALIPO_OTHER_PUBLIC_KEY="+run.cfg.OtherMerchant.Public, "MALIPO_OTHER_SECRET_KEY="+run.cfg.OtherMerchant.Secret)
	kinds := map[string]bool{}
	for _, res := range run.sum.Results {
		if res.ID == "extensions.webhook-endpoints.crud" {
			// Its failing read is of an endpoint it deleted afterwards: a replay now gets 404, because
			// the target changed, not the request.
			continue
		}
		replayed := map[int]bool{}
		for _, f := range res.Failures {
			for _, i := range f.Evidence {
				ev := res.Evidence[i]
				if ev.Kind != report.EvidenceRequest || replayed[i] {
					continue
				}
				replayed[i] = true
				cmd := exec.Command("bash", "-c", ev.Curl+` -o /dev/null -w '%{http_code}'`)
				cmd.Env = env
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				require.NoError(t, err, "%s: %s: %s", res.ID, ev.Curl, stderr.String())
				assert.Equal(t, itoa(ev.Response.Status), string(out), "%s: the replay got another status: %s", res.ID, ev.Curl)
				switch {
				case strings.Contains(ev.Curl, "| curl"):
					kinds["generated body"] = true
				case strings.Contains(ev.Curl, "$MALIPO_OTHER_PUBLIC_KEY"):
					kinds["other merchant"] = true
				case strings.Contains(ev.Curl, `"public-key: $MALIPO_SECRET_KEY"`):
					kinds["keys swapped"] = true
				case strings.Contains(ev.Curl, "pk_conform_"):
					kinds["wrong literal key"] = true
				case strings.Contains(ev.Curl, "--data-binary"):
					kinds["body"] = true
				case ev.Request.Method == http.MethodGet:
					kinds["get"] = true
				}
			}
		}
	}
	assert.Equal(t, map[string]bool{"generated body": true, "other merchant": true, "keys swapped": true, "wrong literal key": true,
		"body": true, "get": true}, kinds, "the replays must cover every kind of request")
}

// No key value and no webhook secret appears in any report of a run whose failures quote bodies that
// hold them.
func noSecretInAnyReport(t *testing.T, run *evidenceRun) {
	forbidden := append([]string{run.cfg.Keys.Public, run.cfg.Keys.Secret, run.cfg.OtherMerchant.Public, run.cfg.OtherMerchant.Secret,
		webhook.MerchantSigningSecret(run.cfg.Keys.Secret), webhook.MerchantSigningSecret(run.cfg.OtherMerchant.Secret)}, run.secrets...)
	require.NotEmpty(t, run.secrets, "the run must have put webhook secrets on the wire, or this test proves nothing")
	reports := map[string]string{"text": run.text}
	for name, path := range map[string]string{"JSON": run.jsonPath, "JUnit": run.junitPath, "HAR": run.harPath} {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		reports[name] = string(data)
	}
	for name, report := range reports {
		for _, secret := range forbidden {
			assert.NotContains(t, report, secret, "the %s report shows a secret", name)
		}
	}
	// The secrets were there to leak: the failing read of the endpoint shows where one was.
	assert.Contains(t, reports["JSON"], `\"secret\":\"whsec_…(redacted)\"`)
	assert.Contains(t, reports["text"], "secret-key: sk_test_…(redacted)")
}

// The text report shows each failure's exchange and its replay under it; JUnit has them in <failure>
// and every exchange in full in <system-out>.
func reportsShowEvidence(t *testing.T, run *evidenceRun) {
	get := run.result(t, `^auth\.getPayout\.no-keys$`)
	ev := get.Evidence[get.Failures[0].Evidence[0]]
	assert.Contains(t, run.text, "      request:  GET "+ev.Request.URL+"  (no key header)\n")
	assert.Contains(t, run.text, "      replay:   "+ev.Curl+"\n")

	data, err := os.ReadFile(run.junitPath)
	require.NoError(t, err)
	var junit struct {
		Suites []struct {
			Cases []struct {
				Name      string `xml:"name,attr"`
				Failure   string `xml:"failure"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &junit))
	found := 0
	for _, suite := range junit.Suites {
		for _, c := range suite.Cases {
			switch c.Name {
			case get.ID:
				found++
				assert.Contains(t, c.Failure, "want HTTP")
				assert.Contains(t, c.Failure, "  replay:   "+ev.Curl+"\n")
				assert.True(t, strings.HasPrefix(c.SystemOut, "=== #0 request getPayout"), c.SystemOut)
				assert.Contains(t, c.SystemOut, "--- HTTP "+itoa(ev.Response.Status)+"\n")
				assert.Contains(t, c.SystemOut, ev.Response.Body)
			case "reference.countries":
				found++
				assert.Empty(t, c.SystemOut, "a passed check has no exchanges in the report")
			}
		}
	}
	assert.Equal(t, 2, found)
	var sum report.Summary
	data, err = os.ReadFile(run.jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	for _, res := range sum.Results {
		if res.ID == get.ID {
			assert.Equal(t, get.Evidence[0].Curl, res.Evidence[0].Curl, "the JSON report holds the evidence")
			assert.Equal(t, get.Failures[0].Evidence, res.Failures[0].Evidence)
		}
	}
}

// The HAR file is valid against the HAR 1.2 schema har-validator uses (npm har-schema, pinned in
// tools/package.json), and holds what the schema cannot check: ISO 8601 times, timings that add up to
// each entry's time, deliveries marked as such, and every exchange of the run, passed checks included.
func harRecording(t *testing.T, run *evidenceRun) {
	schema := harSchema(t)
	data, err := os.ReadFile(run.harPath)
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	require.NoError(t, schema.Validate(doc), "the recording is not valid HAR 1.2")

	var har struct {
		Log struct {
			Version string
			Entries []struct {
				StartedDateTime string
				Time            float64
				Timings         map[string]float64
				Request         struct{ Method, URL string }
				Response        struct{ Status int }
				Kind            string `json:"_malipo_kind"`
				Check           string `json:"_check"`
			}
		}
	}
	require.NoError(t, json.Unmarshal(data, &har))
	assert.Equal(t, "1.2", har.Log.Version)
	kinds := map[string]int{}
	checks := map[string]bool{}
	started := map[string]bool{}
	for i, e := range har.Log.Entries {
		at, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		require.NoError(t, err, "entry %d: startedDateTime is not ISO 8601", i)
		started[e.Request.URL+" "+at.UTC().Format(time.RFC3339)] = true
		sum := 0.0
		for _, v := range e.Timings {
			if v >= 0 {
				sum += v
			}
		}
		assert.InDelta(t, e.Time, sum, 1e-6, "entry %d: time is not the sum of its timings", i)
		kinds[e.Kind]++
		checks[e.Check] = true
		assert.True(t, evidenceChecks.MatchString(e.Check), "entry %d belongs to %q", i, e.Check)
		switch e.Kind {
		case report.EvidenceWebhook:
			assert.False(t, strings.HasPrefix(e.Request.URL, run.cfg.BaseURL), "a delivery marked on a request to the target")
		case report.EvidenceRequest:
			assert.True(t, strings.HasPrefix(e.Request.URL, run.cfg.BaseURL), "a request to the target not marked as such: %s", e.Request.URL)
		default:
			t.Errorf("entry %d: _malipo_kind %q", i, e.Kind)
		}
	}
	assert.Positive(t, kinds[report.EvidenceWebhook], "no delivery recorded")
	assert.True(t, checks["reference.countries"], "the exchanges of passed checks are recorded too")
	assert.LessOrEqual(t, kinds[report.EvidenceRequest], run.requests, "more requests recorded than reached the target")
	for _, res := range run.sum.Results {
		for _, ev := range res.Evidence {
			assert.True(t, started[ev.Request.URL+" "+ev.Started.UTC().Format(time.RFC3339)], "%s: an exchange missing from the HAR", res.ID)
		}
	}
}

// harSchema compiles the HAR 1.2 schema of npm's har-schema, which make deps installs.
func harSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "tools", "node_modules", "har-schema", "lib"))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	if len(files) == 0 {
		t.Fatalf("the HAR schema (npm har-schema, pinned in tools/package.json) is not in %s: run make deps", dir)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		require.NoError(t, err)
		require.NoError(t, c.AddResource("file://"+filepath.ToSlash(f), doc))
	}
	schema, err := c.Compile("file://" + filepath.ToSlash(filepath.Join(dir, "har.json")))
	require.NoError(t, err)
	return schema
}

func urlBase(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

func itoa(n int) string { return strconv.Itoa(n) }

// When the status check disagrees with the document's test value, the failure names what each side
// reported (the status check, the test value, the final webhook), so that it blames the component out
// of line, and it points at the status check's own exchange.
func TestStatusDisagreementNamesEachSide(t *testing.T) {
	faulty, err := faults.Options(faults.WrongFailureReason)
	require.NoError(t, err)
	results := runWith(t, nil, `^state\.payout\.mobile\.transaction_failed\.`, faulty...)
	require.Len(t, results, 1)
	var res report.Result
	for _, r := range results {
		res = r
	}
	require.Equal(t, report.Failed, res.Outcome)
	var found bool
	for _, f := range res.Failures {
		if !strings.HasPrefix(f.Message, "the status check of ") {
			continue
		}
		found = true
		assert.Regexp(t, `reports type "payout", status "failed", failure_reason "(\w+)"; the test value promises failed with transaction_failed, `+
			`and the payout.failed webhook \(evt_\w+\) reported status "failed", failure_reason "\w+"`, f.Message)
		require.Len(t, f.Evidence, 1)
		ev := res.Evidence[f.Evidence[0]]
		assert.Equal(t, report.EvidenceRequest, ev.Kind)
		assert.Contains(t, ev.Request.URL, "/transactions/", "the failure points at the status check, not at the check's last exchange")
	}
	assert.True(t, found, "no status-check failure in %+v", res.Failures)
}
