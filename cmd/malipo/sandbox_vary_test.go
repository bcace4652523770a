package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/internal/variance"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// `malipo sandbox --vary SEED` serves the seed's variant and says in its banner what was drawn: every
// dimension, and the drawn timings unless a flag gave them.
func TestSandboxVary(t *testing.T) {
	const seed = 3
	v := variance.Draw(seed)
	require.False(t, v.WebhookEndpoints, "seed %d is meant to leave the webhook-endpoint extension out; pick another seed", seed)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"sandbox", "--addr", "127.0.0.1:0", "--vary", "3", "--payout-delay", "7ms", "--dashboard=false"}, &stdout, &stderr)
	}()
	listening := regexp.MustCompile(`listening on\s+(http://\S+)`)
	var base string
	require.Eventually(t, func() bool {
		m := listening.FindStringSubmatch(stdout.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	}, 10*time.Second, 10*time.Millisecond, "stdout: %s\nstderr: %s", &stdout, &stderr)

	banner := stdout.String()
	assert.Contains(t, banner, "VARIANT of seed 3")
	for _, d := range variance.Dimensions() {
		assert.Regexp(t, `(?m)^  `+regexp.QuoteMeta(d.Name)+`\s+\S`, banner, "the banner says what was drawn for %s", d.Name)
	}
	assert.Regexp(t, `push prompt answered after\s+`+regexp.QuoteMeta(v.Timings.PromptDelay.String()), banner, "the drawn prompt delay")
	assert.Regexp(t, `payouts settle after\s+7ms`, banner, "--payout-delay replaces the drawn one")

	op := api.OpListWebhookEndpoints()
	req, err := http.NewRequest(op.Method, base+op.URL(), nil)
	require.NoError(t, err)
	req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
	req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the variant has no webhook-endpoint extension: %s", body)

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, "stderr: %s", &stderr)
	case <-time.After(15 * time.Second):
		t.Fatal("the sandbox did not stop after its context ended")
	}
}

// --vary takes a whole number, says so otherwise, and completes with seeds that say what they vary.
func TestSandboxVaryFlag(t *testing.T) {
	code, stdout, stderr := runCLI(t, "sandbox", "--vary", "seven")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "malipo sandbox: --vary seven: the seed is a whole number, e.g. --vary 7\nRun 'malipo sandbox --help' for usage.\n", stderr)

	code, _, stderr = runCLI(t, "sandbox", "--vary", "7", "--data", t.TempDir())
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--vary 7: cannot be combined with --data")

	code, stdout, stderr = runCLI(t, "__complete", "sandbox", "--vary", "")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `(?m)^1\tpayout ids \S+, events `, stdout)

	code, stdout, _ = runCLI(t, "sandbox", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "--vary SEED")
	assert.Contains(t, stdout, "self-tests of malipo conform", "the help says what --vary is for")
}
