package main

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
	all, err := contracttests.All()
	require.NoError(t, err)
	assert.Equal(t, len(all), report.Tests, "the report has every check of the suite")
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
	all, err := contracttests.All()
	require.NoError(t, err)
	assert.Equal(t, len(all), n, "--list counts every check of the suite")
	for _, c := range all {
		assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(c.ID)+`\s`, out.String(), "--list lists %s", c.ID)
	}
}

func TestConformFailsOnAViolation(t *testing.T) {
	ts := faultySandbox(t, faults.AuthNotEnforced)
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
		{"bad skip regexp", []string{"conform", "--skip", "("}, "--skip"},
		{"skip leaves nothing", []string{"conform", "--run", `^reference\.`, "--skip", "."}, `--skip '.' matches all`},
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

// Each failure prints the command that runs its check again, alone, against the same target, with no
// key in it: run as the shell parses it, with the keys in the environment, it fails that check again.
func TestConformPrintsTheCommandThatRerunsAFailedCheck(t *testing.T) {
	ts := faultySandbox(t, faults.AuthNotEnforced)
	var out, errOut syncBuffer
	code := run(context.Background(), []string{"conform", "--target", ts.URL, "--public-key", sandbox.DefaultPublicKey,
		"--secret-key", sandbox.DefaultSecretKey, "--run", `^(auth\.getPayout\.no-keys|reference\.countries)$`, "--wait", "5s", "--quiet"}, &out, &errOut)
	require.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", &out, &errOut)
	m := regexp.MustCompile(`(?m)^    rerun: (.*)$`).FindAllStringSubmatch(out.String(), -1)
	require.Len(t, m, 1, "one failed check, one command:\n%s", &out)
	rerun := m[0][1]
	seed := regexp.MustCompile(`generated requests from --seed (\d+)`).FindStringSubmatch(errOut.String())
	require.NotNil(t, seed, "the run prints its seed on stderr:\n%s", &errOut)
	assert.Equal(t, "malipo conform --target "+ts.URL+" --wait 5s --seed "+seed[1]+" --run '^auth\\.getPayout\\.no-keys$'", rerun,
		"the command carries the run's seed, so that a generated check is repeated with the same bodies")
	assert.NotContains(t, rerun, sandbox.DefaultPublicKey)
	assert.NotContains(t, rerun, sandbox.DefaultSecretKey)

	// The words a POSIX shell makes of it.
	words, err := exec.Command("sh", "-c", "set -- "+rerun+`; printf '%s\0' "$@"`).Output()
	require.NoError(t, err)
	args := strings.Split(strings.TrimSuffix(string(words), "\x00"), "\x00")
	require.Equal(t, "malipo", args[0])
	t.Setenv("MALIPO_PUBLIC_KEY", sandbox.DefaultPublicKey)
	t.Setenv("MALIPO_SECRET_KEY", sandbox.DefaultSecretKey)
	var again, againErr syncBuffer
	code = run(context.Background(), args[1:], &again, &againErr)
	assert.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", &again, &againErr)
	assert.Contains(t, again.String(), "running 1 checks")
	assert.Contains(t, again.String(), "FAIL auth.getPayout.no-keys")
}

// The rerun command keeps what decides where the target is and what one check does there, and leaves
// out the keys, the reports and the selection.
func TestConformRerunArgs(t *testing.T) {
	cmd := &cobra.Command{Use: "conform"}
	f := &conformFlags{}
	f.declare(cmd)
	require.NoError(t, cmd.ParseFlags([]string{"--target", "http://127.0.0.1:8080", "--public-key", "pk_test_x", "--secret-key", "sk_test_x",
		"--other-public-key", "pk_o", "--other-secret-key", "sk_o", "--spec", "next.yaml", "--webhook-url", "http://10.0.0.2:9000",
		"--require-extensions", "--wait", "5s", "--settle", "1s", "--json", "r.json", "--html", "r.html", "--quiet", "--run", "a", "--skip", "b",
		"--concurrency", "2"}))
	assert.Equal(t, []string{"malipo", "conform", "--target", "http://127.0.0.1:8080", "--spec", "next.yaml", "--webhook-url", "http://10.0.0.2:9000",
		"--require-extensions", "--wait", "5s", "--settle", "1s"}, rerunArgs(cmd.Flags(), settingsUsed{}))

	cmd = &cobra.Command{Use: "conform"}
	(&conformFlags{}).declare(cmd)
	require.NoError(t, cmd.ParseFlags(nil))
	assert.Equal(t, []string{"malipo", "conform"}, rerunArgs(cmd.Flags(), settingsUsed{}), "the embedded sandbox: no flag needed")
	assert.Equal(t, []string{"malipo", "conform", "--no-config"}, rerunArgs(cmd.Flags(), settingsUsed{none: true}))

	// With a settings file, the rerun names it as the run was given it and leaves it the flags it set;
	// a false given on the command line says so, since the file may say true.
	cmd = &cobra.Command{Use: "conform"}
	(&conformFlags{}).declare(cmd)
	require.NoError(t, cmd.ParseFlags([]string{"--require-extensions=false", "--settle", "1s"}))
	for name, value := range map[string]string{"target": "http://ci:token@127.0.0.1:8080", "wait": "5s"} {
		require.NoError(t, cmd.Flags().Set(name, value)) // as the file's settings are applied
	}
	used := settingsUsed{path: "ci/malipo.yaml", fromFile: map[string]bool{"target": true, "wait": true}}
	assert.Equal(t, []string{"malipo", "conform", "--config", "ci/malipo.yaml", "--require-extensions=false", "--settle", "1s"}, rerunArgs(cmd.Flags(), used))
}

// Run with a settings file, the rerun command names the file (as the run was given it) and leaves it
// the flags it set, so that it prints no value the file took from a variable; run as printed, with the
// same variables, it fails the same check again.
func TestConformRerunNamesTheSettingsFile(t *testing.T) {
	ts := faultySandbox(t, faults.AuthNotEnforced)
	t.Setenv("FAULTY_TARGET", ts.URL)
	t.Setenv("MALIPO_PUBLIC_KEY", sandbox.DefaultPublicKey)
	t.Setenv("MALIPO_SECRET_KEY", sandbox.DefaultSecretKey)
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("ci.yaml", []byte("target: ${FAULTY_TARGET}\npublic-key: ${MALIPO_PUBLIC_KEY}\nsecret-key: ${MALIPO_SECRET_KEY}\nconform:\n  wait: 5s\n"), 0o600))
	for _, named := range [][]string{{"--config", "ci.yaml"}, nil} {
		if named == nil {
			t.Setenv(configEnv, "ci.yaml")
		}
		var out, errOut syncBuffer
		code := run(context.Background(), append([]string{"conform", "--run", `^auth\.getPayout\.no-keys$`, "--settle", "1s", "--quiet"}, named...), &out, &errOut)
		require.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", &out, &errOut)
		m := regexp.MustCompile(`(?m)^    rerun: (.*)$`).FindStringSubmatch(out.String())
		require.NotNil(t, m, "a failed check, a command:\n%s", &out)
		seed := regexp.MustCompile(`generated requests from --seed (\d+)`).FindStringSubmatch(errOut.String())
		require.NotNil(t, seed)
		assert.Equal(t, "malipo conform --config ci.yaml --settle 1s --seed "+seed[1]+" --run '^auth\\.getPayout\\.no-keys$'", m[1])
		assert.NotContains(t, m[1], ts.URL, "the target is the file's, from a variable")

		t.Setenv(configEnv, "")
		words, err := exec.Command("sh", "-c", "set -- "+m[1]+`; printf '%s\0' "$@"`).Output()
		require.NoError(t, err)
		args := strings.Split(strings.TrimSuffix(string(words), "\x00"), "\x00")
		var again, againErr syncBuffer
		code = run(context.Background(), args[1:], &again, &againErr)
		assert.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", &again, &againErr)
		assert.Contains(t, again.String(), "FAIL auth.getPayout.no-keys")
	}
}

// --skip leaves out of --run's selection the checks it matches, in --list as in a run.
func TestConformSkip(t *testing.T) {
	var out, errOut syncBuffer
	require.Equal(t, exitOK, run(context.Background(), []string{"conform", "--list", "--run", `^reference\.`}, &out, &errOut))
	all := out.String()
	require.Contains(t, all, "reference.countries")
	var listed syncBuffer
	require.Equal(t, exitOK, run(context.Background(), []string{"conform", "--list", "--run", `^reference\.`, "--skip", `countries$`}, &listed, &errOut))
	assert.NotContains(t, listed.String(), "reference.countries")
	count := func(list string) int {
		m := regexp.MustCompile(`\n(\d+) checks\n$`).FindStringSubmatch(list)
		require.NotNil(t, m, list)
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		return n
	}
	assert.Equal(t, count(all)-1, count(listed.String()))

	var ran syncBuffer
	code := run(context.Background(), []string{"conform", "--run", `^reference\.`, "--skip", `countries$`, "--quiet"}, &ran, &errOut)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", &ran, &errOut)
	assert.Contains(t, ran.String(), fmt.Sprintf("running %d checks", count(all)-1))
}
