package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Second merchant of the tests, next to the default one.
const (
	otherPublicKey = "pk_test_other_merchant"
	otherSecretKey = "sk_test_other_merchant"
)

// fastTimings make the simulated network answer in milliseconds.
var fastTimings = Timings{PromptDelay: 5 * time.Millisecond, PayoutDelay: 5 * time.Millisecond}

// testSpec returns the shared contract (openapi.Load compiles every schema, webhooks included).
func testSpec(t testing.TB) *openapi.Spec {
	t.Helper()
	spec, err := openapi.Default()
	require.NoError(t, err)
	return spec
}

// testValues returns the document's x-malipo-test-values.
func testValues(t testing.TB) openapi.TestValues {
	t.Helper()
	tv, err := testSpec(t).TestValues()
	require.NoError(t, err)
	return tv
}

// paymentTestValue returns the first customer number of the document whose payment ends in status.
func paymentTestValue(t testing.TB, status api.PaymentStatus) openapi.PaymentTestValue {
	t.Helper()
	return firstEndingIn(t, "payment", testValues(t).Payments, string(status), func(v openapi.PaymentTestValue) openapi.Outcome { return v.Outcome })
}

// walletTestValue returns the first payout wallet number of the document whose payout ends in status.
func walletTestValue(t testing.TB, status api.PayoutStatus) openapi.MobilePayoutTestValue {
	t.Helper()
	return firstEndingIn(t, "mobile payout", testValues(t).Payouts.MobileNumber, string(status), func(v openapi.MobilePayoutTestValue) openapi.Outcome { return v.Outcome })
}

// accountTestValue returns the first bank account number of the document whose payout ends in status.
func accountTestValue(t testing.TB, status api.PayoutStatus) openapi.BankPayoutTestValue {
	t.Helper()
	return firstEndingIn(t, "bank payout", testValues(t).Payouts.Bank, string(status), func(v openapi.BankPayoutTestValue) openapi.Outcome { return v.Outcome })
}

// firstEndingIn returns the first test value whose outcome has status, in the document's order.
func firstEndingIn[V any](t testing.TB, kind string, values []V, status string, outcome func(V) openapi.Outcome) V {
	t.Helper()
	for _, v := range values {
		if outcome(v).Status == status {
			return v
		}
	}
	require.FailNow(t, "no "+kind+" test value ends in "+status)
	var zero V
	return zero
}

// approvingPhone is a customer phone_number whose payment succeeds.
func approvingPhone(t testing.TB) string {
	t.Helper()
	return paymentTestValue(t, api.PaymentStatusSuccess).PhoneNumber
}

// creditedWallet is a momo_phone_number a payout succeeds to.
func creditedWallet(t testing.TB) string {
	t.Helper()
	return walletTestValue(t, api.PayoutStatusSuccess).MomoPhoneNumber
}

// creditedAccount is a bank account_number a payout succeeds to.
func creditedAccount(t testing.TB) string {
	t.Helper()
	return accountTestValue(t, api.PayoutStatusSuccess).AccountNumber
}

// env is a sandbox on a real loopback HTTP server with a client whose every exchange is validated.
type env struct {
	t      testing.TB
	srv    *Server
	ts     *httptest.Server
	client *client
}

// newEnv starts a sandbox with two merchants, fast timings and a fast retry schedule, without seed
// data (seed_test.go turns it on); opts come after these defaults and override them.
func newEnv(t testing.TB, opts ...Option) *env {
	t.Helper()
	base := []Option{
		WithMerchant(DefaultPublicKey, DefaultSecretKey),
		WithMerchant(otherPublicKey, otherSecretKey),
		WithTimings(fastTimings),
		WithRetrySchedule([]time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}),
		WithWebhookTimeout(500 * time.Millisecond),
		WithSeedData(false),
	}
	srv, err := New(append(base, opts...)...)
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	e := &env{t: t, srv: srv, ts: ts}
	e.client = newClient(t, ts.URL)
	return e
}

// client sends requests to the sandbox and validates every response against the contract: a
// violation fails the test.
type client struct {
	t    testing.TB
	base string
	hc   *http.Client
	spec *openapi.Spec
	pub  string
	sec  string
}

func newClient(t testing.TB, base string) *client {
	c := &client{t: t, base: base, spec: testSpec(t), pub: DefaultPublicKey, sec: DefaultSecretKey}
	c.hc = &http.Client{Transport: &validatingTransport{c: c, next: http.DefaultTransport}, Timeout: 10 * time.Second}
	return c
}

// as returns a copy of the client that sends another merchant's keys.
func (c *client) as(pub, sec string) *client {
	cp := &client{t: c.t, base: c.base, spec: c.spec, pub: pub, sec: sec}
	cp.hc = &http.Client{Transport: &validatingTransport{c: cp, next: http.DefaultTransport}, Timeout: 10 * time.Second}
	return cp
}

type validatingTransport struct {
	c    *client
	next http.RoundTripper
}

// RoundTrip sends the request and validates the response. Requests to paths the contract does not
// declare cannot be validated per operation; their body must still be the error envelope.
func (v *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := v.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	var vs openapi.Violations
	if _, ok := v.c.spec.FindOperation(req); ok {
		vs = v.c.spec.ValidateResponse(req, resp)
	} else {
		vs = checkEnvelope(resp)
	}
	if len(vs) > 0 {
		v.c.t.Errorf("%s %s -> %d breaks the contract: %v", req.Method, req.URL.Path, resp.StatusCode, vs)
	}
	return resp, nil
}

func checkEnvelope(resp *http.Response) openapi.Violations {
	body, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var env struct {
		Status string            `json:"status"`
		Code   int               `json:"code"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Status != "error" || env.Code == 0 || env.Errors == nil {
		return openapi.Violations{{In: openapi.InBody, Message: "not an error envelope: " + string(body)}}
	}
	return nil
}

// result is a response read completely.
type result struct {
	status int
	header http.Header
	body   []byte
}

func (r result) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "body: %s", r.body)
	return m
}

func (r result) data(t testing.TB) map[string]any {
	t.Helper()
	d, ok := r.json(t)["data"].(map[string]any)
	require.True(t, ok, "no data object in %s", r.body)
	return d
}

func (r result) code(t testing.TB) int {
	t.Helper()
	c, _ := r.json(t)["code"].(float64)
	return int(c)
}

func (r result) fields(t testing.TB) []string {
	t.Helper()
	var out []string
	errs, _ := r.json(t)["errors"].([]any)
	for _, e := range errs {
		out = append(out, e.(map[string]any)["field"].(string))
	}
	return out
}

type reqOpt func(*http.Request)

func withHeader(k, v string) reqOpt      { return func(r *http.Request) { r.Header.Set(k, v) } }
func withoutHeader(k string) reqOpt      { return func(r *http.Request) { r.Header.Del(k) } }
func withIdempotencyKey(k string) reqOpt { return withHeader("Idempotency-Key", k) }

// do sends a request with the client's keys; body is marshalled unless it is a string or []byte.
func (c *client) do(method, path string, body any, opts ...reqOpt) result {
	c.t.Helper()
	res, err := c.try(method, path, body, opts...)
	require.NoError(c.t, err)
	return res
}

func (c *client) try(method, path string, body any, opts ...reqOpt) (result, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		require.NoError(c.t, err)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	require.NoError(c.t, err)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("public-key", c.pub)
	req.Header.Set("secret-key", c.sec)
	for _, o := range opts {
		o(req)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return result{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{}, err
	}
	return result{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// Request bodies used across tests.

func mobilePayout(phone string) map[string]any {
	b := map[string]any{"amount": 120, "countryId": "ctry_zm", "transfer_to": "mobile_number"}
	if phone != "" {
		b["momo_phone_number"] = phone
	}
	return b
}

func bankPayout(account string) map[string]any {
	return map[string]any{"amount": 2500, "countryId": "ctry_zm", "transfer_to": "bank", "bank_id": "bank_zm_zanaco", "account_number": account}
}

func paymentInit(phone, hookURL string) map[string]any {
	b := map[string]any{"currency": "ZMW", "country": "ZM", "narration": "Order 1042", "method": "mobilemoney",
		"amount": 150.5, "webhook_url": hookURL, "redirect_url": ""}
	if phone != "" {
		b["phone_number"] = phone
	}
	return b
}

func with(b map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range b {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// createPayout creates a payout and returns its id.
func (c *client) createPayout(body map[string]any, opts ...reqOpt) string {
	c.t.Helper()
	res := c.do(http.MethodPost, api.OpProcessPayout().URL(), body, opts...)
	require.Equal(c.t, http.StatusCreated, res.status, "%s", res.body)
	return res.data(c.t)["payout_id"].(string)
}

// waitFinal polls the status check until the object reaches a final status.
func (c *client) waitFinal(ref string) map[string]any {
	c.t.Helper()
	var data map[string]any
	require.Eventually(c.t, func() bool {
		res := c.do(http.MethodGet, api.OpGetTransactionStatus().URL(ref), nil)
		if res.status != http.StatusOK {
			return false
		}
		data = res.data(c.t)
		return data["status"] == "success" || data["status"] == "failed"
	}, 5*time.Second, 5*time.Millisecond)
	return data
}

// received is one webhook request a receiver got.
type received struct {
	path   string
	header http.Header
	body   []byte
	at     time.Time
	event  struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Data struct {
			Object         map[string]any `json:"object"`
			PreviousStatus string         `json:"previous_status"`
		} `json:"data"`
	}
}

// receiver is a webhook sink: it records every delivery, validates it against the contract's
// webhooks, and answers with what respond says (default 200).
type receiver struct {
	t       testing.TB
	ts      *httptest.Server
	spec    *openapi.Spec
	mu      sync.Mutex
	got     []received
	respond func(r received, nth int) (status int, stall time.Duration)
	counts  map[string]int // webhook-id -> deliveries seen
}

func newReceiver(t testing.TB) *receiver {
	rc := &receiver{t: t, spec: testSpec(t), counts: map[string]int{}}
	rc.ts = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.ts.Close)
	return rc
}

func (rc *receiver) url(path string) string { return rc.ts.URL + path }

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	d := received{path: r.URL.Path, header: r.Header.Clone(), body: body, at: time.Now()}
	if err := json.Unmarshal(body, &d.event); err != nil {
		rc.t.Errorf("webhook body is not JSON: %v: %s", err, body)
	}
	if vs := rc.spec.ValidateWebhook(d.event.Type, r.Header, body); len(vs) > 0 {
		rc.t.Errorf("webhook %s breaks the contract: %v", d.event.Type, vs)
	}
	rc.mu.Lock()
	id := r.Header.Get(webhook.HeaderID)
	rc.counts[id]++
	nth := rc.counts[id]
	rc.got = append(rc.got, d)
	respond := rc.respond
	rc.mu.Unlock()
	status, stall := http.StatusOK, time.Duration(0)
	if respond != nil {
		status, stall = respond(d, nth)
	}
	if stall > 0 {
		select {
		case <-time.After(stall):
		case <-r.Context().Done():
			return
		}
	}
	w.WriteHeader(status)
}

func (rc *receiver) deliveries() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// waitFor waits until n deliveries matching keep have arrived and returns them.
func (rc *receiver) waitFor(n int, keep func(received) bool) []received {
	rc.t.Helper()
	var out []received
	require.Eventually(rc.t, func() bool {
		out = out[:0]
		for _, d := range rc.deliveries() {
			if keep == nil || keep(d) {
				out = append(out, d)
			}
		}
		return len(out) >= n
	}, 5*time.Second, 2*time.Millisecond, "waiting for %d webhook deliveries", n)
	return out
}

func forObject(id string) func(received) bool {
	return func(d received) bool {
		return d.event.Data.Object["paymentReference"] == id || d.event.Data.Object["payout_id"] == id
	}
}

// verify checks a delivery's signature with secrets using the webhook package.
func verify(t testing.TB, d received, secrets ...string) {
	t.Helper()
	var parsed []webhook.Secret
	for _, s := range secrets {
		p, err := webhook.ParseSecret(s)
		require.NoError(t, err)
		parsed = append(parsed, p)
	}
	assert.NoError(t, webhook.Verifier{Secrets: parsed}.Verify(d.header, d.body), "delivery %s", d.header.Get(webhook.HeaderID))
}

// idle waits until the sandbox has nothing left to do on its own (Server.Idle): after it, what has not
// been delivered never will be.
func (e *env) idle() {
	e.t.Helper()
	require.Eventually(e.t, e.srv.Idle, 5*time.Second, 2*time.Millisecond, "waiting for the sandbox to be idle")
}
