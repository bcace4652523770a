package main

import (
	"context"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
)

// runCLI runs the CLI as main does and returns its exit code and what it wrote on each stream.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut syncBuffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// faultySandbox serves a sandbox with fault (package internal/faults) until the test ends: a run of
// the suite against it fails the checks of the rule the fault breaks.
func faultySandbox(t *testing.T, fault faults.Fault) *httptest.Server {
	t.Helper()
	opts, err := faults.Options(fault)
	require.NoError(t, err)
	srv, err := sandbox.New(opts...)
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}

// Help is asked for, so it goes to stdout with exit code 0, by every spelling gh and kubectl accept,
// and `malipo help CMD` shows CMD's help, not the root's.
func TestHelpGoesToStdout(t *testing.T) {
	cases := []struct {
		args []string
		// want is the usage line of the command whose help must be shown, and a flag only it has.
		want, flag string
	}{
		{[]string{"help", "conform"}, "Usage: malipo conform [--target URL", "--webhook-stall duration"},
		{[]string{"conform", "--help"}, "Usage: malipo conform [--target URL", "--webhook-stall duration"},
		{[]string{"conform", "-h"}, "Usage: malipo conform [--target URL", "--webhook-stall duration"},
		{[]string{"help", "sandbox"}, "Usage: malipo sandbox [flags]", "--payout-delay duration"},
		{[]string{"sandbox", "--help"}, "Usage: malipo sandbox [flags]", "--payout-delay duration"},
		{[]string{"help", "spec"}, "Usage: malipo spec [--check] [flags]", "--check"},
		{[]string{"help", "version"}, "Usage: malipo version [flags]", "--help"},
		{[]string{"help", "completion"}, "Usage: malipo completion <command> [flags]", "bash"},
		{[]string{"help"}, "Usage: malipo <command> [flags]", "--version"},
		{[]string{"--help"}, "Usage: malipo <command> [flags]", "--version"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, c.args...)
			assert.Equal(t, exitOK, code)
			assert.Empty(t, stderr)
			assert.Contains(t, stdout, c.want)
			assert.Contains(t, stdout, c.flag)
		})
	}
	// Each command's help is its own: sandbox's does not show conform's flags, nor the reverse.
	_, sandboxHelp, _ := runCLI(t, "help", "sandbox")
	assert.NotContains(t, sandboxHelp, "--target")
	_, conformHelp, _ := runCLI(t, "help", "conform")
	assert.NotContains(t, conformHelp, "--payout-delay")
	// The root's help lists every command with its summary.
	_, rootHelp, _ := runCLI(t, "help")
	for _, name := range []string{"conform", "sandbox", "spec", "version", "completion", "help"} {
		assert.Regexp(t, `(?m)^  `+name+`\s+\S`, rootHelp)
	}
}

// Help writes flags as users type them and as the README does: --addr, never -addr.
func TestHelpWritesTwoDashFlags(t *testing.T) {
	for _, cmd := range []string{"conform", "sandbox", "spec"} {
		_, stdout, _ := runCLI(t, cmd, "--help")
		flags := regexp.MustCompile(`(?m)^\s+(?:-\w, )?(-+)([a-z][a-z-]+)`).FindAllStringSubmatch(stdout, -1)
		require.NotEmpty(t, flags, "%s --help lists its flags:\n%s", cmd, stdout)
		for _, f := range flags {
			assert.Equal(t, "--", f[1], "%s --help writes --%s", cmd, f[2])
		}
	}
}

// Scripts written from the old help (Go's flag package, which printed -addr) keep working: a single
// dash before a long flag's name is read as two, and a flag's value is never rewritten.
func TestSingleDashLongFlagsStillWork(t *testing.T) {
	code, stdout, stderr := runCLI(t, "spec", "-check")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "OK: ")

	code, stdout, stderr = runCLI(t, "conform", "-list", "-run=^auth\\.getPayout\\.")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `^auth\.getPayout\.`, stdout)
	assert.NotContains(t, stdout, "auth.processPayout.")

	c := &cli{}
	root := c.newRoot()
	got, err := normalizeArgs(root, []string{"-version"})
	require.NoError(t, err)
	assert.Equal(t, []string{"--version"}, got)
	got, err = normalizeArgs(root, []string{"conform", "-run", "-list", "-list", "-h", "--", "-wait"})
	require.NoError(t, err)
	assert.Equal(t, []string{"conform", "--run", "-list", "--list", "-h", "--", "-wait"}, got,
		"-run's value -list stays as typed; -h is a shorthand; nothing after -- is touched")
	got, err = normalizeArgs(root, []string{"sandbox", "-addr=127.0.0.1:0", "-fault", "-x", "-nope"})
	require.NoError(t, err)
	assert.Equal(t, []string{"sandbox", "--addr=127.0.0.1:0", "--fault", "-x", "-nope"}, got,
		"unknown names are left for the flag parser to report")
}

// `--version`, `-v` and `malipo version` print the same: the binary's version on the first line, the
// Go release and platform, and the embedded contract's title and info.version.
func TestVersion(t *testing.T) {
	var info struct{ Title, Version string }
	openapitest.Decode(t, openapitest.Embedded(t).At(t, "/info"), &info)

	code, want, stderr := runCLI(t, "version")
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	require.Len(t, lines, 3, want)
	assert.Equal(t, "malipo "+cliVersion(), lines[0])
	assert.Contains(t, lines[1], runtime.Version())
	assert.Contains(t, lines[1], runtime.GOOS+"/"+runtime.GOARCH)
	assert.Equal(t, "contract: "+info.Title+" "+info.Version, lines[2])

	for _, args := range [][]string{{"--version"}, {"-v"}, {"-version"}} {
		code, got, stderr := runCLI(t, args...)
		assert.Equal(t, exitOK, code, stderr)
		assert.Equal(t, want, got, "%v prints what malipo version prints", args)
	}
}

// goreleaser sets the version with -ldflags "-X main.version=..."; it wins over the build info.
func TestVersionFromLinkerFlag(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = "v9.8.7-ldflags"
	_, stdout, _ := runCLI(t, "--version")
	assert.True(t, strings.HasPrefix(stdout, "malipo v9.8.7-ldflags\n"), stdout)
}

// A wrong command line is one line naming the command and what to type instead, then a hint to its
// help, and exit code 2: never the whole usage.
func TestUsageErrorsAreOneLineAndAHint(t *testing.T) {
	t.Setenv("MALIPO_PUBLIC_KEY", "")
	t.Setenv("MALIPO_SECRET_KEY", "")
	t.Setenv("MALIPO_OTHER_PUBLIC_KEY", "")
	t.Setenv("MALIPO_OTHER_SECRET_KEY", "")
	conformHint := "Run 'malipo conform --help' for usage."
	sandboxHint := "Run 'malipo sandbox --help' for usage."
	rootHint := "Run 'malipo --help' for usage."
	cases := []struct {
		args       []string
		line, hint string
	}{
		{[]string{"conform", "--nope"}, "malipo conform: unknown flag --nope", conformHint},
		{[]string{"conform", "--taget", "http://127.0.0.1:1"}, "malipo conform: unknown flag --taget; did you mean --target?", conformHint},
		{[]string{"sandbox", "--payout-delay", "5"}, "malipo sandbox: --payout-delay 5: a duration needs a unit, e.g. 5s or 500ms", sandboxHint},
		{[]string{"conform", "--wait=30"}, "malipo conform: --wait 30: a duration needs a unit, e.g. 30s or 500ms", conformHint},
		{[]string{"conform", "--settle", "-1s"}, "malipo conform: --settle -1s: a time to wait cannot be negative; give 0 to follow the target", conformHint},
		{[]string{"conform", "--webhook-stall", "soon"}, "malipo conform: --webhook-stall soon: not a duration; write it like 500ms, 5s or 2m", conformHint},
		{[]string{"sandbox", "--webhook-retry-schedule", "1s,5"}, `malipo sandbox: --webhook-retry-schedule 1s,5: "5" needs a unit, e.g. 5s or 500ms`, sandboxHint},
		{[]string{"conform", "--target", "127.0.0.1:8080"}, "malipo conform: --target 127.0.0.1:8080: no scheme; did you mean http://127.0.0.1:8080?", conformHint},
		{[]string{"conform", "--target", "localhost"}, "malipo conform: --target localhost: no scheme; did you mean http://localhost?", conformHint},
		{[]string{"conform", "--target", "staging.example.org/api"}, "malipo conform: --target staging.example.org/api: no scheme; did you mean https://staging.example.org/api?", conformHint},
		{[]string{"conform", "--target", "ftp://example.org"}, `malipo conform: --target ftp://example.org: scheme "ftp"; the target is spoken to over HTTP: use http:// or https://`, conformHint},
		{[]string{"conform", "--webhook-url", "host.docker.internal:9900"}, "malipo conform: --webhook-url host.docker.internal:9900: no scheme; did you mean http://host.docker.internal:9900?", conformHint},
		{[]string{"conform", "--webhook-listen", "9900"}, "malipo conform: --webhook-listen 9900: a listen address is host:port; did you mean 127.0.0.1:9900 (or :9900 for every interface)?", conformHint},
		{[]string{"sandbox", "--addr", "http://127.0.0.1:8080/"}, "malipo sandbox: --addr http://127.0.0.1:8080/: a listen address is host:port, not a URL; did you mean 127.0.0.1:8080?", sandboxHint},
		{[]string{"conform", "--concurrency", "many"}, "malipo conform: --concurrency many: not a whole number", conformHint},
		{[]string{"conform", "--list=maybe"}, "malipo conform: --list maybe: not true or false", conformHint},
		{[]string{"conform", "--target"}, "malipo conform: --target needs a value: --target URL", conformHint},
		{[]string{"conform", "--run", "("}, "malipo conform: --run (: not a regular expression: missing closing )", conformHint},
		{[]string{"conform", "extra"}, `malipo conform: unexpected argument "extra"`, conformHint},
		{[]string{"conform", "--target", "http://127.0.0.1:1"}, "malipo conform: --target needs --public-key and --secret-key (or MALIPO_PUBLIC_KEY and MALIPO_SECRET_KEY)", conformHint},
		{[]string{"sandbox", "--log-format", "xml"}, "malipo sandbox: --log-format xml: use text or json", sandboxHint},
		{[]string{"sandbox", "--fault", "gremlins"}, `malipo sandbox: --fault gremlins: unknown fault "gremlins" (use --fault list)`, sandboxHint},
		{[]string{"confrom"}, `malipo: unknown command "confrom"; did you mean "conform"?`, rootHint},
		{[]string{"sandbx", "--addr", "x"}, `malipo: unknown command "sandbx"; did you mean "sandbox"?`, rootHint},
		{[]string{"deploy"}, `malipo: unknown command "deploy"`, rootHint},
		{[]string{"help", "confrom"}, `malipo: unknown command "confrom"; did you mean "conform"?`, rootHint},
		{[]string{"--nope"}, "malipo: unknown flag --nope", rootHint},
		{[]string{"version", "now"}, `malipo version: unexpected argument "now"`, "Run 'malipo version --help' for usage."},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, c.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			assert.Equal(t, c.line+"\n"+c.hint+"\n", stderr)
		})
	}
}

// A secret in the environment is never shown by --help: the keys' flags have no defaults to print.
func TestHelpNeverShowsKeysFromTheEnvironment(t *testing.T) {
	t.Setenv("MALIPO_PUBLIC_KEY", "pk_test_from_env_help")
	t.Setenv("MALIPO_SECRET_KEY", "sk_test_from_env_help")
	for _, cmd := range []string{"conform", "sandbox"} {
		_, stdout, stderr := runCLI(t, cmd, "--help")
		assert.Contains(t, stdout, "$MALIPO_SECRET_KEY", "the help names the variable")
		assert.NotContains(t, stdout+stderr, "_from_env_help", "%s --help shows no key from the environment", cmd)
	}
}

// conform takes the keys from MALIPO_PUBLIC_KEY and MALIPO_SECRET_KEY (and the second merchant's from
// MALIPO_OTHER_*) when no flag gives them; a flag wins over the environment.
func TestConformKeysFromTheEnvironment(t *testing.T) {
	t.Setenv("MALIPO_PUBLIC_KEY", "pk_test_env")
	t.Setenv("MALIPO_SECRET_KEY", "sk_test_env")
	t.Setenv("MALIPO_OTHER_PUBLIC_KEY", "")
	t.Setenv("MALIPO_OTHER_SECRET_KEY", "")
	code, _, stderr := runCLI(t, "conform", "--target", "http://127.0.0.1:1")
	assert.Equal(t, exitUsage, code)
	assert.NotContains(t, stderr, "--target needs --public-key", "the keys came from the environment")
	assert.Contains(t, stderr, "target unreachable", "so the run went as far as the target")
	assert.NotContains(t, stderr, "sk_test_env")

	code, _, stderr = runCLI(t, "conform", "--target", "http://127.0.0.1:1", "--secret-key", "")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--target needs --public-key and --secret-key", "an explicit empty flag wins over the environment")

	t.Setenv("MALIPO_OTHER_PUBLIC_KEY", "pk_test_other_env")
	code, _, stderr = runCLI(t, "conform", "--target", "http://127.0.0.1:1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "give both --other-public-key and --other-secret-key", "the second merchant's public key came from the environment")
	t.Setenv("MALIPO_OTHER_SECRET_KEY", "sk_test_other_env")
	code, _, stderr = runCLI(t, "conform", "--target", "http://127.0.0.1:1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "target unreachable", "both of the second merchant's keys came from the environment")
}

// Ctrl-C during a run ends it with exit code 130, as a shell reports for a process SIGINT ended.
func TestConformInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"conform", "--run", `^(state|webhooks)\.`}, &out, &errOut) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "checking an embedded sandbox") },
		30*time.Second, 10*time.Millisecond, "stderr: %s", &errOut)
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitInterrupted, code, "stdout:\n%s\nstderr:\n%s", &out, &errOut)
	case <-time.After(30 * time.Second):
		t.Fatal("conform did not stop after its context ended")
	}
}

// `malipo completion SHELL` prints a completion script for each shell cobra supports, and the
// completions it asks the binary for are the commands, the flags and the values they take.
func TestCompletion(t *testing.T) {
	// Each script registers itself for the malipo command, in its shell's own way.
	for shell, registers := range map[string]string{
		"bash":       "complete -o default -F __start_malipo malipo",
		"zsh":        "#compdef malipo",
		"fish":       "complete -c malipo ",
		"powershell": "Register-ArgumentCompleter -CommandName 'malipo'",
	} {
		code, stdout, stderr := runCLI(t, "completion", shell)
		assert.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stdout, registers, shell)
		assert.Contains(t, stdout, "__complete", "%s: the script asks malipo for completions", shell)
	}
	complete := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"__complete"}, args...)...)
		require.Equal(t, exitOK, code, stderr)
		return stdout
	}
	assert.Regexp(t, `(?m)^conform\t`, complete("con"))
	assert.Regexp(t, `(?m)^--webhook-stall\t`, complete("conform", "--webhook-s"))
	assert.Regexp(t, `(?m)^`+string(faults.BadSignature)+`\t`, complete("sandbox", "--fault", ""))
	assert.Regexp(t, `(?m)^json$`, complete("sandbox", "--log-format", ""))
	assert.Regexp(t, `(?m)^auth\.getPayout\.no-keys\t`, complete("conform", "--run", "auth.getPayout."))
	assert.Regexp(t, `(?m)^auth\.getPayout\.no-keys\t`, complete("conform", "--skip", "auth.getPayout."))
	assert.Regexp(t, `(?m)^sandbox\t`, complete("help", ""))
}
