package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// verifyingReceiver is a merchant's receiver built from webhook.Receiver. It verifies with the secret
// given to it once listen has printed one, and records each verified delivery's webhook-id and body.
type verifyingReceiver struct {
	url      string
	receiver atomic.Pointer[webhook.Receiver]
	mu       sync.Mutex
	got      map[string][]byte // webhook-id → body, verified deliveries only
	refused  atomic.Int32
}

func newVerifyingReceiver(t *testing.T) *verifyingReceiver {
	t.Helper()
	vr := &verifyingReceiver{got: map[string][]byte{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := vr.receiver.Load()
		if rc == nil {
			vr.refused.Add(1)
			http.Error(w, "no secret yet", http.StatusServiceUnavailable)
			return
		}
		rec := &statusWriter{ResponseWriter: w}
		rc.ServeHTTP(rec, r)
		if rec.status >= 300 {
			vr.refused.Add(1)
		}
	}))
	t.Cleanup(ts.Close)
	vr.url = ts.URL + "/webhooks/malipo"
	return vr
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) { s.status = code; s.ResponseWriter.WriteHeader(code) }

// verifyWith makes the receiver verify with secret, as a developer pastes the printed one.
func (vr *verifyingReceiver) verifyWith(t *testing.T, secret string) {
	t.Helper()
	s, err := webhook.ParseSecret(secret)
	require.NoError(t, err)
	vr.receiver.Store(webhook.NewReceiver(webhook.Verifier{Secrets: []webhook.Secret{s}}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		vr.mu.Lock()
		vr.got[r.Header.Get(webhook.HeaderID)] = body
		vr.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})))
}

func (vr *verifyingReceiver) received(id string) ([]byte, bool) {
	vr.mu.Lock()
	defer vr.mu.Unlock()
	b, ok := vr.got[id]
	return b, ok
}

func (vr *verifyingReceiver) count() int {
	vr.mu.Lock()
	defer vr.mu.Unlock()
	return len(vr.got)
}

// background runs the CLI until the test stops it; stop returns its exit code.
type background struct {
	out, errOut syncBuffer
	cancel      context.CancelFunc
	done        chan int
}

func runInBackground(t *testing.T, args ...string) *background {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b := &background{cancel: cancel, done: make(chan int, 1)}
	go func() { b.done <- run(ctx, args, &b.out, &b.errOut) }()
	t.Cleanup(func() { _ = b.stop(t) })
	return b
}

func (b *background) stop(t *testing.T) int {
	t.Helper()
	b.cancel()
	select {
	case code := <-b.done:
		b.done <- code // a second stop (the cleanup) reads it again
		return code
	case <-time.After(10 * time.Second):
		t.Fatalf("the command did not end 10 s after Ctrl-C; stderr: %s", b.errOut.String())
		return -1
	}
}

var printedSecret = regexp.MustCompile(`signing with (whsec_[A-Za-z0-9+/=]+)`)

// startListen starts `malipo listen` towards vr and gives vr the secret it prints.
func startListen(t *testing.T, vr *verifyingReceiver, extra ...string) (*background, string) {
	t.Helper()
	b := runInBackground(t, append([]string{"listen", "--forward-to", vr.url, "--interval", "20ms"}, extra...)...)
	var secret string
	require.Eventually(t, func() bool {
		m := printedSecret.FindStringSubmatch(b.errOut.String())
		if m != nil {
			secret = m[1]
		}
		return m != nil
	}, 10*time.Second, 5*time.Millisecond, "listen printed no secret; stderr: %s", &b.errOut)
	vr.verifyWith(t, secret)
	return b, secret
}

// triggered makes the target emit eventType and returns the id of the event it logged.
func triggered(t *testing.T, eventType api.EventType) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, "trigger", string(eventType), "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	var created struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(stdout), &created))
	var id string
	require.Eventually(t, func() bool {
		code, stdout, _ := runCLI(t, "events", "list", "--object", created.ID, "--type", string(eventType), "-o", "json")
		var page struct {
			Items []struct{ ID string } `json:"items"`
		}
		if code != exitOK || json.Unmarshal([]byte(stdout), &page) != nil || len(page.Items) == 0 {
			return false
		}
		id = page.Items[0].ID
		return true
	}, 10*time.Second, 10*time.Millisecond, "the target logged no %s for %s", eventType, created.ID)
	return id
}

// The done-when: listen forwards an event created after it started to a receiver that verifies
// with the secret listen printed, the body is the payload the log holds, the line shows the 2xx, and
// Ctrl-C ends it with exit code 0. Events logged before it started (the seeded example) are not sent.
func TestListenForwardsVerifiedDeliveries(t *testing.T) {
	var reads atomic.Int32
	eventsTarget(t, countingEventLogReads(&reads))
	vr := newVerifyingReceiver(t)
	b, secret := startListen(t, vr)

	id := triggered(t, api.EventTypePayoutSuccess)
	require.Eventually(t, func() bool { _, ok := vr.received(id); return ok }, 10*time.Second, 10*time.Millisecond,
		"the receiver verified no delivery of %s; listen said: %s %s", id, &b.out, &b.errOut)
	body, _ := vr.received(id)
	code, stdout, _ := runCLI(t, "events", "get", id, "-o", "json")
	require.Equal(t, exitOK, code)
	var logged struct {
		Event struct{ Payload json.RawMessage } `json:"event"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &logged))
	assert.JSONEq(t, string(logged.Event.Payload), string(body), "the body is the event's payload")

	require.Eventually(t, func() bool { return strings.Contains(b.out.String(), id) }, 5*time.Second, 5*time.Millisecond)
	line := lineWith(b.out.String(), id)
	assert.Contains(t, line, string(api.EventTypePayoutSuccess))
	assert.Regexp(t, `-> 204 in (<1ms|\d+ms|[\d.]+s)$`, line)
	// Five more polls, each of which lists the event again (it is within followLateness of the newest).
	seen := reads.Load()
	require.Eventually(t, func() bool { return reads.Load() >= seen+5 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, 1, strings.Count(b.out.String(), id), "each event is forwarded once: %s", &b.out)
	assert.Equal(t, 1, vr.count(), "only the event created after listen started: %s", &b.out)
	assert.Zero(t, vr.refused.Load(), "no delivery failed verification")

	assert.Equal(t, exitOK, b.stop(t))
	assert.NotContains(t, b.out.String(), secret, "the delivery lines never show the secret")
}

// --events keeps the named types only; --secret (or $MALIPO_WEBHOOK_SECRET) signs instead of a fresh
// secret, which is then not printed.
func TestListenFiltersAndTakesASecret(t *testing.T) {
	srv := eventsTarget(t)
	vr := newVerifyingReceiver(t)
	secret, err := webhook.NewSecret()
	require.NoError(t, err)
	t.Setenv(webhookSecretEnv, secret.Reveal())
	vr.verifyWith(t, secret.Reveal())
	b := runInBackground(t, "listen", "--forward-to", vr.url, "--interval", "20ms", "--events", string(api.EventTypePayoutFailed))
	require.Eventually(t, func() bool { return strings.Contains(b.errOut.String(), "Ctrl-C stops") }, 10*time.Second, 5*time.Millisecond)
	assert.Contains(t, b.errOut.String(), "signing with the secret you gave (not printed)")
	assert.NotContains(t, b.errOut.String(), secret.Reveal())

	skipped := triggered(t, api.EventTypePayoutSuccess)
	require.Eventually(t, srv.Idle, 5*time.Second, 5*time.Millisecond)
	kept := triggered(t, api.EventTypePayoutFailed)
	require.Eventually(t, func() bool { _, ok := vr.received(kept); return ok }, 10*time.Second, 10*time.Millisecond, "stdout: %s", &b.out)
	_, ok := vr.received(skipped)
	assert.False(t, ok, "an event of a type --events leaves out is not forwarded")
	assert.NotContains(t, b.out.String(), skipped)
	assert.Equal(t, exitOK, b.stop(t))
}

// A receiver that is down gives a line that says why, and listen goes on.
func TestListenSaysWhenTheReceiverDoesNotAnswer(t *testing.T) {
	eventsTarget(t)
	b := runInBackground(t, "listen", "--forward-to", "http://127.0.0.1:1/hooks", "--interval", "20ms", "-o", "json")
	require.Eventually(t, func() bool { return strings.Contains(b.errOut.String(), "Ctrl-C stops") }, 10*time.Second, 5*time.Millisecond)
	id := triggered(t, api.EventTypePayoutSuccess)
	require.Eventually(t, func() bool { return strings.Contains(b.out.String(), id) }, 10*time.Second, 10*time.Millisecond)
	var d struct {
		EventID string `json:"event_id"`
		Status  int    `json:"status"`
		Error   string `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(lineWith(b.out.String(), id)), &d))
	assert.Zero(t, d.Status)
	assert.Contains(t, d.Error, "refused")
	assert.Equal(t, exitOK, b.stop(t))
}

// `malipo events tail` prints each new event on one line, and each as JSON with -o json; --since
// replays what was logged before it started.
func TestEventsTail(t *testing.T) {
	eventsTarget(t)
	before := triggered(t, api.EventTypePayoutFailed)
	text := runInBackground(t, "events", "tail", "--interval", "20ms")
	asJSON := runInBackground(t, "events", "tail", "--interval", "20ms", "-o", "json", "--since", "1h", "--events", string(api.EventTypePayoutFailed))
	for _, tail := range []*background{text, asJSON} { // each knows where it starts: the next event is new to both
		require.Eventually(t, func() bool { return strings.Contains(tail.errOut.String(), "Ctrl-C stops") }, 10*time.Second, 5*time.Millisecond)
	}
	id := triggered(t, api.EventTypePayoutFailed)

	require.Eventually(t, func() bool { return strings.Contains(text.out.String(), id) }, 10*time.Second, 10*time.Millisecond)
	assert.Contains(t, lineWith(text.out.String(), id), string(api.EventTypePayoutFailed))
	assert.NotContains(t, text.out.String(), before, "tail begins after the events logged before it started")

	require.Eventually(t, func() bool { return strings.Contains(asJSON.out.String(), id) }, 10*time.Second, 10*time.Millisecond)
	lines := strings.Split(strings.TrimSpace(asJSON.out.String()), "\n")
	require.Len(t, lines, 2, "the event replayed by --since and the new one: %s", &asJSON.out)
	for i, want := range []string{before, id} {
		var e struct {
			ID      string          `json:"id"`
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &e), lines[i])
		assert.Equal(t, want, e.ID, "oldest first")
		assert.Equal(t, string(api.EventTypePayoutFailed), e.Type)
		assert.NotEmpty(t, e.Payload)
	}
	assert.Equal(t, exitOK, text.stop(t))
	assert.Equal(t, exitOK, asJSON.stop(t))
}

// A target without the event-log extension, a wrong type or interval, and a missing --forward-to are
// one-line errors that say what to do.
func TestListenErrors(t *testing.T) {
	noLog := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(noLog.Close)
	eventsTarget(t)
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"listen", "--forward-to", "http://127.0.0.1:9/h", "--target", noLog.URL}, exitFail, "has no event log (GET " + api.OpListEvents().Path + " answered 404)"},
		{[]string{"events", "tail", "--target", noLog.URL}, exitFail, "needs the event-log extension"},
		{[]string{"listen"}, exitUsage, "--forward-to is required"},
		{[]string{"listen", "--forward-to", "127.0.0.1:8090/h"}, exitUsage, "did you mean http://127.0.0.1:8090/h?"},
		{[]string{"listen", "--forward-to", "http://127.0.0.1:9/h", "--events", "payout.done"}, exitUsage, `--events: "payout.done" is not an event type`},
		{[]string{"events", "tail", "--interval", "0s"}, exitUsage, "--interval 0s: give a positive time"},
		{[]string{"events", "tail", "--since", "yesterday"}, exitUsage, "RFC 3339"},
		{[]string{"listen", "--forward-to", "http://127.0.0.1:9/h", "--secret", "whsec_!!"}, exitUsage, "--secret: webhook:"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, c.args...)
			assert.Equal(t, c.code, code, stderr)
			assert.Contains(t, stderr, c.stderr)
			lines := 1
			if c.code == exitUsage {
				lines = 2 // and the hint to --help
			}
			assert.Len(t, strings.Split(strings.TrimSpace(stderr), "\n"), lines, stderr)
			assert.Empty(t, stdout)
		})
	}
}

// lineWith is the line of out that contains s.
func lineWith(out, s string) string {
	for l := range strings.SplitSeq(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
