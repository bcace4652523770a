package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// The events walkthrough of docs/sandbox.md (the sandbox's page, linked from the README) is run as
// written, against a sandbox on loopback: every `malipo`
// line through run, every `curl` line as the HTTP request it sends, `NAME=$(… | jq -r 'path')` lines
// as assignments. The receiver the page calls http://127.0.0.1:9000 is a local one here. A line
// that fails is retried for a few seconds, as a person waits for a payout to settle; a line that
// still fails, or a block that loses a command, fails the test.
func TestREADMEEventsWalkthrough(t *testing.T) {
	block := readmeBlock(t, "## Events: see what the sandbox sent")

	var mu sync.Mutex
	received := map[string][]string{} // path -> webhook-ids
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received[r.URL.Path] = append(received[r.URL.Path], r.Header.Get(webhook.HeaderID))
		mu.Unlock()
	}))
	t.Cleanup(hooks.Close)
	srv, w := walkthroughSandbox(t, sandbox.WithTimings(sandbox.Timings{PromptDelay: 20 * time.Millisecond, PayoutDelay: 20 * time.Millisecond}))
	ran := map[string]int{}
	for _, line := range commandLines(block) {
		line = strings.ReplaceAll(line, "http://127.0.0.1:9000", hooks.URL)
		ran[w.run(line)]++
	}
	for _, kind := range []string{"malipo trigger", "malipo events list", "malipo events get", "malipo events resend", "malipo events attempts",
		"curl GET", "curl POST", "assignment"} {
		assert.Positive(t, ran[kind], "the walkthrough no longer runs a %s line", kind)
	}

	evt := w.vars["EVT"]
	require.NotEmpty(t, evt)
	require.Eventually(t, srv.Idle, 5*time.Second, 5*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	count := func(path string) (n int) {
		for _, id := range received[path] {
			if id == evt {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 3, count("/hooks"), "the event, then two resends to the payout's webhook_url: %v", received)
	assert.Equal(t, 2, count("/hooks/ledger"), "two resends to the endpoint, which subscribes to another type: %v", received)
}

// walkthroughSandbox starts a sandbox with opts on loopback, points the CLI's environment at it with
// the default keys, and returns it with a walkthrough whose $B, $PK and $SK are what the sandbox page's
// blocks assume (the events CLI tests use the sandbox alone).
func walkthroughSandbox(t *testing.T, opts ...sandbox.Option) (*sandbox.Server, *walkthrough) {
	t.Helper()
	srv, err := sandbox.New(opts...)
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		_ = srv.Close()
	})
	t.Setenv("MALIPO_BASE_URL", ts.URL)
	t.Setenv("MALIPO_PUBLIC_KEY", sandbox.DefaultPublicKey)
	t.Setenv("MALIPO_SECRET_KEY", sandbox.DefaultSecretKey)
	return srv, &walkthrough{t: t, vars: map[string]string{"B": ts.URL, "PK": sandbox.DefaultPublicKey, "SK": sandbox.DefaultSecretKey},
		outputs: map[string][]byte{}}
}

// sandboxDoc is the page the README links for the sandbox; its walkthroughs are run as written.
const sandboxDoc = "docs/sandbox.md"

// readmeBlock returns the first ```sh block after the heading in sandboxDoc.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(sandboxDoc)))
	require.NoError(t, err)
	text := string(data)
	at := strings.Index(text, heading)
	require.GreaterOrEqual(t, at, 0, "%s has no section %q", sandboxDoc, heading)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	require.Contains(t, string(readme), "]("+sandboxDoc+")", "README.md links the page whose walkthroughs these are")
	start := strings.Index(text[at:], "```sh\n")
	require.GreaterOrEqual(t, start, 0)
	body := text[at+start+len("```sh\n"):]
	end := strings.Index(body, "```")
	require.GreaterOrEqual(t, end, 0)
	return body[:end]
}

// commandLines joins continued lines and drops comments and blank lines.
func commandLines(block string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(block, "\n") {
		if cur.Len() == 0 && (strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#")) {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\"))
			continue
		}
		cur.WriteString(line)
		out = append(out, cur.String())
		cur.Reset()
	}
	return out
}

type walkthrough struct {
	t    *testing.T
	vars map[string]string
	// outputs holds what each command line printed, by line, for tests that check an answer.
	outputs map[string][]byte
}

var assignment = regexp.MustCompile(`^([A-Z]+)=\$\((.*)\| jq -r '([^']*)'\)$`)

// run runs one command line, retrying it for a while, and returns what kind of line it was.
func (w *walkthrough) run(line string) (kind string) {
	w.t.Helper()
	var lastErr error
	deadline := time.Now().Add(5 * time.Second)
	for {
		var err error
		kind, err = w.try(line)
		if err == nil {
			return kind
		}
		lastErr = err
		if time.Now().After(deadline) {
			w.t.Fatalf("%s line failed: %s\n%v", sandboxDoc, line, lastErr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (w *walkthrough) try(line string) (string, error) {
	if m := assignment.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
		_, out, err := w.command(m[2])
		if err != nil {
			return "", err
		}
		v, err := jqPath(out, m[3])
		if err != nil {
			return "", err
		}
		w.vars[m[1]] = v
		return "assignment", nil
	}
	kind, out, err := w.command(line)
	if err == nil && w.outputs != nil {
		w.outputs[line] = out
	}
	return kind, err
}

// command runs a malipo or curl command and returns its kind and output.
func (w *walkthrough) command(line string) (string, []byte, error) {
	words, err := shellWords(line, w.vars)
	if err != nil {
		return "", nil, err
	}
	switch words[0] {
	case "bin/malipo", "malipo":
		var out, errOut bytes.Buffer
		if code := run(context.Background(), words[1:], &out, &errOut); code != exitOK {
			return "", nil, fmt.Errorf("exit %d: %s%s", code, out.String(), errOut.String())
		}
		kind := "malipo " + words[1]
		if words[1] == "events" {
			kind += " " + words[2]
		}
		return kind, out.Bytes(), nil
	case "curl":
		return curl(words[1:])
	}
	return "", nil, fmt.Errorf("the walkthrough runs malipo and curl lines only, not %q", words[0])
}

// curl sends what a curl command line with -s, -i, -X, -H and -d sends, and fails on a non-2xx answer
// unless -i asks to see the answer whatever it is (status line and headers first, as curl prints them).
func curl(args []string) (string, []byte, error) {
	method, target, body := http.MethodGet, "", ""
	header := http.Header{}
	include := false
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-i":
			include = true
		case "-s":
		case "-X":
			i++
			method = args[i]
		case "-H":
			i++
			k, v, _ := strings.Cut(args[i], ":")
			header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		case "-d":
			i++
			body = args[i]
			if method == http.MethodGet {
				method = http.MethodPost
			}
		default:
			if strings.HasPrefix(args[i], "-") {
				return "", nil, fmt.Errorf("curl option %s is not understood by this test", args[i])
			}
			target = args[i]
		}
	}
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		return "", nil, err
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	out, _ := io.ReadAll(resp.Body)
	if include {
		var head bytes.Buffer
		fmt.Fprintf(&head, "%s %s\r\n", resp.Proto, resp.Status)
		_ = resp.Header.Write(&head)
		head.WriteString("\r\n")
		return "curl " + method, append(head.Bytes(), out...), nil
	}
	if resp.StatusCode/100 != 2 {
		return "", nil, fmt.Errorf("%s %s answered %d: %s", method, target, resp.StatusCode, out)
	}
	return "curl " + method, out, nil
}

// jqPath reads `.a.b[0].c` from JSON as `jq -r` would print a string there.
func jqPath(data []byte, path string) (string, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return "", fmt.Errorf("not JSON: %w: %s", err, data)
	}
	for _, step := range regexp.MustCompile(`\.(\w+)|\[(\d+)\]`).FindAllStringSubmatch(path, -1) {
		switch {
		case step[1] != "":
			m, _ := v.(map[string]any)
			v = m[step[1]]
		default:
			i, _ := strconv.Atoi(step[2])
			a, _ := v.([]any)
			if i >= len(a) {
				return "", fmt.Errorf("%s: no element %d in %s", path, i, data)
			}
			v = a[i]
		}
	}
	s, ok := v.(string)
	if !ok || s == "" {
		return "", fmt.Errorf("%s is not a string in %s", path, data)
	}
	return s, nil
}

// shellWords splits a command line as a POSIX shell does for the quoting the walkthroughs use: single
// quotes, double quotes, $NAME expanded outside single quotes, a `#` word starting a comment.
func shellWords(line string, vars map[string]string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	expand := func(i int) int {
		j := i + 1
		for j < len(line) && (line[j] == '_' || line[j] >= 'A' && line[j] <= 'Z' || line[j] >= 'a' && line[j] <= 'z' || line[j] >= '0' && line[j] <= '9') {
			j++
		}
		cur.WriteString(vars[line[i+1:j]])
		return j
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			i++
		case c == '#' && !inWord:
			i = len(line)
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unclosed ' in %s", line)
			}
			cur.WriteString(line[i+1 : i+1+end])
			inWord, i = true, i+end+2
		case c == '"':
			inWord = true
			i++
			for i < len(line) && line[i] != '"' {
				if line[i] == '$' {
					i = expand(i)
					continue
				}
				cur.WriteByte(line[i])
				i++
			}
			if i >= len(line) {
				return nil, fmt.Errorf("unclosed \" in %s", line)
			}
			i++
		case c == '$':
			inWord = true
			i = expand(i)
		default:
			inWord = true
			cur.WriteByte(c)
			i++
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("an empty command")
	}
	return words, nil
}

// The sandbox-controls walkthrough of docs/sandbox.md is run as written, like the events one: a payout settled
// now with a chosen outcome, a delivery failure whose attempts fail without sending until it is
// deleted, and the error scenarios a client's retry path is tested with.
func TestREADMESandboxControlsWalkthrough(t *testing.T) {
	block := readmeBlock(t, "## Sandbox controls: settle now, failing deliveries, error scenarios")

	var mu sync.Mutex
	var got []string // event types the receiver was sent
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct{ Type string }
		_ = json.NewDecoder(r.Body).Decode(&ev)
		mu.Lock()
		got = append(got, ev.Type)
		mu.Unlock()
	}))
	t.Cleanup(hooks.Close)
	// Nothing settles on its own (as with --payout-delay 1h), and retries come quickly.
	srv, w := walkthroughSandbox(t, sandbox.WithTimings(sandbox.Timings{PromptDelay: time.Hour, PayoutDelay: time.Hour}),
		sandbox.WithRetrySchedule([]time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, time.Second, time.Second, time.Second}))
	for _, line := range commandLines(block) {
		w.run(strings.ReplaceAll(line, "http://127.0.0.1:9000", hooks.URL))
	}
	po, df := w.vars["PO"], w.vars["DF"]
	require.NotEmpty(t, po)
	require.NotEmpty(t, df)

	p, ok := srv.Payout(sandbox.DefaultPublicKey, po)
	require.True(t, ok)
	assert.Equal(t, "failed", string(p.Status), "settled as the walkthrough chose")
	assert.Equal(t, "account_blocked", string(p.FailureReason))
	var failedThenDelivered bool
	require.Eventually(t, func() bool {
		var notSent, delivered bool
		for _, a := range srv.Attempts() {
			if a.ObjectID != po {
				continue
			}
			notSent = notSent || (a.StatusCode == http.StatusServiceUnavailable && strings.HasPrefix(a.Error, "not sent"))
			delivered = delivered || a.Delivered
		}
		failedThenDelivered = notSent && delivered
		return failedThenDelivered
	}, 10*time.Second, 10*time.Millisecond, "the payout.failed delivery failed while the delivery failure was in force, then was delivered")
	for _, f := range srv.DeliveryFailures(sandbox.DefaultPublicKey) {
		assert.NotEqual(t, df, f.ID, "the walkthrough deleted the failure")
	}
	mu.Lock()
	assert.Contains(t, got, "payout.failed")
	mu.Unlock()

	var scenarios []string
	for line, out := range w.outputs {
		if strings.Contains(line, "Malipo-Sandbox-Scenario") {
			scenarios = append(scenarios, string(out))
		}
	}
	require.Len(t, scenarios, 2, "the walkthrough plays the rate_limited and internal_error scenarios")
	joined := strings.Join(scenarios, "\n")
	assert.Contains(t, joined, " 429 Too Many Requests\r\n")
	assert.Contains(t, joined, "Retry-After: 1\r\n")
	assert.Contains(t, joined, " 500 Internal Server Error\r\n")
}
