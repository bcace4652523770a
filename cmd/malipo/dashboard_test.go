package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/dashboard"
)

// startSandboxCommand runs `malipo sandbox` with args until the test ends and returns its base URL,
// its output and a function that stops it and returns its exit code.
func startSandboxCommand(t *testing.T, args ...string) (base string, stdout, stderr *syncBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"sandbox", "--addr", "127.0.0.1:0"}, args...), stdout, stderr)
	}()
	listening := regexp.MustCompile(`listening on\s+(http://\S+)`)
	require.Eventually(t, func() bool {
		m := listening.FindStringSubmatch(stdout.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	}, 10*time.Second, 10*time.Millisecond, "stdout: %s\nstderr: %s", stdout, stderr)
	return base, stdout, stderr, func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(20 * time.Second):
			t.Fatal("the sandbox did not stop after its context ended")
			return -1
		}
	}
}

// The dashboard is on by default, named in the banner, and an open live stream does not hold up the
// shutdown (whose deadline here is far longer than the test waits).
func TestSandboxServesTheDashboard(t *testing.T) {
	base, stdout, stderr, stop := startSandboxCommand(t, "--shutdown-timeout", "1m")
	assert.Contains(t, stdout.String(), base+dashboard.Prefix)

	resp, err := http.Get(base + dashboard.Prefix)
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), "Malipo sandbox")
	assert.NotEmpty(t, resp.Header.Get("Content-Security-Policy"))

	stream, err := http.Get(base + dashboard.Prefix + "stream")
	require.NoError(t, err)
	defer stream.Body.Close()
	first, err := bufio.NewReader(stream.Body).ReadString('\n')
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(first, "retry:"), first)

	// stop fails the test after 20s: the stream must end with the shutdown, not run out its deadline.
	assert.Equal(t, 0, stop(), "stderr: %s", stderr)
}

// --dashboard=false serves the API alone: the dashboard's path is the API's 404.
func TestSandboxWithoutTheDashboard(t *testing.T) {
	base, stdout, stderr, stop := startSandboxCommand(t, "--dashboard=false")
	assert.NotContains(t, stdout.String(), dashboard.Prefix)
	resp, err := http.Get(base + dashboard.Prefix)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, string(body), `"status":"error"`)
	assert.Equal(t, 0, stop(), "stderr: %s", stderr)
}
