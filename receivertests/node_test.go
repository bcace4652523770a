package receivertests_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/receivertests"
	"github.com/malipo/terraform-provider-malipo/report"
)

// startNodeReceiver runs testdata/receiver.cjs in mode and returns its URL; the process ends with the
// test.
func startNodeReceiver(t *testing.T, mode, secret string) string {
	t.Helper()
	// Not a skip: a test that skips where its tool is missing proves nothing on CI; make test installs both.
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the Node receivers need node on PATH (make test runs where it is)")
	modules, err := filepath.Abs(filepath.Join("..", "tools", "node_modules"))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(modules, "standardwebhooks"))
	require.NoError(t, err, "tools/node_modules has no standardwebhooks: `make deps` installs the pinned Node tools")
	cmd := exec.Command(node, filepath.Join("testdata", "receiver.cjs"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "MODE="+mode, "SECRET="+secret)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	port := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		port <- strings.TrimSpace(line)
	}()
	select {
	case p := <-port:
		require.NotEmpty(t, p, "the Node receiver printed no port")
		return "http://127.0.0.1:" + p + "/webhooks"
	case <-time.After(20 * time.Second):
		t.Fatal("the Node receiver did not start within 20 s")
		return ""
	}
}

// Receivers in JavaScript on the official standardwebhooks package, the way merchants write them: one
// that verifies the raw body passes every check; one that verifies JSON.stringify of the parsed body
// (Express's mistake) fails exactly the raw-body spellings the real JSON.stringify changes, the same
// as internal/receiverfaults' model of it.
func TestNodeReceivers(t *testing.T) {
	secret := testSecret(t)
	for mode, want := range map[string][]string{
		"raw": nil,
		"stringify": prefixed("receiver.accepts.raw-body/", "large-integer", "number-exponent", "number-trailing-zero",
			"unicode-escapes", "whitespace"),
	} {
		t.Run(mode, func(t *testing.T) {
			url := startNodeReceiver(t, mode, secret.Reveal())
			sum, err := receivertests.Run(t.Context(), receivertests.Config{URL: url, Secret: secret, Timeout: 5 * time.Second})
			require.NoError(t, err)
			var failed []string
			for _, r := range sum.Results {
				if r.Outcome == report.Failed {
					failed = append(failed, r.ID)
				}
			}
			sort.Strings(failed)
			assert.Equal(t, want, failed)
			assert.Len(t, sum.Results, checkCount(t), "every check ran")
		})
	}
}
