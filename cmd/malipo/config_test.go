package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/cmd/malipo/internal/cliconfig"
	"github.com/malipo/terraform-provider-malipo/internal/receiverfaults"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// schemaFile is the committed JSON Schema of the settings file, at the root of the repository.
const schemaFile = "malipo.schema.json"

// writeConfig writes a settings file into a directory of the test and returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "malipo.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// lineOf is the line of the settings file text that holds s, counted from 1.
func lineOf(t *testing.T, text, s string) int {
	t.Helper()
	at := strings.Index(text, s)
	require.GreaterOrEqual(t, at, 0, "%q is not in the file", s)
	return strings.Count(text[:at], "\n") + 1
}

// The settings file drives `malipo conform`: the target, the keys (from the environment, as ${NAME}),
// the selection and the reports come from it; with --list, the file's --run selects what is listed,
// and a --run on the command line wins over it.
func TestConfigDrivesConform(t *testing.T) {
	srv, err := sandbox.New()
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Setenv("CONF_PK", sandbox.DefaultPublicKey)
	t.Setenv("CONF_SK", sandbox.DefaultSecretKey)
	junit := filepath.Join(t.TempDir(), "conform.xml")
	path := writeConfig(t, "target: "+ts.URL+"\npublic-key: ${CONF_PK}\nsecret-key: ${CONF_SK}\nconform:\n  run: ^auth\\.getPayout\\.no-keys$\n  junit: "+junit+"\n")
	code, stdout, stderr := runCLI(t, "conform", "--config", path)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "PASS auth.getPayout.no-keys")
	assert.NotContains(t, stdout, "embedded sandbox", "the target is the file's")
	assert.Regexp(t, `\n1 passed, 0 failed, 0 skipped in`, stdout)
	assert.FileExists(t, junit)

	path = writeConfig(t, "conform:\n  list: true\n  run: ^auth\\.\n")
	for _, c := range []struct{ file, flags []string }{
		{[]string{"--config", path}, []string{"--run", `^auth\.`}},
		{[]string{"--config", path, "--run", `^state\.`}, []string{"--run", `^state\.`}},
	} {
		code, fromFile, stderr := runCLI(t, append([]string{"conform"}, c.file...)...)
		require.Equal(t, exitOK, code, stderr)
		code, fromFlags, stderr := runCLI(t, append([]string{"conform", "--list"}, c.flags...)...)
		require.Equal(t, exitOK, code, stderr)
		assert.Equal(t, fromFlags, fromFile, "conform %v lists what conform --list %v does", c.file, c.flags)
		assert.Regexp(t, `\n[1-9]\d* checks\n$`, fromFile)
	}
}

// The settings file drives `malipo webhooks test`, from its section under webhooks: test:, with the
// secret from the environment.
func TestConfigDrivesWebhooksTest(t *testing.T) {
	secret := newWebhookSecret(t)
	receiver := httptest.NewServer(receiverfaults.Correct(secret))
	t.Cleanup(receiver.Close)
	t.Setenv("HOOK_SECRET", secret.Reveal())
	junit := filepath.Join(t.TempDir(), "receiver.xml")
	path := writeConfig(t, "webhooks:\n  test:\n    url: "+receiver.URL+"/hooks\n    secret: ${HOOK_SECRET}\n    run: ^receiver\\.rejects\\.forged-signature/\n    event-types: [payout.failed]\n    junit: "+junit+"\n")
	code, stdout, stderr := runCLI(t, "webhooks", "test", "--config", path)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "PASS receiver.rejects.forged-signature/payout.failed")
	assert.NotContains(t, stdout, "payout.success", "the file's --event-types")
	assert.Regexp(t, `\n1 passed, 0 failed, 0 skipped in`, stdout)
	assert.FileExists(t, junit)
	for _, out := range []string{stdout, stderr} {
		assert.NotContains(t, out, secret.Reveal())
	}
}

// unsetEnv unsets the variable name for the test (t.Setenv restores it afterwards).
func unsetEnv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "")
	require.NoError(t, os.Unsetenv(name))
}

// Of --secret and --secret-key, which exclude each other, webhooks test uses the value given nearest
// (the command line, its section, the top level, the environment) and says which it drops: the
// top-level secret-key of examples/ci/malipo.yaml, for conform, gives way to an endpoint secret on the
// command line or in the command's section, and a section that unsets it (secret-key: ~) leaves the
// secret to $MALIPO_WEBHOOK_SECRET. Two at the same level are a mistake of the file.
func TestConfigWebhookSecretsNearestWins(t *testing.T) {
	secret := newWebhookSecret(t)
	receiver := httptest.NewServer(receiverfaults.Correct(secret))
	t.Cleanup(receiver.Close)
	t.Setenv("MALIPO_SECRET_KEY", sandbox.DefaultSecretKey)
	t.Setenv("HOOK_SECRET", secret.Reveal())
	top := string(readRepoFile(t, ciConfigExample))
	topLine := lineOf(t, top, "secret-key:")
	withSection := top + "webhooks:\n  test:\n    secret: ${HOOK_SECRET}\n"
	one := []string{"--url", receiver.URL + "/hooks", "--event-types", "payout.failed", "--run", `^receiver\.accepts\.payout\.failed$`}
	cases := []struct {
		name, file, env string
		args            []string
		code            int
		notice          string // what stderr says is not used; PATH is the file's path
	}{
		{"the command line over the top level", top, "", []string{"--secret", secret.Reveal()}, exitOK,
			"--secret-key: not using PATH:" + strconv.Itoa(topLine) + " secret-key: --secret, which excludes it, is given on the command line"},
		{"the section over the top level", withSection, "", nil, exitOK,
			"--secret-key: not using PATH:" + strconv.Itoa(topLine) + " secret-key: --secret, which excludes it, is given by PATH:" + strconv.Itoa(lineOf(t, withSection, "    secret:")) + " webhooks.test.secret"},
		{"the environment, secret-key unset by the section", top + "webhooks:\n  test:\n    secret-key: ~\n", secret.Reveal(), nil, exitOK, ""},
		// The documented precedence: the file's top level over the environment, said on stderr.
		{"the top level over the environment", top, secret.Reveal(), nil, exitFail,
			"--secret: not using $MALIPO_WEBHOOK_SECRET: --secret-key, which excludes it, is given by PATH:" + strconv.Itoa(topLine) + " secret-key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(webhookSecretEnv, c.env)
			path := writeConfig(t, c.file)
			code, stdout, stderr := runCLI(t, append(append([]string{"webhooks", "test", "--config", path}, one...), c.args...)...)
			require.Equal(t, c.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			if c.code == exitOK {
				assert.Contains(t, stdout, "PASS receiver.accepts.payout.failed", "verified with the endpoint's secret")
			}
			if c.notice != "" {
				assert.Contains(t, stderr, "malipo webhooks test: "+strings.ReplaceAll(c.notice, "PATH", path)+"\n")
			} else {
				assert.NotContains(t, stderr, "not using")
			}
			for _, out := range []string{stdout, stderr} {
				assert.NotContains(t, out, secret.Reveal())
				assert.NotContains(t, out, sandbox.DefaultSecretKey)
			}
		})
	}

	both := top + "secret: ${HOOK_SECRET}\n"
	path := writeConfig(t, both)
	code, _, stderr := runCLI(t, append([]string{"webhooks", "test", "--config", path}, one...)...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, path+":"+strconv.Itoa(lineOf(t, both, "\nsecret:")+1)+": secret: excludes --secret-key, which line "+strconv.Itoa(topLine)+
		" gives at the same level for malipo webhooks test: keep one, or unset one in the section webhooks.test (secret-key: null)")
}

// A top-level secret whose variable is not set is left out for the command, which runs as without it:
// in a directory with examples/ci/malipo.yaml and no keys in the environment, the sandbox serves its
// well-known keys, as without the file; --config-check says what was left out.
func TestConfigTopLevelSecretsWithoutTheirVariables(t *testing.T) {
	example := readRepoFile(t, ciConfigExample)
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, configFile), example, 0o600))
	unsetEnv(t, "MALIPO_PUBLIC_KEY")
	unsetEnv(t, "MALIPO_SECRET_KEY")
	_, stdout, stderr, stop := startSandboxCommand(t)
	banner := stdout.String()
	assert.Equal(t, exitOK, stop(), "stderr: %s", stderr)
	assert.Regexp(t, `public-key\s+`+regexp.QuoteMeta(sandbox.DefaultPublicKey)+`\n`, banner)

	code, out, errOut := runCLI(t, "sandbox", "--config-check")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `(?m)^--public-key\s+""\s+default; ignored malipo.yaml:\d+ public-key: MALIPO_PUBLIC_KEY is not set$`, out)
}

// --config-check shows a value that names variables as the file writes it, ${NAME} and all, not what it
// becomes, since a URL may carry a password; an error about such a value does not show it either.
func TestConfigCheckShowsVariablesAsWritten(t *testing.T) {
	const token = "s3cr3t-token"
	t.Setenv("TOK", token)
	path := writeConfig(t, "target: http://ci:${TOK}@127.0.0.1:18437\n")
	code, stdout, stderr := runCLI(t, "conform", "--config", path, "--config-check")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `(?m)^--target\s+http://ci:\$\{TOK\}@127\.0\.0\.1:18437\s+`+regexp.QuoteMeta(path)+`:1 target$`, stdout)
	assert.NotContains(t, stdout+stderr, token)

	path = writeConfig(t, "webhook-listen: ${TOK}\n")
	code, stdout, stderr = runCLI(t, "conform", "--config", path, "--config-check")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, path+":1: webhook-listen: ${TOK}: ")
	assert.NotContains(t, stdout+stderr, token)
}

// The settings file drives `malipo sandbox`: its section's delay and the top level's keys, and a flag
// on the command line wins over the file.
func TestConfigDrivesTheSandbox(t *testing.T) {
	t.Setenv("SANDBOX_PK", "pk_test_from_the_file")
	t.Setenv("SANDBOX_SK", "sk_test_from_the_file_0123456789")
	path := writeConfig(t, "public-key: ${SANDBOX_PK}\nsecret-key: ${SANDBOX_SK}\nsandbox:\n  payout-delay: 1500ms\n  dashboard: false\n")
	_, stdout, _, stop := startSandboxCommand(t, "--config", path)
	banner := stdout.String()
	assert.Equal(t, exitOK, stop())
	assert.Regexp(t, `payouts settle after\s+1.5s\n`, banner)
	assert.Regexp(t, `public-key\s+pk_test_from_the_file\n`, banner)
	assert.NotContains(t, banner, "dashboard")
	assert.NotContains(t, banner, "sk_test_from_the_file_0123456789")

	_, stdout, _, stop = startSandboxCommand(t, "--config", path, "--payout-delay", "2s")
	banner = stdout.String()
	assert.Equal(t, exitOK, stop())
	assert.Regexp(t, `payouts settle after\s+2s\n`, banner, "the command line over the file")
}

// The settings file drives `malipo listen`: where to forward, how often to poll, which types, and the
// secret to sign with, from the environment.
func TestConfigDrivesListen(t *testing.T) {
	srv := eventsTarget(t)
	vr := newVerifyingReceiver(t)
	secret := newWebhookSecret(t)
	t.Setenv("LISTEN_SECRET", secret.Reveal())
	vr.verifyWith(t, secret.Reveal())
	path := writeConfig(t, "listen:\n  forward-to: "+vr.url+"\n  interval: 20ms\n  events: [payout.failed]\n  secret: ${LISTEN_SECRET}\n")
	b := runInBackground(t, "listen", "--config", path)
	require.Eventually(t, func() bool { return strings.Contains(b.errOut.String(), "Ctrl-C stops") }, 10*time.Second, 5*time.Millisecond, "stderr: %s", &b.errOut)
	assert.Contains(t, b.errOut.String(), "signing with the secret you gave (not printed)")

	skipped := triggered(t, api.EventTypePayoutSuccess)
	require.Eventually(t, srv.Idle, 5*time.Second, 5*time.Millisecond)
	kept := triggered(t, api.EventTypePayoutFailed)
	require.Eventually(t, func() bool { _, ok := vr.received(kept); return ok }, 10*time.Second, 10*time.Millisecond, "stdout: %s", &b.out)
	_, ok := vr.received(skipped)
	assert.False(t, ok, "the file's --events leaves payout.success out")
	assert.Zero(t, vr.refused.Load(), "every delivery verified with the file's secret")
	assert.Equal(t, exitOK, b.stop(t))
	assert.NotContains(t, b.out.String()+b.errOut.String(), secret.Reveal())
}

// --config-check prints every flag of the command with its value and where it came from, secrets
// redacted wherever they came from, and runs nothing.
func TestConfigCheck(t *testing.T) {
	secrets := map[string]string{
		"MALIPO_PUBLIC_KEY":       "pk_test_env_SECRET1",
		"MALIPO_SECRET_KEY":       "sk_test_env_SECRET2",
		"MALIPO_OTHER_PUBLIC_KEY": "pk_test_env_SECRET3",
		"MALIPO_WEBHOOK_SECRET":   "whsec_ZW52U0VDUkVUNA==",
		"MERCHANT_B":              "pk_test_b:sk_test_env_SECRET5",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	const onCommandLine = "sk_test_cli_SECRET6"
	text := `public-key: ${MALIPO_PUBLIC_KEY}
target: http://127.0.0.1:9
conform:
  wait: 1m
  run: ^auth\.
webhooks:
  test:
    url: http://127.0.0.1:9/hooks
    secret: ${MALIPO_WEBHOOK_SECRET}
    event-types: [payout.failed, payout.success]
listen:
  forward-to: http://127.0.0.1:9/hooks
  interval: 2s
sandbox:
  addr: 127.0.0.1:0
  merchant:
    - ${MERCHANT_B}
`
	path := writeConfig(t, text)
	at := func(key, line string) string {
		return regexp.QuoteMeta(path) + ":" + strconv.Itoa(lineOf(t, text, line)) + " " + regexp.QuoteMeta(key)
	}
	cases := []struct {
		args []string
		want []string // regular expressions, each a line of the output
	}{
		{[]string{"conform", "--wait", "5s", "--other-secret-key", onCommandLine}, []string{
			`--wait\s+5s\s+command line`,
			`--run\s+\^auth\\.\s+` + at("conform.run", "run:"),
			`--target\s+http://127.0.0.1:9\s+` + at("target", "target:"),
			`--public-key\s+<redacted>\s+` + at("public-key", "public-key:") + `: \$\{MALIPO_PUBLIC_KEY\}`,
			`--secret-key\s+<redacted>\s+environment MALIPO_SECRET_KEY`,
			`--other-public-key\s+<redacted>\s+environment MALIPO_OTHER_PUBLIC_KEY`,
			`--other-secret-key\s+<redacted>\s+command line`,
			`--concurrency\s+8\s+default`,
		}},
		{[]string{"webhooks", "test"}, []string{
			`--url\s+http://127.0.0.1:9/hooks\s+` + at("webhooks.test.url", "url:"),
			`--secret\s+<redacted>\s+` + at("webhooks.test.secret", "secret:") + `: \$\{MALIPO_WEBHOOK_SECRET\}`,
			`--event-types\s+payout.failed,payout.success\s+` + at("webhooks.test.event-types", "event-types:"),
			`--burst\s+20\s+default`,
		}},
		{[]string{"listen"}, []string{
			`--forward-to\s+http://127.0.0.1:9/hooks\s+` + at("listen.forward-to", "forward-to:"),
			`--interval\s+2s\s+` + at("listen.interval", "interval:"),
			`--target\s+http://127.0.0.1:9\s+` + at("target", "target:"),
			`--secret\s+<redacted>\s+environment MALIPO_WEBHOOK_SECRET`,
		}},
		{[]string{"sandbox"}, []string{
			`--addr\s+127.0.0.1:0\s+` + at("sandbox.addr", "addr:"),
			`--merchant\s+<redacted>\s+` + at("sandbox.merchant", "merchant:") + `: \$\{MERCHANT_B\}`,
			`--public-key\s+<redacted>\s+` + at("public-key", "public-key:") + `: \$\{MALIPO_PUBLIC_KEY\}`,
			`--secret-key\s+<redacted>\s+environment MALIPO_SECRET_KEY`,
		}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(c.args, "--config", path, "--config-check")...)
			require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			assert.Contains(t, stdout, "settings file: "+path)
			for _, want := range c.want {
				assert.Regexp(t, `(?m)^`+want+`$`, stdout)
			}
			cmd, _, err := (&cli{stdout: io.Discard, stderr: io.Discard}).newRoot().Find(c.args)
			require.NoError(t, err)
			cmd.InheritedFlags() // merges the persistent flags into Flags
			cmd.Flags().VisitAll(func(fl *pflag.Flag) {
				if !rootOnly(fl.Name) {
					assert.Regexp(t, `(?m)^--`+fl.Name+`\s`, stdout, "every flag has a line")
				}
			})
			assert.NotContains(t, stdout, "listening on", "nothing runs")
			assert.NotContains(t, stdout, "running")
			for _, out := range []string{stdout, stderr} {
				for _, v := range secrets {
					assert.NotContains(t, out, v)
				}
				assert.NotContains(t, out, onCommandLine)
			}
		})
	}
}

// rootOnly reports whether name is a flag of the root, which every command inherits and the settings
// file does not set (it names the file), or --help.
func rootOnly(name string) bool {
	return name == "help" || slices.Contains([]string{"config", "no-config", "config-check"}, name)
}

// Each mistake in the file is a usage error that names the file, the line and the key, and says what
// to do; a literal secret is never repeated.
func TestConfigErrorsNameFileLineAndKey(t *testing.T) {
	t.Setenv("MALIPO_SECRET_KEY", "")
	const literal = "sk_test_literal_never_echoed"
	cases := []struct {
		name, cmd, file string
		line            int
		want            string // after "FILE:LINE: "
	}{
		{"unknown key", "conform", "conform:\n  wiat: 1m\n", 2, `conform.wiat: unknown key: malipo conform has no --wiat; did you mean wait?`},
		{"key of another command", "conform", "conform:\n  url: http://x\n", 2, `conform.url: malipo conform has no --url; malipo webhooks test has it: put it in the section webhooks.test (or at the top level)`},
		{"wrong type", "conform", "\nconform:\n  wait: 5\n", 3, `conform.wait: 5: a duration needs a unit, e.g. 5s or 500ms`},
		{"wrong type, as the flag says it", "conform", "concurrency: many\n", 1, `concurrency: many: not a whole number`},
		{"not one of the values", "listen", "listen:\n  output: yaml\n", 2, `listen.output: yaml: use one of text, json`},
		{"literal secret", "conform", "conform:\n  secret-key: " + literal + "\n", 2, `conform.secret-key: is a secret, which the file never holds (its value is not repeated here): put it in an environment variable and write secret-key: ${MALIPO_SECRET_KEY}`},
		{"unset variable", "sandbox", "sandbox:\n  merchant:\n    - ${MALIPO_TEST_UNSET_VARIABLE}\n", 3, `sandbox.merchant: ${MALIPO_TEST_UNSET_VARIABLE}: the environment variable MALIPO_TEST_UNSET_VARIABLE is not set: set it, or remove the key`},
		// Once, though every command with --secret-key checks it, and with the variable to use.
		{"literal top-level secret", "conform", "secret-key: " + literal + "\n", 1, `secret-key: is a secret, which the file never holds (its value is not repeated here): put it in an environment variable and write secret-key: ${MALIPO_SECRET_KEY}`},
		{"literal top-level secret, for webhooks test", "webhooks test", "secret-key: " + literal + "\n", 1, `secret-key: is a secret, which the file never holds (its value is not repeated here): put it in an environment variable and write secret-key: ${MALIPO_SECRET_KEY}`},
		{"a boolean in quotes", "conform", "conform:\n  require-extensions: \"true\"\n", 2, `conform.require-extensions: "true" is in quotes, which makes it text: --require-extensions takes true or false, written without quotes`},
		{"a number in quotes", "conform", "concurrency: '8'\n", 1, `concurrency: "8" is in quotes, which makes it text: --concurrency takes a whole number, written without quotes`},
		{"a merge of a value", "conform", "conform:\n  <<: [5]\n", 2, `conform.<<: a merge key takes a mapping (<<: *anchor) or a list of them, not a single value`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeConfig(t, c.file)
			code, stdout, stderr := runCLI(t, append(strings.Fields(c.cmd), "--config", path)...)
			assert.Equal(t, exitUsage, code, stdout)
			assert.Equal(t, "malipo "+c.cmd+": "+path+":"+strconv.Itoa(c.line)+": "+c.want+"\nRun 'malipo "+c.cmd+" --help' for usage.\n", stderr)
			assert.NotContains(t, stdout+stderr, literal)
		})
	}
}

// Where the settings come from: --config, else $MALIPO_CONFIG, else ./malipo.yaml when there is one
// (said on stderr) and it is not an OpenAPI document; --no-config reads none; a command that reads
// no settings file ignores ./malipo.yaml and refuses --config.
func TestConfigFileDiscovery(t *testing.T) {
	contract := readRepoFile(t, "openapi/malipo.yaml")
	dir := t.TempDir()
	t.Chdir(dir)
	check := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, append([]string{"conform", "--config-check"}, args...)...)
	}
	write := func(name, text string) string {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600))
		return name
	}

	code, stdout, stderr := check()
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "settings file: none (no ./malipo.yaml)")
	assert.Empty(t, stderr)

	write(configFile, "conform:\n  wait: 1m\n")
	code, stdout, stderr = check()
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `(?m)^--wait\s+1m0s\s+malipo.yaml:2 conform.wait$`, stdout)
	assert.Equal(t, "malipo conform: settings from ./malipo.yaml (--no-config ignores it)\n", stderr)

	other := write("ci.yaml", "conform:\n  wait: 2m\n")
	t.Setenv(configEnv, other)
	_, stdout, stderr = check()
	assert.Regexp(t, `(?m)^--wait\s+2m0s\s+ci.yaml:2 conform.wait$`, stdout, "$MALIPO_CONFIG over ./malipo.yaml")
	assert.Empty(t, stderr, "a file that is named is not announced")

	third := write("third.yaml", "conform:\n  wait: 3m\n")
	_, stdout, _ = check("--config", third)
	assert.Regexp(t, `(?m)^--wait\s+3m0s\s+third.yaml:2 conform.wait$`, stdout, "--config over $MALIPO_CONFIG")

	code, stdout, _ = check("--no-config")
	require.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^--wait\s+20s\s+default$`, stdout)
	assert.Contains(t, stdout, "settings file: none (--no-config)")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", third, "--no-config"}, "malipo conform: give --config or --no-config, not both\n"},
		{[]string{"--config", ""}, "malipo conform: --config needs a file; --no-config reads none\n"},
		{[]string{"--config", "missing.yaml"}, "malipo conform: --config missing.yaml: no such file\n"},
	} {
		code, _, stderr = check(c.args...)
		assert.Equal(t, exitUsage, code)
		assert.Equal(t, c.want+"Run 'malipo conform --help' for usage.\n", stderr)
	}
	t.Setenv(configEnv, "missing.yaml")
	_, _, stderr = check()
	assert.Contains(t, stderr, "malipo conform: $MALIPO_CONFIG missing.yaml: no such file\n")
	t.Setenv(configEnv, "")

	// The contract is often called malipo.yaml too (`malipo spec > malipo.yaml`): found, it is not
	// read as settings; named, it is refused.
	write(configFile, string(contract))
	code, stdout, stderr = check()
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "settings file: none (./malipo.yaml is an OpenAPI document)")
	code, _, stderr = check("--config", configFile)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--config malipo.yaml is an OpenAPI document, not a settings file (conform takes a document with --spec)")

	// Commands that read no settings file do not trip over a broken one, and refuse to be given one.
	write(configFile, "not: [a settings file\n")
	code, stdout, stderr = runCLI(t, "version")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "malipo ")
	code, _, stderr = runCLI(t, "spec", "--check", "--config", other)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "malipo spec: --config: malipo spec reads no settings file; conform, events, listen, sandbox, trigger, webhooks do\n")
	code, _, stderr = runCLI(t, "--config-check")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "malipo: --config-check goes with a command that reads a settings file (conform, events, listen, sandbox, trigger, webhooks), e.g. malipo conform --config-check\n")
	code, _, stderr = check()
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "malipo conform: malipo.yaml:1: not YAML: did not find expected ',' or ']' (while parsing a flow sequence)\n")
}

// The committed malipo.schema.json is what `malipo config schema` prints.
func TestConfigSchemaIsCurrent(t *testing.T) {
	code, generated, stderr := runCLI(t, "config", "schema")
	require.Equal(t, exitOK, code, stderr)
	committed := string(readRepoFile(t, schemaFile))
	assert.Equal(t, generated, committed, "%s is out of date: run make config-schema and commit it", schemaFile)
}

// Every flag of every command that reads the settings file has its key in the committed schema, at
// the top level and in the command's own section (found through the sections above it), walking the
// command tree: a new flag cannot be left out. Every key and secret flag is a secret there.
func TestConfigSchemaHasEveryFlag(t *testing.T) {
	var schema map[string]any
	require.NoError(t, json.Unmarshal(readRepoFile(t, schemaFile), &schema))
	defs := schema["$defs"].(map[string]any)
	props := func(s map[string]any) map[string]any { return s["properties"].(map[string]any) }
	// section follows a key of a section to the section it holds, through its $ref.
	section := func(s map[string]any, name string) map[string]any {
		p, ok := props(s)[name].(map[string]any)
		require.True(t, ok, "no key %s", name)
		refs := []any{p}
		if alts, ok := p["anyOf"].([]any); ok {
			refs = alts
		}
		for _, r := range refs {
			if ref, _ := r.(map[string]any)["$ref"].(string); strings.HasPrefix(ref, "#/$defs/") && !strings.Contains(ref, "/properties/") {
				return defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
			}
		}
		t.Fatalf("key %s holds no section: %v", name, p)
		return nil
	}
	checked := 0
	var walk func(cmd *cobra.Command, sections []map[string]any)
	walk = func(cmd *cobra.Command, sections []map[string]any) {
		for _, sub := range cmd.Commands() {
			if !cliconfig.Configured(sub) {
				// A flag may have its name (conform's --spec), but it holds no section.
				assert.NotContains(t, jsonOf(t, props(sections[len(sections)-1])[sub.Name()]), `"#/$defs/`+sub.Name()+`"`,
					"%s reads no settings file", sub.CommandPath())
				continue
			}
			own := section(sections[len(sections)-1], sub.Name())
			sub.InheritedFlags()
			sub.Flags().VisitAll(func(fl *pflag.Flag) {
				if rootOnly(fl.Name) {
					return
				}
				checked++
				for _, s := range append(slices.Clone(sections), own) {
					assert.Contains(t, props(s), fl.Name, "the schema has no key %s for %s", fl.Name, sub.CommandPath())
				}
				secretish := strings.Contains(fl.Name, "key") || strings.Contains(fl.Name, "secret") || fl.Name == "merchant"
				assert.Equal(t, secretish, cliconfig.Secret(fl), "--%s of %s: a key or a secret is marked secret, nothing else", fl.Name, sub.CommandPath())
				if cliconfig.Secret(fl) {
					assert.Contains(t, jsonOf(t, props(own)[fl.Name]), `#/$defs/secret`, "--%s of %s", fl.Name, sub.CommandPath())
				}
			})
			walk(sub, append(slices.Clone(sections), own))
		}
	}
	root := (&cli{stdout: io.Discard, stderr: io.Discard}).newRoot()
	walk(root, []map[string]any{schema})
	assert.Greater(t, checked, 60, "the walk found the flags")
	for _, name := range []string{"config", "no-config", "config-check", "help", "version"} {
		assert.NotContains(t, props(schema), name, "--%s is not a setting of the file", name)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}

// The committed schema, in a real JSON Schema validator, accepts the settings files the repository
// shows (docs/cli.md's example, every malipo.yaml under examples/) and refuses the mistakes the loader
// refuses; the loader accepts the same files for every command that reads them.
func TestConfigSamplesAgainstTheSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(readRepoFile(t, schemaFile)))
	require.NoError(t, err)
	require.NoError(t, c.AddResource(schemaURL, doc))
	schema, err := c.Compile(schemaURL)
	require.NoError(t, err)

	valid := map[string]string{"docs/cli.md": docsConfigExample(t)}
	var globbed []string
	require.NoError(t, filepath.WalkDir(filepath.Join(repoRoot(t), "examples"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == configFile {
			rel, _ := filepath.Rel(repoRoot(t), path)
			globbed = append(globbed, rel)
			valid[rel] = string(readRepoFile(t, filepath.ToSlash(rel)))
		}
		return err
	}))
	valid["every kind of value"] = `target: ${TARGET}
webhook-listen: 127.0.0.1:9900
seed: 42
conform:
  wait: 0
  settle: 1m30s
  concurrency: ${CONCURRENCY}
  require-extensions: true
  junit: reports/conform.xml
webhooks:
  test:
    event-types: [payout.failed, payment.success]
    timeout: 5s
sandbox:
  merchant: ["${MERCHANT_B}"]
  fault: [list]
  vary: 7
  latency: 100ms-300ms
  webhook-retry-schedule: 1s,5s
events:
  output: json
  list:
    limit: 50
  tail:
    events: [payout.failed]
listen:
  events: [payout.success]
trigger:
  reason: account_not_found
`
	valid["empty sections, unset keys and merges"] = `secret-key: ${MALIPO_SECRET_KEY}
conform:
  # wait: 60s
webhooks:
  test:
    secret-key: ~
    <<: &timeout {timeout: 5s}
    secret: ${MALIPO_WEBHOOK_SECRET}
listen:
  <<: *timeout
  events:
sandbox: ~
events:
`
	env := map[string]string{"TARGET": "http://127.0.0.1:8080", "CONCURRENCY": "4", "MERCHANT_B": "pk_test_b:sk_test_b"}
	validated := 0
	for name, text := range valid {
		assert.NoError(t, schema.Validate(yamlToJSON(t, text)), "%s is valid against %s", name, schemaFile)
		for _, m := range regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`).FindAllStringSubmatch(text, -1) {
			if _, ok := env[m[1]]; !ok {
				t.Setenv(m[1], "pk_test_x")
			} else {
				t.Setenv(m[1], env[m[1]])
			}
		}
		path := writeConfig(t, text)
		root := (&cli{stdout: io.Discard, stderr: io.Discard}).newRoot()
		for _, cmd := range configuredTree(root) {
			file, err := cliconfig.Load(path, cliconfig.Options{})
			require.NoError(t, err)
			require.NoError(t, file.Check(root), "%s", name)
			fresh, _, err := (&cli{stdout: io.Discard, stderr: io.Discard}).newRoot().Find(strings.Fields(strings.TrimPrefix(cmd.CommandPath(), "malipo ")))
			require.NoError(t, err)
			require.NoError(t, fresh.ParseFlags(nil))
			_, err = cliconfig.Apply(fresh, file, os.LookupEnv)
			assert.NoError(t, err, "%s for %s", name, cmd.CommandPath())
		}
		validated++
	}
	assert.Equal(t, 3+len(globbed), validated, "every file found was validated: %v", globbed)

	invalid := map[string]string{
		"unknown key":            "wiat: 1m\n",
		"key of another command": "conform:\n  url: http://x\n",
		"duration without unit":  "conform:\n  wait: 5\n",
		"not a number":           "conform:\n  concurrency: many\n",
		"not a boolean":          "conform:\n  list: yes\n",
		"literal secret":         "secret-key: sk_test_literal\n",
		"secret in a string":     "conform:\n  secret-key: sk_${X}\n",
		"literal merchant":       "sandbox:\n  merchant: [pk_a:sk_a]\n",
		"not an event type":      "listen:\n  events: [payout.nope]\n",
		"one value for a list":   "listen:\n  events: payout.failed\n",
		"a list for one value":   "conform:\n  junit: [a.xml]\n",
		"no value":               "junit:\n",
		"a boolean in quotes":    "conform:\n  require-extensions: \"true\"\n",
		"a number in quotes":     "conform:\n  concurrency: \"8\"\n",
		"the root's flag":        "config: other.yaml\n",
		"a command without one":  "spec:\n  check: true\n",
	}
	for name, text := range invalid {
		assert.Error(t, schema.Validate(yamlToJSON(t, text)), "%s: %q", name, text)
		path := writeConfig(t, text)
		t.Setenv("X", "x")
		code, _, stderr := runCLI(t, firstCommand(text), "--config", path, "--config-check")
		assert.Equal(t, exitUsage, code, "%s: the loader refuses it too: %s", name, stderr)
		assert.Contains(t, stderr, path+":", name)
	}
}

// firstCommand is the command a sample file's first section is for, else conform.
func firstCommand(text string) string {
	for _, name := range []string{"listen", "sandbox", "webhooks"} {
		if strings.HasPrefix(text, name+":") {
			if name == "webhooks" {
				return "webhooks test"
			}
			return name
		}
	}
	return "conform"
}

// configuredTree is every command under root that reads the settings file.
func configuredTree(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range root.Commands() {
		if cliconfig.Configured(sub) {
			out = append(out, sub)
		}
		out = append(out, configuredTree(sub)...)
	}
	return out
}

// yamlToJSON is a YAML document as a JSON Schema validator takes it.
func yamlToJSON(t *testing.T, text string) any {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal([]byte(text), &v))
	if v == nil {
		v = map[string]any{}
	}
	data, err := json.Marshal(v)
	require.NoError(t, err)
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	return out
}

// cliDoc is where the settings file is described.
const cliDoc = "docs/cli.md"

// docsBlocks returns the fenced blocks of the settings file's section of docs/cli.md, in order, each
// with its kind (yaml, text).
func docsBlocks(t *testing.T) (kinds, bodies []string) {
	t.Helper()
	text := string(readRepoFile(t, cliDoc))
	at := strings.Index(text, "## The settings file")
	require.GreaterOrEqual(t, at, 0, "%s has no section about the settings file", cliDoc)
	text = text[at:]
	if next := strings.Index(text[1:], "\n## "); next >= 0 {
		text = text[:next+1]
	}
	for _, m := range regexp.MustCompile("(?s)```(\\w+)\n(.*?)```").FindAllStringSubmatch(text, -1) {
		kinds, bodies = append(kinds, m[1]), append(bodies, m[2])
	}
	return kinds, bodies
}

// docsConfigExample is the section's first YAML block, the example settings file.
func docsConfigExample(t *testing.T) string {
	t.Helper()
	kinds, bodies := docsBlocks(t)
	i := slices.Index(kinds, "yaml")
	require.GreaterOrEqual(t, i, 0, "%s shows no settings file", cliDoc)
	return bodies[i]
}

// The settings file's section of docs/cli.md is run as written: each YAML block is written to the file
// its first line names ("# broken.yaml"), else to ./malipo.yaml, and each text block that starts with
// "$ [VAR=value …] malipo …" is that command's output: the lines it shows, in their order ("…" stands
// for lines left out).
func TestDocsSettingsFileExamples(t *testing.T) {
	kinds, bodies := docsBlocks(t)
	dir := t.TempDir()
	t.Chdir(dir)
	ran := 0
	for i, body := range bodies {
		switch {
		case kinds[i] == "yaml":
			name := configFile
			if m := regexp.MustCompile(`^# (\S+\.yaml)\n`).FindStringSubmatch(body); m != nil {
				name = m[1]
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
		case strings.HasPrefix(body, "$ "):
			ran++
			lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
			words := strings.Fields(strings.TrimPrefix(lines[0], "$ "))
			for len(words) > 0 && strings.Contains(words[0], "=") {
				k, v, _ := strings.Cut(words[0], "=")
				t.Setenv(k, v)
				words = words[1:]
			}
			require.Equal(t, "malipo", words[0])
			_, stdout, stderr := runCLI(t, words[1:]...)
			got := strings.Split(stderr+stdout, "\n")
			next := 0
			for _, want := range lines[1:] {
				if strings.TrimSpace(want) == "…" {
					continue
				}
				i := slices.IndexFunc(got[next:], func(l string) bool {
					return strings.Join(strings.Fields(l), " ") == strings.Join(strings.Fields(want), " ")
				})
				if !assert.GreaterOrEqual(t, i, 0, "%s shows %q, which %s does not print (after line %d):\n%s", cliDoc, want, lines[0], next, stderr+stdout) {
					break
				}
				next += i + 1
			}
		}
	}
	assert.Equal(t, 2, ran, "the section shows an error and --config-check")
}
