package faults_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The second merchant, whose objects the first must not see.
const otherPublic, otherSecret = "pk_test_faults_other", "sk_test_faults_other"

// faulty is a sandbox with faults, served over HTTP, and a webhook receiver. Requests go out raw
// (the contract's client would refuse what a fault breaks) and responses are checked against the
// document, so that a test can show which rule broke.
type faulty struct {
	t    *testing.T
	srv  *sandbox.Server
	base string
	hc   *http.Client
	spec *openapi.Spec
	rc   *receiver
}

func newFaulty(t *testing.T, fs ...faults.Fault) *faulty {
	t.Helper()
	opts := []sandbox.Option{
		sandbox.WithMerchant(sandbox.DefaultPublicKey, sandbox.DefaultSecretKey), sandbox.WithMerchant(otherPublic, otherSecret),
		sandbox.WithSeedData(false), sandbox.WithTimings(sandbox.Timings{}), sandbox.WithRetrySchedule([]time.Duration{time.Millisecond}),
	}
	extra, err := faults.Options(fs...)
	require.NoError(t, err)
	srv, err := sandbox.New(append(opts, extra...)...)
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); _ = srv.Close() })
	spec, err := openapi.Default()
	require.NoError(t, err)
	f := &faulty{t: t, srv: srv, base: ts.URL, hc: ts.Client(), spec: spec, rc: newReceiver(t)}
	return f
}

type reply struct {
	status     int
	header     http.Header
	body       []byte
	violations openapi.Violations
}

func (r reply) data(t *testing.T) map[string]any {
	t.Helper()
	var env struct {
		Data map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.body, &env), "%s", r.body)
	return env.Data
}

// call sends a request with the default merchant's keys (edit changes it first) and validates the
// response against the document.
func (f *faulty) call(method, url string, body any, edit ...func(*http.Request)) (reply, error) {
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(f.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, f.base+url, rd)
	require.NoError(f.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
	req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
	for _, e := range edit {
		e(req)
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	out := reply{status: resp.StatusCode, header: resp.Header}
	out.violations = f.spec.ValidateResponse(req, resp)
	out.body, err = io.ReadAll(resp.Body)
	require.NoError(f.t, err)
	return out, nil
}

func (f *faulty) do(method, url string, body any, edit ...func(*http.Request)) reply {
	f.t.Helper()
	r, err := f.call(method, url, body, edit...)
	require.NoError(f.t, err)
	return r
}

func header(k, v string) func(*http.Request) { return func(r *http.Request) { r.Header.Set(k, v) } }
func without(k string) func(*http.Request)   { return func(r *http.Request) { r.Header.Del(k) } }

// createPayout creates a payout and returns its id.
func (f *faulty) createPayout(body map[string]any, edit ...func(*http.Request)) string {
	f.t.Helper()
	r := f.do(http.MethodPost, api.OpProcessPayout().URL(), body, edit...)
	require.Less(f.t, r.status, 300, "%s", r.body)
	return r.data(f.t)["payout_id"].(string)
}

// idle waits until the sandbox has nothing left to do on its own: after it, what has not been
// delivered never will be.
func (f *faulty) idle() {
	f.t.Helper()
	require.Eventually(f.t, f.srv.Idle, 5*time.Second, 2*time.Millisecond, "waiting for the sandbox to be idle")
}

// testValues returns the document's x-malipo-test-values.
func (f *faulty) testValues() openapi.TestValues {
	tv, err := f.spec.TestValues()
	require.NoError(f.t, err)
	return tv
}

// creditedWallet is the wallet the test values credit at once.
func (f *faulty) creditedWallet() string {
	for _, v := range f.testValues().Payouts.MobileNumber {
		if v.Status == string(api.PayoutStatusSuccess) {
			return v.MomoPhoneNumber
		}
	}
	f.t.Fatal("the test values have no successful mobile payout")
	return ""
}

func (f *faulty) mobilePayout(wallet string) map[string]any {
	return map[string]any{"amount": 120, "countryId": "ctry_zm", "transfer_to": "mobile_number", "momo_phone_number": wallet}
}

// delivery is one webhook the receiver got.
type delivery struct {
	path   string
	header http.Header
	body   []byte
	event  struct {
		Type string `json:"type"`
		Data struct {
			Object map[string]any `json:"object"`
		} `json:"data"`
	}
}

// receiver records deliveries and answers with respond (200 without it).
type receiver struct {
	t       *testing.T
	ts      *httptest.Server
	mu      sync.Mutex
	got     []delivery
	respond func(nth int) int
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{t: t}
	rc.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := delivery{path: r.URL.Path, header: r.Header.Clone(), body: body}
		_ = json.Unmarshal(body, &d.event)
		rc.mu.Lock()
		rc.got = append(rc.got, d)
		nth, respond := len(rc.got), rc.respond
		rc.mu.Unlock()
		if respond != nil {
			w.WriteHeader(respond(nth))
		}
	}))
	t.Cleanup(rc.ts.Close)
	return rc
}

func (rc *receiver) url(path string) string { return rc.ts.URL + path }

// about returns the deliveries about an object so far.
func (rc *receiver) about(id string) []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []delivery
	for _, d := range rc.got {
		if d.event.Data.Object["paymentReference"] == id || d.event.Data.Object["payout_id"] == id {
			out = append(out, d)
		}
	}
	return out
}

// waitFor waits until n deliveries about id have arrived and returns them.
func (rc *receiver) waitFor(n int, id string) []delivery {
	rc.t.Helper()
	require.Eventually(rc.t, func() bool { return len(rc.about(id)) >= n }, 5*time.Second, 2*time.Millisecond,
		"waiting for %d webhook deliveries about %s", n, id)
	return rc.about(id)
}
