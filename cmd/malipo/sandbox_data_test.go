package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// childEnv makes the test binary run `malipo` with its arguments instead of the tests: the
// kill-and-restart test needs a real process to SIGKILL, and the test binary is one without a build.
const childEnv = "MALIPO_TEST_RUN_CLI"

func TestMain(m *testing.M) {
	// The commands run as in no CI system, whatever runs the tests: under GitHub Actions they would
	// write annotations and the job summary of the test step itself. A test of what a CI system gets
	// sets its variables (t.Setenv).
	for _, v := range []string{"GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITLAB_CI"} {
		_ = os.Unsetenv(v)
	}
	if os.Getenv(childEnv) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// sandboxProcess is `malipo sandbox` running in a child process.
type sandboxProcess struct {
	cmd    *exec.Cmd
	base   string
	stderr *syncBuffer
	exited chan struct{}
}

// startSandboxProcess starts `malipo sandbox --addr 127.0.0.1:0` with args and waits until it
// listens.
func startSandboxProcess(t *testing.T, args ...string) *sandboxProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"sandbox", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	p := &sandboxProcess{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	found := make(chan string, 1)
	go func() {
		listening := regexp.MustCompile(`listening on\s+(http://\S+)`)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		_ = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
	})
	select {
	case p.base = <-found:
	case <-p.exited:
		t.Fatalf("the sandbox exited before it listened; stderr:\n%s", p.stderr)
	case <-time.After(20 * time.Second):
		t.Fatalf("the sandbox did not listen within 20s; stderr:\n%s", p.stderr)
	}
	return p
}

// hookReceiver records the events delivered to it by webhook-id: every delivery of one event counts
// once.
type hookReceiver struct {
	// down makes the receiver drop every connection without an answer, as a crashed one would;
	// refused counts the attempts it dropped.
	down    atomic.Bool
	refused atomic.Int64

	mu       sync.Mutex
	byObject map[string]map[string]string // object id -> webhook-id -> event type
	posts    atomic.Int64
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.down.Load() {
		h.refused.Add(1)
		panic(http.ErrAbortHandler) // the connection closes with no response
	}
	var ev struct {
		Type string `json:"type"`
		Data struct {
			Object struct {
				PayoutID string `json:"payout_id"`
			} `json:"object"`
		} `json:"data"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &ev); err != nil || r.Header.Get("webhook-id") == "" {
		http.Error(w, "not an event", http.StatusBadRequest)
		return
	}
	h.posts.Add(1)
	h.mu.Lock()
	ids := h.byObject[ev.Data.Object.PayoutID]
	if ids == nil {
		ids = map[string]string{}
		h.byObject[ev.Data.Object.PayoutID] = ids
	}
	ids[r.Header.Get("webhook-id")] = ev.Type
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (h *hookReceiver) received(objectID, eventType string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range h.byObject[objectID] {
		if t == eventType {
			return true
		}
	}
	return false
}

// TestKillAndRestart: a sandbox with --data is SIGKILLed during a burst of payouts whose receiver is
// down, then restarted on the same directory with the receiver up. Every payout that got a 201 is
// there, once (a retry with its Idempotency-Key replays it); no request created two payouts; and
// every payout's status change reaches the receiver at least once. Run it 20 times in a row with
// `go test ./cmd/malipo -run TestKillAndRestart -count=20`.
func TestKillAndRestart(t *testing.T) {
	const n = 200
	dir := t.TempDir()
	// The receiver, down until the restart: it drops every delivery unanswered.
	recv := &hookReceiver{byObject: map[string]map[string]string{}}
	recv.down.Store(true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: recv, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	hookURL := "http://" + ln.Addr().String() + "/hooks"
	// A long schedule: no delivery is given up before the kill. A restart continues each delivery's
	// schedule where it was (its next attempt is due 2 s after the one before the kill), so the
	// deliveries owed are made within the deadline below.
	flags := []string{"--data", dir, "--payout-delay", "20ms", "--webhook-retry-schedule", "2s,30s", "--webhook-timeout", "2s"}

	first := startSandboxProcess(t, flags...)
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	body := func(i int) []byte {
		return []byte(fmt.Sprintf(`{"amount":%d,"countryId":"ctry_zm","transfer_to":"mobile_number","narration":"restart %d","reference":"restart-%d","webhook_url":%q}`,
			100+i, i, i, hookURL))
	}
	post := func(base string, i int) (*http.Response, []byte, error) {
		req, _ := http.NewRequest(http.MethodPost, base+api.OpProcessPayout().URL(), bytes.NewReader(body(i)))
		req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
		req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(api.HeaderIdempotencyKey, fmt.Sprint("restart-key-", i))
		resp, err := hc.Do(req)
		if err != nil {
			return nil, nil, err
		}
		data, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return resp, data, err
	}
	payoutID := func(data []byte) string {
		var env struct {
			Data struct {
				PayoutID   string `json:"payout_id"`
				ExistingID string `json:"existing_id"`
			} `json:"data"`
		}
		_ = json.Unmarshal(data, &env)
		return env.Data.PayoutID + env.Data.ExistingID
	}

	// The burst: 8 clients. Once half the payouts are created, the clients hold back until the
	// sandbox has tried (and failed) to deliver some status changes, so that the kill finds both
	// deliveries owed and payouts still processing; then the process is killed while requests are
	// in flight.
	created := make([]string, n) // payout id of each request that got a 201 before the kill
	var ok atomic.Int64
	killed := make(chan struct{})
	var killOnce sync.Once
	kill := func() {
		killOnce.Do(func() {
			_ = first.cmd.Process.Signal(syscall.SIGKILL)
			close(killed)
		})
	}
	attempted := func() bool {
		wait := time.Now().Add(10 * time.Second)
		for recv.refused.Load() < 5 && time.Now().Before(wait) {
			time.Sleep(time.Millisecond)
		}
		return recv.refused.Load() >= 5
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if ok.Load() >= n/2 {
					select {
					case <-killed:
					case <-time.After(10 * time.Second):
					}
				}
				resp, data, err := post(first.base, i)
				if err != nil || resp.StatusCode != http.StatusCreated {
					continue // killed mid-request, or refused after: the outcome is unknown
				}
				created[i] = payoutID(data)
				if ok.Add(1) == n/2 {
					if !attempted() {
						t.Error("the sandbox attempted no delivery within 10s")
					}
					kill()
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatal("the burst ended before the kill")
	}
	<-first.exited
	t.Logf("%d payouts created before the SIGKILL", ok.Load())

	// The receiver is up; the sandbox restarts on the same directory.
	recv.down.Store(false)
	second := startSandboxProcess(t, flags...)

	// Every request again, with its key: what was created is replayed, never created twice.
	ids := make([]string, n)
	owner := map[string]int{}
	for i := range n {
		resp, data, err := post(second.base, i)
		require.NoError(t, err)
		id := payoutID(data)
		// A payout and its key's response are one write (package store): a retry creates or replays,
		// never meets its own payout's reference.
		require.Equal(t, http.StatusCreated, resp.StatusCode, "request %d: %s", i, data)
		if created[i] != "" {
			assert.Equal(t, "true", resp.Header.Get(api.HeaderIdempotentReplayed), "request %d got a 201 before the kill: its retry replays it", i)
			assert.Equal(t, created[i], id, "request %d: the payout it created is the one replayed", i)
		}
		require.NotEmpty(t, id, "request %d: %s", i, data)
		if prev, dup := owner[id]; dup {
			t.Fatalf("payout %s answers requests %d and %d", id, prev, i)
		}
		owner[id], ids[i] = i, id
	}

	// Every payout is there, settles, and its status change reaches the receiver.
	deadline := time.Now().Add(15 * time.Second)
	for i, id := range ids {
		for {
			req, _ := http.NewRequest(http.MethodGet, second.base+api.OpGetPayout().URL(id), nil)
			req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
			req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
			resp, err := hc.Do(req)
			require.NoError(t, err)
			var env struct {
				Data api.Payout `json:"data"`
			}
			require.Equal(t, http.StatusOK, resp.StatusCode, "payout %s of request %d is gone", id, i)
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
			_ = resp.Body.Close()
			require.Equal(t, fmt.Sprint("restart-", i), env.Data.Reference)
			if env.Data.Status != api.PayoutStatusProcessing && recv.received(id, "payout."+string(env.Data.Status)) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("payout %s (request %d) is %s and its status change was not delivered; sandbox stderr ends:\n%s", id, i, env.Data.Status, tail(second.stderr.String()))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Logf("%d deliveries received for %d payouts", recv.posts.Load(), n)
	owed := regexp.MustCompile(`webhooks owed before the restart are queued again" deliveries=(\d+)`).FindStringSubmatch(second.stderr.String())
	require.NotNil(t, owed, "the restart queued no webhook from the outbox: the test did not test it; stderr ends:\n%s", tail(second.stderr.String()))
	t.Logf("%s deliveries owed from before the kill were queued again", owed[1])
}

// TestSandboxDataDirIsLocked: a second sandbox on a directory in use fails at once and says why.
func TestSandboxDataDirIsLocked(t *testing.T) {
	dir := t.TempDir()
	startSandboxProcess(t, "--data", dir)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"sandbox", "--addr", "127.0.0.1:0", "--data", dir}, &stdout, &stderr)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr.String(), "in use by another malipo sandbox")
}

// tail is the end of a long log, enough to read why without drowning the failure.
func tail(s string) string {
	keep := 4 << 10
	if len(s) <= keep {
		return s
	}
	return "…" + s[len(s)-keep:]
}
