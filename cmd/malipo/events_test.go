package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// eventsTarget starts a sandbox on loopback and points the CLI's environment at it.
func eventsTarget(t *testing.T, opts ...sandbox.Option) *sandbox.Server {
	t.Helper()
	srv, _ := walkthroughSandbox(t, append([]sandbox.Option{sandbox.WithTimings(sandbox.Timings{PromptDelay: 10 * time.Millisecond, PayoutDelay: 10 * time.Millisecond})}, opts...)...)
	return srv
}

// countingEventLogReads is a sandbox option that counts the requests for the event log's list.
func countingEventLogReads(reads *atomic.Int32) sandbox.Option {
	list := api.OpListEvents()
	return sandbox.WithHooks(sandbox.Hooks{Middleware: func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == list.Method && r.URL.Path == list.Path {
				reads.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	}})
}

// trigger makes the target emit each failed payout reason the document names, and the events list
// shows them, as a table and as the response's data.
func TestTriggerThenListAsJSON(t *testing.T) {
	srv := eventsTarget(t)
	code, stdout, stderr := runCLI(t, "trigger", "payout.failed", "--reason", "account_blocked", "--output", "json")
	require.Equal(t, exitOK, code, stderr)
	var created struct {
		Object, ID, Outcome string
		Expected            []string `json:"expected_events"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &created))
	assert.Equal(t, "payout", created.Object)
	assert.Equal(t, []string{"payout.failed"}, created.Expected)
	require.Eventually(t, srv.Idle, 5*time.Second, 5*time.Millisecond)
	p, ok := srv.Payout(sandbox.DefaultPublicKey, created.ID)
	require.True(t, ok)
	assert.Equal(t, "account_blocked", string(p.FailureReason), "trigger chose the test value that fails with the reason asked for")

	code, stdout, stderr = runCLI(t, "events", "list", "--object", created.ID, "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	var page struct {
		Items []struct{ ID, Type, ObjectID string } `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &page))
	require.Len(t, page.Items, 1)
	assert.Equal(t, "payout.failed", page.Items[0].Type)

	code, stdout, _ = runCLI(t, "events", "list", "--object", created.ID)
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "CREATED")
	assert.Contains(t, stdout, page.Items[0].ID)
}

// Paging: without --all one page and a hint on stderr; with --all every event once.
func TestEventsListPages(t *testing.T) {
	srv := eventsTarget(t)
	for range 3 {
		code, _, stderr := runCLI(t, "trigger", "payout.success")
		require.Equal(t, exitOK, code, stderr)
	}
	require.Eventually(t, srv.Idle, 5*time.Second, 5*time.Millisecond)
	code, stdout, stderr := runCLI(t, "events", "list", "--type", "payout.success", "--limit", "2")
	require.Equal(t, exitOK, code)
	assert.Equal(t, 3, strings.Count(stdout, "\n"), "a header and two events: %s", stdout)
	assert.Contains(t, stderr, "--cursor c_")
	code, stdout, _ = runCLI(t, "events", "list", "--type", "payout.success", "--limit", "2", "--all", "-o", "json")
	require.Equal(t, exitOK, code)
	var page struct {
		Items   []struct{ ID string } `json:"items"`
		HasMore bool                  `json:"has_more"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &page))
	assert.Len(t, page.Items, 4, "three triggered and the seeded example event")
	assert.False(t, page.HasMore)
}

// Exit codes: 2 for a wrong command line and an unreachable target, 1 for an error the target answered
// (with its message and fields).
func TestEventsErrors(t *testing.T) {
	eventsTarget(t)
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"events", "get", "evt_0000000000000000"}, exitFail, "answered 404 not_found (code 3000): No event evt_0000000000000000"},
		{[]string{"events", "resend", "evt_6f8b0d2e4a5c7b90", "--endpoint", "we_0000000000000000"}, exitFail, "No webhook endpoint we_0000000000000000"},
		{[]string{"events", "get"}, exitUsage, "give the event's id"},
		{[]string{"events", "list", "--type", "payout.done"}, exitUsage, "not an event type"},
		{[]string{"events", "list", "--since", "yesterday"}, exitUsage, "RFC 3339"},
		{[]string{"events", "list", "--limit", "0"}, exitUsage, "1 to 100"},
		{[]string{"events", "list", "--output", "yaml"}, exitUsage, "use text or json"},
		{[]string{"events", "list", "--target", "http://127.0.0.1:1"}, exitUsage, "cannot reach http://127.0.0.1:1"},
		{[]string{"trigger", "payout.done"}, exitUsage, "not an event type"},
		{[]string{"trigger", "payment.success"}, exitUsage, "needs --webhook-url"},
		{[]string{"trigger", "payout.failed", "--reason", "bad_luck"}, exitUsage, "use one of: "},
		{[]string{"trigger", "payout.success", "--reason", "account_blocked"}, exitUsage, "--reason applies to"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args...)
			assert.Equal(t, c.code, code, stderr)
			assert.Contains(t, stderr, c.stderr)
			assert.NotContains(t, stderr, sandbox.DefaultSecretKey, "no key in messages")
		})
	}
}

// Keys come from the flags or the environment, as for conform; a target without them is a usage error.
func TestEventsNeedKeysForATarget(t *testing.T) {
	eventsTarget(t)
	t.Setenv("MALIPO_PUBLIC_KEY", "")
	t.Setenv("MALIPO_SECRET_KEY", "")
	code, _, stderr := runCLI(t, "events", "list")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "needs --public-key and --secret-key (or MALIPO_PUBLIC_KEY and MALIPO_SECRET_KEY)")
	code, _, stderr = runCLI(t, "events", "list", "--public-key", sandbox.DefaultPublicKey, "--secret-key", sandbox.DefaultSecretKey)
	assert.Equal(t, exitOK, code, stderr)
}
