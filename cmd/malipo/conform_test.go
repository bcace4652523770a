package main

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
)

// `malipo conform --target` against `malipo sandbox` started as its own command, with a JUnit report.
func TestConformAgainstSeparatelyStartedSandbox(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sbOut, sbErr syncBuffer
	sandboxDone := make(chan int, 1)
	go func() {
		sandboxDone <- run(ctx, []string{"sandbox", "--addr", "127.0.0.1:0", "--public-key", "pk_test_conform", "--secret-key", "sk_test_conform",
			"--prompt-delay", "10ms", "--payout-delay", "10ms", "--webhook-retry-schedule", "10ms,20ms,40ms,80ms,160ms",
			"--webhook-timeout", "300ms"}, &sbOut, &sbErr)
	}()
	listening := regexp.MustCompile(`listening on\s+(http://\S+)`)
	var base string
	require.Eventually(t, func() bool {
		if m := listening.FindStringSubmatch(sbOut.String()); m != nil {
			base = m[1]
		}
		return base != ""
	}, 10*time.Second, 10*time.Millisecond, "sandbox stderr: %s", &sbErr)

	junit := filepath.Join(t.TempDir(), "conform.xml")
	var out, errOut syncBuffer
	code := run(ctx, []string{"conform", "--target", base, "--public-key", "pk_test_conform", "--secret-key", "sk_test_conform",
		"--junit", junit, "--wait", "10s", "--webhook-stall", "1s"}, &out, &errOut)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", &out, &errOut)
	assert.Regexp(t, `\n\d+ passed, 0 failed, \d+ skipped in`, out.String())
	assert.Contains(t, out.String(), "Coverage:")

	// The JUnit schema has no skipped count on <testsuites>: skips are counted per <testsuite>.
	var report struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Skipped int `xml:"skipped,attr"`
		} `xml:"testsuite"`
		Skipped int
	}
	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(data, &report))
	for _, s := range report.Suites {
		report.Skipped += s.Skipped
	}
	assert.GreaterOrEqual(t, report.Tests-report.Skipped, 60)
	assert.Zero(t, report.Failures)
	// Only the isolation checks need a second merchant, which --target runs were not given.
	assert.Equal(t, 4, report.Skipped)

	cancel()
	select {
	case c := <-sandboxDone:
		assert.Equal(t, exitOK, c)
	case <-time.After(10 * time.Second):
		t.Fatal("the sandbox did not stop after its context ended")
	}
}

func TestConformEmbeddedSubset(t *testing.T) {
	var out, errOut syncBuffer
	const selection = `^(reference\.|state\.payout\.bank\.)`
	code := run(context.Background(), []string{"conform", "--run", selection}, &out, &errOut)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", &out, &errOut)
	assert.Contains(t, out.String(), "checking an embedded sandbox")
	assert.Regexp(t, `PASS state\.payout\.bank\.account_not_found\.`, out.String())
	// The number of state checks follows the document's test values, so it is counted, not written down.
	checks, err := contracttests.All()
	require.NoError(t, err)
	want := 0
	for _, c := range checks {
		if regexp.MustCompile(selection).MatchString(c.ID) {
			want++
		}
	}
	require.Greater(t, want, 3, "the selection has the reference checks and at least one bank state check")
	assert.Regexp(t, fmt.Sprintf(`\n%d passed, 0 failed, 0 skipped in`, want), out.String())
}

func TestConformList(t *testing.T) {
	var out, errOut syncBuffer
	require.Equal(t, exitOK, run(context.Background(), []string{"conform", "--list"}, &out, &errOut))
	assert.Regexp(t, `idempotency\.processPayout\.replay\s+idempotency\s+processPayout: the same Idempotency-Key`, out.String())
	m := regexp.MustCompile(`\n(\d+) checks\n$`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n, 60)
}

func TestConformFailsOnAViolation(t *testing.T) {
	faulty, err := faults.Options(faults.AuthNotEnforced)
	require.NoError(t, err)
	srv, err := sandbox.New(faulty...)
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var out, errOut syncBuffer
	code := run(context.Background(), []string{"conform", "--target", ts.URL, "--public-key", sandbox.DefaultPublicKey,
		"--secret-key", sandbox.DefaultSecretKey, "--run", `^auth\.getPayout\.no-keys$`}, &out, &errOut)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, out.String(), "FAIL auth.getPayout.no-keys")
	assert.Contains(t, out.String(), "want HTTP 401, got 404")
}

func TestConformUsageErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"conform", "--nope"}, "unknown flag --nope"},
		{"target without keys", []string{"conform", "--target", "http://127.0.0.1:1"}, "--target needs --public-key and --secret-key"},
		{"bad regexp", []string{"conform", "--run", "("}, "--run"},
		{"half a second merchant", []string{"conform", "--other-public-key", "pk"}, "give both --other-public-key and --other-secret-key"},
		{"unreachable target", []string{"conform", "--target", "http://127.0.0.1:1", "--public-key", "pk", "--secret-key", "sk"}, "target unreachable"},
		{"stray argument", []string{"conform", "extra"}, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("MALIPO_PUBLIC_KEY", "")
			t.Setenv("MALIPO_SECRET_KEY", "")
			t.Setenv("MALIPO_OTHER_PUBLIC_KEY", "")
			t.Setenv("MALIPO_OTHER_SECRET_KEY", "")
			var out, errOut syncBuffer
			assert.Equal(t, exitUsage, run(context.Background(), c.args, &out, &errOut))
			assert.Contains(t, errOut.String(), c.want)
		})
	}
}

// --settle reaches the run's configuration, against a target and against the embedded sandbox; without it
// the settle windows follow the target (zero).
func TestConformSettleFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"--target", "http://127.0.0.1:1", "--settle", "750ms"}, 750 * time.Millisecond},
		{[]string{"--settle=2s"}, 2 * time.Second},
		{[]string{"--target", "http://127.0.0.1:1"}, 0},
	} {
		cmd := &cobra.Command{Use: "conform"}
		f := &conformFlags{}
		f.declare(cmd)
		require.NoError(t, cmd.ParseFlags(tc.args))
		cfg, stop, err := conformTarget(f, io.Discard, io.Discard)
		require.NoError(t, err)
		stop()
		assert.Equal(t, tc.want, cfg.SettleTime, "%v", tc.args)
	}
}
