package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a running command and reads of a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSandboxCommand(t *testing.T) {
	t.Setenv("MALIPO_PUBLIC_KEY", "")
	t.Setenv("MALIPO_SECRET_KEY", "sk_test_from_env_123")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"sandbox", "--addr", "127.0.0.1:0", "--prompt-delay", "1ms", "--payout-delay", "1ms",
			"--webhook-retry-schedule", "10ms,20ms", "--webhook-timeout", "1s"}, &stdout, &stderr)
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
	assert.Contains(t, banner, sandbox.DefaultPublicKey)
	assert.NotContains(t, banner, "sk_test_from_env_123", "a configured secret key is masked")
	assert.Contains(t, banner, "sk_test_****")
	for _, v := range testValueInputs(t) {
		assert.Contains(t, banner, v, "every test value is listed")
	}
	assert.Contains(t, banner, "declined_transaction")
	assert.Contains(t, banner, "10ms,20ms")

	payout := api.OpProcessPayout()
	req, err := http.NewRequest(payout.Method, base+payout.URL(),
		strings.NewReader(`{"amount":5,"countryId":"ctry_zm","transfer_to":"mobile_number"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
	req.Header.Set(api.HeaderSecretKey, "sk_test_from_env_123")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusCreated, resp.StatusCode, "%s", body)

	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "operation="+payout.ID) }, 5*time.Second, 10*time.Millisecond)
	logs := stderr.String()
	assert.Regexp(t, `msg=request method=`+payout.Method+` path=`+regexp.QuoteMeta(payout.URL())+` status=201 duration=\S+ operation=`+payout.ID, logs)
	assert.NotContains(t, logs, "sk_test_from_env_123", "the secret key is never logged")

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, "stderr: %s", &stderr)
	case <-time.After(15 * time.Second):
		t.Fatal("the sandbox did not stop after its context ended")
	}
	assert.Contains(t, stderr.String(), "msg=stopped")
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		stdout   string
		stderr   string
	}{
		{"no command", nil, 2, "", "Usage: malipo"},
		{"help", []string{"--help"}, 0, "sandbox", ""},
		{"unknown command", []string{"deploy"}, 2, "", `unknown command "deploy"`},
		{"spec prints the document", []string{"spec"}, 0, "openapi: 3.1.0", ""},
		{"spec check", []string{"spec", "--check"}, 0, "OK: Malipo Collections & Payouts API 1.0.0, 17 operations (and 5 sandbox controls), 5 webhook event types", ""},
		{"spec extra argument", []string{"spec", "x"}, 2, "", "unexpected argument"},
		{"sandbox help", []string{"sandbox", "-h"}, 0, "--webhook-retry-schedule", ""},
		{"bad flag", []string{"sandbox", "--nope"}, 2, "", "unknown flag --nope"},
		{"bad schedule", []string{"sandbox", "--webhook-retry-schedule", "1s,soon"}, 2, "", `"soon" is not a duration`},
		{"unknown fault", []string{"sandbox", "--fault", "gremlins"}, 2, "", `unknown fault "gremlins"`},
		{"fault list", []string{"sandbox", "--fault", "list"}, 0, string(faults.BadSignature), ""},
		{"bad log format", []string{"sandbox", "--log-format", "xml"}, 2, "", "text or json"},
		{"bad key", []string{"sandbox", "--public-key", "has space", "--addr", "127.0.0.1:0"}, 2, "", "printable ASCII"},
		{"address in use", []string{"sandbox", "--addr", "256.0.0.1:1"}, 1, "", "listen on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			assert.Equal(t, tt.wantCode, code, "stderr: %s", stderr.String())
			// An empty expectation means the stream must stay empty, not "contains the empty string".
			for _, stream := range []struct {
				name      string
				got, want string
			}{{"stdout", stdout.String(), tt.stdout}, {"stderr", stderr.String(), tt.stderr}} {
				if stream.want == "" {
					assert.Empty(t, stream.got, "nothing on %s", stream.name)
				} else {
					assert.Contains(t, stream.got, stream.want, stream.name)
				}
			}
		})
	}
}

// testValueInputs returns every input of the document's x-malipo-test-values.
func testValueInputs(t *testing.T) []string {
	t.Helper()
	spec, err := openapi.Default()
	require.NoError(t, err)
	tv, err := spec.TestValues()
	require.NoError(t, err)
	var out []string
	for _, v := range tv.Payments {
		out = append(out, v.PhoneNumber)
	}
	for _, v := range tv.Payouts.MobileNumber {
		out = append(out, v.MomoPhoneNumber)
	}
	for _, v := range tv.Payouts.Bank {
		out = append(out, v.AccountNumber)
	}
	require.NotEmpty(t, out)
	return out
}

func TestParseDurations(t *testing.T) {
	d, err := parseDurations("1s, 500ms,2m")
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{time.Second, 500 * time.Millisecond, 2 * time.Minute}, d)
	d, err = parseDurations("none")
	require.NoError(t, err)
	assert.Empty(t, d)
	_, err = parseDurations("-1s")
	assert.Error(t, err)
	assert.Equal(t, "1s,5s", formatDurations([]time.Duration{time.Second, 5 * time.Second}))
}
