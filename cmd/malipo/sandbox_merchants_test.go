package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The keys of the merchants in these tests; none is a test value of the document.
const (
	merchantA, secretA = "pk_test_merchant_a", "sk_test_merchant_a_secret"
	merchantB, secretB = "pk_test_merchant_b", "sk_test_merchant_b_secret"
)

// --merchant and the keys the sandbox had before it: which merchants are served, the default first.
// A --merchant never drops a merchant the user configured with --public-key/--secret-key or their
// variables; the well-known keys are served only when nothing else is.
func TestSandboxMerchantsFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want []sandbox.KeyPair
	}{
		{"the well-known keys alone", nil, nil,
			[]sandbox.KeyPair{{Public: sandbox.DefaultPublicKey, Secret: sandbox.DefaultSecretKey}}},
		{"--merchant only: the first is the default", nil, []string{"--merchant", merchantA + ":" + secretA, "--merchant", merchantB + ":" + secretB},
			[]sandbox.KeyPair{{Public: merchantA, Secret: secretA}, {Public: merchantB, Secret: secretB}}},
		{"--public-key/--secret-key stay the default", nil, []string{"--public-key", merchantA, "--secret-key", secretA, "--merchant", merchantB + ":" + secretB},
			[]sandbox.KeyPair{{Public: merchantA, Secret: secretA}, {Public: merchantB, Secret: secretB}}},
		{"the variables stay the default", map[string]string{"MALIPO_PUBLIC_KEY": merchantA, "MALIPO_SECRET_KEY": secretA}, []string{"--merchant", merchantB + ":" + secretB},
			[]sandbox.KeyPair{{Public: merchantA, Secret: secretA}, {Public: merchantB, Secret: secretB}}},
		{"a colon in the secret key is the secret's", nil, []string{"--merchant", merchantA + ":" + secretA + ":x"},
			[]sandbox.KeyPair{{Public: merchantA, Secret: secretA + ":x"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("MALIPO_PUBLIC_KEY", tc.env["MALIPO_PUBLIC_KEY"])
			t.Setenv("MALIPO_SECRET_KEY", tc.env["MALIPO_SECRET_KEY"])
			f := parseSandboxFlags(t, tc.args...)
			require.NoError(t, f.resolveMerchants())
			assert.Equal(t, tc.want, f.merchants)
			assert.Equal(t, tc.want[0].Public, f.publicKey, "the banner's public-key is the default merchant's")
		})
	}
}

// A --merchant the sandbox cannot serve is a usage error naming the flag and the form to use, and it
// never repeats a secret key, since the error goes to a terminal or a CI log.
func TestSandboxMerchantFlagErrors(t *testing.T) {
	t.Setenv("MALIPO_PUBLIC_KEY", "")
	t.Setenv("MALIPO_SECRET_KEY", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--merchant", secretA}, "--merchant (the 1st): use PUBLIC:SECRET"},
		{[]string{"--merchant", merchantA + ":" + secretA, "--merchant", ":" + secretA}, "--merchant (the 2nd): use PUBLIC:SECRET"},
		{[]string{"--merchant", merchantA + ":"}, "--merchant (the 1st): use PUBLIC:SECRET"},
		{[]string{"--merchant", merchantA + ":whsec_" + secretA}, `--merchant ` + merchantA + `:…: a secret key must not start with whsec_`},
		{[]string{"--merchant", merchantA + ":" + secretA + " x"}, "--merchant " + merchantA + ":…: keys must be printable ASCII without spaces"},
		{[]string{"--merchant", "pk a:" + secretA}, `--merchant "pk a":…: keys must be printable ASCII without spaces`},
		{[]string{"--merchant", merchantA + ":" + secretA, "--merchant", merchantA + ":" + secretB}, "--merchant " + merchantA + ":…: that public key is given twice"},
		{[]string{"--public-key", merchantA, "--merchant", merchantA + ":" + secretB}, "--merchant " + merchantA + ":…: that public key is already the default merchant's"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"sandbox", "--addr", "127.0.0.1:0"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.Contains(t, stderr, "malipo sandbox: "+tc.want, "%v", tc.args)
		assert.NotContains(t, stdout+stderr, secretA, "%v: no secret key is repeated", tc.args)
		assert.NotContains(t, stdout+stderr, secretB, "%v: no secret key is repeated", tc.args)
	}
}

// The banner lists every merchant's public key, and no secret key but the well-known one.
func TestSandboxBannerListsEveryMerchant(t *testing.T) {
	t.Setenv("MALIPO_PUBLIC_KEY", "")
	t.Setenv("MALIPO_SECRET_KEY", "")
	spec, err := openapi.Default()
	require.NoError(t, err)
	f := parseSandboxFlags(t, "--merchant", merchantA+":"+secretA, "--merchant", merchantB+":"+secretB)
	require.NoError(t, f.resolveMerchants())
	var b strings.Builder
	require.NoError(t, printBanner(&b, spec, f, "http://127.0.0.1:1"))
	banner := b.String()
	assert.Regexp(t, `public-key\s+`+merchantA+`\n`, banner)
	assert.Regexp(t, `another merchant\s+public-key `+merchantB+`, its secret key as configured`, banner)
	assert.NotContains(t, banner, secretA)
	assert.NotContains(t, banner, secretB)
	assert.NotContains(t, banner, sandbox.DefaultPublicKey, "the well-known merchant is not served")
}

// `malipo conform --target` against a sandbox process started with two merchants runs the
// cross-merchant isolation checks, which a one-merchant sandbox leaves skipped, and they pass.
func TestConformIsolationAgainstTwoMerchantSandbox(t *testing.T) {
	p := startSandboxProcess(t, "--merchant", merchantA+":"+secretA, "--merchant", merchantB+":"+secretB,
		"--prompt-delay", "10ms", "--payout-delay", "10ms", "--webhook-retry-schedule", "10ms,20ms", "--webhook-timeout", "300ms")
	var out, errOut syncBuffer
	code := run(context.Background(), []string{"conform", "--target", p.base, "--public-key", merchantA, "--secret-key", secretA,
		"--other-public-key", merchantB, "--other-secret-key", secretB, "--run", `^auth\.isolation\.`, "--wait", "10s"}, &out, &errOut)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s\nsandbox stderr:\n%s", &out, &errOut, p.stderr)
	all, err := contracttests.All()
	require.NoError(t, err)
	var needSecond int
	for _, c := range all {
		if c.NeedsSecondMerchant {
			needSecond++
		}
	}
	require.Positive(t, needSecond)
	passed := regexp.MustCompile(`(?m)^\s*PASS auth\.isolation\.`).FindAllString(out.String(), -1)
	assert.Len(t, passed, needSecond, "every check that needs a second merchant ran and passed:\n%s", &out)
	assert.Regexp(t, fmt.Sprintf(`\n%d passed, 0 failed, 0 skipped in`, needSecond), out.String())
}

// parseSandboxFlags parses args as `malipo sandbox` would, without running it.
func parseSandboxFlags(t *testing.T, args ...string) *sandboxFlags {
	t.Helper()
	f := &sandboxFlags{}
	cmd := &cobra.Command{}
	f.declare(cmd)
	require.NoError(t, cmd.Flags().Parse(args))
	return f
}
