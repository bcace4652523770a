package contracttests_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/embedded"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// recorder is a reporter that remembers what it was told.
type recorder struct {
	mu       sync.Mutex
	started  bool
	results  []report.Result
	finished *report.Summary
	onDone   func(n int)
}

func (r *recorder) Start([]string) { r.mu.Lock(); r.started = true; r.mu.Unlock() }

func (r *recorder) CheckDone(res report.Result) {
	r.mu.Lock()
	r.results = append(r.results, res)
	n := len(r.results)
	r.mu.Unlock()
	if r.onDone != nil {
		r.onDone(n)
	}
}

func (r *recorder) Finish(s *report.Summary) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = s
	return nil
}

func embeddedConfig(t *testing.T) contracttests.Config {
	t.Helper()
	cfg, stop, err := contracttests.StartEmbedded()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, stop()) })
	return cfg
}

func allChecks(t *testing.T) []*contracttests.Check {
	t.Helper()
	checks, err := contracttests.All()
	require.NoError(t, err)
	return checks
}

// A refused key is a setup error that names the key to correct, before any check runs, and never
// shows a key.
func TestPreflightNamesTheRefusedKey(t *testing.T) {
	for _, tc := range []struct {
		name  string
		keys  func(*contracttests.Config)
		names []string
	}{
		{"public", func(c *contracttests.Config) { c.Keys.Public = "pk_test_not_this_targets_key" },
			[]string{"refused the public key", "--public-key"}},
		{"secret", func(c *contracttests.Config) { c.Keys.Secret = "sk_test_not_this_targets_key" },
			[]string{"accepted the public key but refused the secret key", "--secret-key"}},
		{"other public", func(c *contracttests.Config) { c.OtherMerchant.Public = "pk_test_not_this_targets_key" },
			[]string{"refused the second merchant's public key", "--other-public-key"}},
		{"other secret", func(c *contracttests.Config) { c.OtherMerchant.Secret = "sk_test_not_this_targets_key" },
			[]string{"refused the secret key", "--other-secret-key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := embeddedConfig(t)
			tc.keys(&cfg)
			rec := &recorder{}
			sum, err := contracttests.Run(context.Background(), cfg, allChecks(t), rec)
			require.ErrorIs(t, err, runner.ErrSetup)
			assert.NotErrorIs(t, err, runner.ErrUnreachable)
			assert.Nil(t, sum)
			assert.False(t, rec.started, "no check may run with a refused key")
			for _, n := range tc.names {
				assert.Contains(t, err.Error(), n)
			}
			for _, k := range []string{cfg.Keys.Public, cfg.Keys.Secret, cfg.OtherMerchant.Public, cfg.OtherMerchant.Secret} {
				assert.NotContains(t, err.Error(), k, "a key value leaked into the error")
			}
			assert.Equal(t, runner.ExitSetup, runner.ExitCode(sum, err))
		})
	}
}

// A target that answers 404 where every implementation answers is most likely a wrong --target.
func TestPreflightCatchesAWrongBaseURL(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	sum, err := contracttests.Run(context.Background(), contracttests.Config{BaseURL: ts.URL,
		Keys: contracttests.Keys{Public: "pk", Secret: "sk"}}, allChecks(t))
	require.ErrorIs(t, err, runner.ErrSetup)
	assert.Nil(t, sum)
	assert.Contains(t, err.Error(), "base URL")
}

// A target behind a proxy that goes down mid-run: the proxy answers 502 to everything from then on, as
// nginx does. The run is aborted as for a refused connection, and no check fails for it.
func TestTargetGoingDownBehindAProxyAbortsTheRun(t *testing.T) {
	cfg := embeddedConfig(t)
	upstream, err := url.Parse(cfg.BaseURL)
	require.NoError(t, err)
	var requests atomic.Int32
	proxy := httputil.NewSingleHostReverseProxy(upstream)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) >= 60 {
			http.Error(w, "<html><body><h1>502 Bad Gateway</h1></body></html>", http.StatusBadGateway)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	cfg.BaseURL = front.URL

	checks := allChecks(t)
	sum, err := contracttests.Run(context.Background(), cfg, checks)
	require.ErrorIs(t, err, runner.ErrUnreachable)
	assert.Equal(t, runner.ExitSetup, runner.ExitCode(sum, err))
	require.NotNil(t, sum)
	assert.Zero(t, sum.Failed, "no check fails because the target went away: %v", failedIDs(sum))
	assert.Positive(t, sum.NotRun)
	assert.Contains(t, sum.Aborted, "answered 502, as a proxy or load balancer does in front of a target that is down")

	// The control: a single 503 from a target that still answers is an ordinary answer, judged by the
	// check that got it, not a reason to stop.
	cfg = embeddedConfig(t)
	var once atomic.Bool
	upstream, err = url.Parse(cfg.BaseURL)
	require.NoError(t, err)
	proxy = httputil.NewSingleHostReverseProxy(upstream)
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == api.OpGetPayout().URL("conform-unknown-id") && r.Header.Get(api.HeaderPublicKey) == "" && once.CompareAndSwap(false, true) {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(flaky.Close)
	cfg.BaseURL = flaky.URL
	cfg.Run = regexp.MustCompile(`^auth\.getPayout\.no-keys$`)
	sum, err = contracttests.Run(context.Background(), cfg, checks)
	require.NoError(t, err)
	assert.Empty(t, sum.Aborted)
	assert.Equal(t, 1, sum.Failed, "the check that got the 503 fails on it")
}

// A target that stops answering mid-run aborts the run: the checks in flight are interrupted, the rest
// do not run, none fails, and the reports are still written and say so.
func TestTargetGoingDownAbortsTheRun(t *testing.T) {
	cfg := embeddedConfig(t)
	upstream, err := url.Parse(cfg.BaseURL)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	// A proxy in front of the sandbox that dies, connections and listener, at its 60th request (the
	// preflight makes 5): the target process going away, as far as the suite can tell.
	var requests atomic.Int32
	proxy := httputil.NewSingleHostReverseProxy(upstream)
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	front := &http.Server{}
	front.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) >= 60 {
			go func() { _ = front.Close() }()
			panic(http.ErrAbortHandler)
		}
		proxy.ServeHTTP(w, r)
	})
	go func() { _ = front.Serve(ln) }()
	t.Cleanup(func() { _ = front.Close() })
	cfg.BaseURL = "http://" + ln.Addr().String()

	dir := t.TempDir()
	junitPath, jsonPath := filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.json")
	var text strings.Builder
	checks := allChecks(t)
	sum, err := contracttests.Run(context.Background(), cfg, checks, &report.TextReporter{W: &text},
		report.JUnitReporter{Path: junitPath}, report.JSONReporter{Path: jsonPath})
	require.ErrorIs(t, err, runner.ErrUnreachable)
	assert.NotErrorIs(t, err, runner.ErrInterrupted)
	assert.Equal(t, runner.ExitSetup, runner.ExitCode(sum, err))
	require.NotNil(t, sum, "an aborted run still has its summary")

	assert.Zero(t, sum.Failed, "no check fails because the target went away: %v", failedIDs(sum))
	assert.Positive(t, sum.Interrupted)
	assert.Positive(t, sum.NotRun)
	assert.Equal(t, len(checks), len(sum.Results)+sum.NotRun)
	m := regexp.MustCompile(`stopped answering during check (\S+):`).FindStringSubmatch(sum.Aborted)
	require.NotNil(t, m, "Aborted must name the check that noticed: %s", sum.Aborted)
	outcomes := map[string]report.Outcome{}
	for _, r := range sum.Results {
		outcomes[r.ID] = r.Outcome
	}
	assert.Equal(t, report.Interrupted, outcomes[m[1]], "the check that noticed is interrupted, not failed")
	assert.False(t, sum.OK())

	assert.Contains(t, text.String(), "Run stopped early: ")
	assert.Contains(t, text.String(), "INTERRUPTED ")
	assert.NotContains(t, text.String(), "webhook types never delivered", "an aborted run cannot say what the target never sends")
	var junit struct {
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Cases []struct {
				Skipped *struct {
					Reason string `xml:",chardata"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junitPath)
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(data, &junit))
	assert.Zero(t, junit.Failures)
	interrupted := 0
	for _, s := range junit.Suites {
		for _, c := range s.Cases {
			if c.Skipped != nil && strings.HasPrefix(c.Skipped.Reason, "interrupted: ") {
				interrupted++
			}
		}
	}
	assert.Equal(t, sum.Interrupted, interrupted)
	var report report.Summary
	data, err = os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &report))
	assert.Equal(t, sum.Aborted, report.Aborted)
	assert.Equal(t, sum.Interrupted, report.Interrupted)
}

func failedIDs(sum *report.Summary) []string {
	var ids []string
	for _, r := range sum.Results {
		if r.Outcome == report.Failed {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// Cancelling the run's context (Ctrl-C) interrupts the checks in flight, which are not failures; a
// failure recorded before the cancellation stands; checks not yet started do not run; reporters
// still finish; the exit status is 130. The waiting check gives its slot to the next check while it
// waits (x.holds), which then keeps it, with the two others, until the end: the last check cannot
// start.
func TestCancelledRunReportsInterruptedChecks(t *testing.T) {
	cfg := embeddedConfig(t)
	cfg.Concurrency = 3
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	started := make(chan struct{}, 4)
	running := func() { started <- struct{}{} }
	checks := []*contracttests.Check{
		{ID: "a.waits", Run: func(t *contracttests.T) {
			running()
			t.Eventually("something that never happens", func() (bool, string) { return false, "nothing yet" })
		}},
		{ID: "b.requests", Run: func(t *contracttests.T) {
			running()
			for {
				t.Do(api.OpListCountries().Method, api.OpListCountries().URL(), nil)
			}
		}},
		{ID: "c.failed-before", Run: func(t *contracttests.T) {
			t.Errorf("a genuine failure, before the interruption")
			running()
			<-t.Context().Done()
			t.Errorf("what fails after the interruption does not count")
		}},
		{ID: "x.holds", Run: func(t *contracttests.T) {
			running()
			<-t.Context().Done()
			t.Errorf("what fails after the interruption does not count")
		}},
		{ID: "y.never-starts", Run: func(t *contracttests.T) { t.Errorf("must not run") }},
	}
	go func() {
		for range 4 {
			<-started
		}
		cancel(errors.New("interrupt signal received"))
	}()
	rec := &recorder{}
	sum, err := contracttests.Run(ctx, cfg, checks, rec)
	require.ErrorIs(t, err, runner.ErrInterrupted)
	assert.Contains(t, err.Error(), "interrupt signal received")
	assert.Equal(t, runner.ExitInterrupted, runner.ExitCode(sum, err))
	require.NotNil(t, sum)
	assert.Same(t, sum, rec.finished, "reporters finish with the partial summary")

	got := map[string]report.Result{}
	for _, r := range sum.Results {
		got[r.ID] = r
	}
	assert.Equal(t, report.Interrupted, got["a.waits"].Outcome)
	assert.Equal(t, report.Interrupted, got["b.requests"].Outcome)
	assert.Contains(t, got["a.waits"].Interruption, "interrupt signal received")
	assert.Empty(t, got["b.requests"].Failures)
	require.Equal(t, report.Failed, got["c.failed-before"].Outcome)
	assert.Len(t, got["c.failed-before"].Failures, 1)
	assert.Equal(t, report.Interrupted, got["x.holds"].Outcome)
	assert.NotContains(t, got, "y.never-starts")
	assert.Equal(t, 1, sum.NotRun)
	assert.Equal(t, 3, sum.Interrupted)
	assert.Equal(t, 1, sum.Failed)
	assert.True(t, strings.HasPrefix(sum.Aborted, "run interrupted: interrupt signal received"), sum.Aborted)
}

// An unwritable report, of any kind, fails the run before the target is contacted.
func TestUnwritableReportFailsBeforeTheRun(t *testing.T) {
	var requests atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { requests.Add(1) }))
	defer ts.Close()
	cfg := contracttests.Config{BaseURL: ts.URL, Keys: contracttests.Keys{Public: "pk", Secret: "sk"}}
	missing := filepath.Join(t.TempDir(), "no-such-dir", "c.xml")
	for _, r := range []report.Reporter{report.JUnitReporter{Path: missing}, report.JSONReporter{Path: missing},
		report.HTMLReporter{Path: missing}, &report.HARRecorder{Path: missing}} {
		sum, err := contracttests.Run(context.Background(), cfg, allChecks(t), r)
		require.ErrorIs(t, err, runner.ErrSetup)
		assert.Nil(t, sum)
		assert.Contains(t, err.Error(), "mkdir -p")
		assert.Equal(t, runner.ExitSetup, runner.ExitCode(sum, err))
	}
	assert.Zero(t, requests.Load(), "the target must not be contacted")
}

// A --run filter that selects nothing is a usage error that points at --list, not a green run.
func TestRunFilterSelectingNothing(t *testing.T) {
	cfg := contracttests.Config{BaseURL: "http://127.0.0.1:1", Run: regexp.MustCompile(`^typo\.`)}
	sum, err := contracttests.Run(context.Background(), cfg, allChecks(t))
	require.ErrorIs(t, err, runner.ErrNoChecks)
	require.ErrorIs(t, err, runner.ErrSetup)
	assert.Nil(t, sum)
	assert.Contains(t, err.Error(), "--list")
	assert.Contains(t, err.Error(), `^typo\.`)
	assert.Equal(t, runner.ExitSetup, runner.ExitCode(sum, err))
}

// --skip applies after --run: a run they leave without a check is a setup error that names the filter
// that emptied it, --run when it matches nothing, else --skip; --list shows the same selection.
func TestSkipFilterLeavingNothing(t *testing.T) {
	checks := allChecks(t)
	for _, tc := range []struct {
		run, skip string
		want      []string
	}{
		{`^typo\.`, `^auth\.`, []string{`--run '^typo\.' matches none`}},
		{`^reference\.`, `^reference\.`, []string{`--skip '^reference\.' matches all`, `checks --run '^reference\.' selects`, "--list"}},
		{"", `.`, []string{`--skip '.' matches every one of the ` + strconv.Itoa(len(checks)) + ` checks' ids`, "--list --skip"}},
	} {
		cfg := contracttests.Config{BaseURL: "http://127.0.0.1:1", Skip: regexp.MustCompile(tc.skip)}
		if tc.run != "" {
			cfg.Run = regexp.MustCompile(tc.run)
		}
		sum, err := contracttests.Run(context.Background(), cfg, checks)
		require.ErrorIs(t, err, runner.ErrNoChecks, "%+v", tc)
		assert.Nil(t, sum)
		for _, w := range tc.want {
			assert.Contains(t, err.Error(), w)
		}
	}
	// What --skip leaves of --run's selection, in order.
	ids := func(cs []*contracttests.Check) (out []string) {
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	byRun := ids(contracttests.Select(checks, regexp.MustCompile(`^auth\.getPayout\.`), nil))
	require.Contains(t, byRun, "auth.getPayout.no-keys")
	left := ids(contracttests.Select(checks, regexp.MustCompile(`^auth\.getPayout\.`), regexp.MustCompile(`no-keys$`)))
	assert.Len(t, left, len(byRun)-1)
	assert.NotContains(t, left, "auth.getPayout.no-keys")
}

// When Run returns, the suite holds no connection to the target: a pooled one, or a spare Go's
// Transport dialled and never used, would make the target's graceful shutdown wait for it (the
// embedded sandbox's stop lingered 2 s after the summary).
func TestRunLeavesNoConnectionToTheTarget(t *testing.T) {
	srv, err := sandbox.New(sandbox.WithTimings(embedded.Timings.Network))
	require.NoError(t, err)
	var open atomic.Int32
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	ts.Start()
	defer ts.Close()
	cfg := contracttests.Config{BaseURL: ts.URL, Keys: contracttests.Keys{Public: sandbox.DefaultPublicKey, Secret: sandbox.DefaultSecretKey},
		Run: regexp.MustCompile(`^(reference|auth\.getPayout)\.`)}
	sum, err := contracttests.Run(context.Background(), cfg, allChecks(t))
	require.NoError(t, err)
	require.Positive(t, sum.Passed)
	// A hang guard, not a timing claim: the server sees each close as soon as it reads EOF.
	assert.Eventually(t, func() bool { return open.Load() == 0 }, 10*time.Second, time.Millisecond,
		"the suite left connections to the target open")
}
