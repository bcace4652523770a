package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/h2non/gock"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The tests talk to the document's own server URL, so that the validator routes every request.
const (
	testBase      = "http://127.0.0.1:8080"
	testPublicKey = "pk_test_4f1c2a9e"
	testSecretKey = "sk_test_S3CRET_never_shown_7d1f"
)

// sent is one request the client put on the wire, as the mock server saw it.
type sent struct {
	method string
	path   string
	query  string
	header http.Header
	body   []byte
}

// harness is one test's mock server: gock answers, and a RoundTripper installed in front of gock
// validates every request the client sends and every mocked response against the document. Any
// violation fails the test, except for responses whose status the test declared off-contract (a
// gateway's 503, a proxy's HTML page): those must be flagged by the validator, which proves that the
// validation is live and that the test knowingly steps outside the contract.
type harness struct {
	t    *testing.T
	spec *openapi.Spec
	hc   *http.Client

	mu           sync.Mutex
	sent         []sent
	offContract  map[int]string
	flagged      []openapi.Violations
	waits        []time.Duration
	allowPending bool
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	spec, err := openapi.Default()
	require.NoError(t, err, "load the embedded document")
	h := &harness{t: t, spec: spec, offContract: map[int]string{}}
	// The transport under gock fails the test if gock ever lets a request through to the network.
	h.hc = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("a request reached the real network: %s %s", r.Method, r.URL)
		return nil, errors.New("real network disabled in tests")
	})}
	gock.InterceptClient(h.hc)
	gock.Intercept() // so that gock's transport intercepts even before the test registers a mock
	intercepted := h.hc.Transport
	h.hc.Transport = &specTransport{h: h, next: intercepted}
	t.Cleanup(func() {
		h.hc.Transport = intercepted
		gock.RestoreClient(h.hc)
		defer gock.Off()
		defer gock.CleanUnmatchedRequest()
		if gock.HasUnmatchedRequest() {
			for _, r := range gock.GetUnmatchedRequests() {
				t.Errorf("no mock matched %s %s", r.Method, r.URL)
			}
		}
		if !h.allowPending && !gock.IsDone() {
			for _, m := range gock.Pending() {
				t.Errorf("a mock was never called: %s %s", m.Request().Method, m.Request().URLStruct)
			}
		}
	})
	return h
}

// client returns a client of the mock server with tiny back-offs; it records each wait the client
// asks for and sleeps at most 2 ms of it, so that retry tests run in milliseconds.
func (h *harness) client(opts ...Option) *Client {
	h.t.Helper()
	all := append([]Option{
		WithHTTPClient(h.hc),
		WithRetryPolicy(RetryPolicy{MaxAttempts: 3, MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond}),
	}, opts...)
	c, err := New(testBase, testPublicKey, testSecretKey, all...)
	require.NoError(h.t, err)
	c.sleep = func(ctx context.Context, d time.Duration) error {
		h.mu.Lock()
		h.waits = append(h.waits, d)
		h.mu.Unlock()
		return sleepCtx(ctx, min(d, 2*time.Millisecond))
	}
	return c
}

// mock registers an expected request; path is matched exactly (gock matches regular expressions).
func (h *harness) mock(method, path string) *gock.Request {
	r := gock.New(testBase)
	exact := "^" + regexp.QuoteMeta(path) + "$"
	switch method {
	case http.MethodGet:
		return r.Get(exact)
	case http.MethodPost:
		return r.Post(exact)
	case http.MethodPatch:
		return r.Patch(exact)
	case http.MethodDelete:
		return r.Delete(exact)
	}
	h.t.Fatalf("mock: method %s is not used by the API", method)
	return nil
}

// allowOffContract declares that this test deliberately serves responses with status that the
// document does not describe.
func (h *harness) allowOffContract(status int, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.offContract[status] = why
}

func (h *harness) requests() []sent {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]sent(nil), h.sent...)
}

func (h *harness) recordedWaits() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Duration(nil), h.waits...)
}

func (h *harness) flaggedResponses() []openapi.Violations {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]openapi.Violations(nil), h.flagged...)
}

type specTransport struct {
	h    *harness
	next http.RoundTripper
}

func (s *specTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	h := s.h
	if vs := h.spec.ValidateRequest(req); len(vs) > 0 {
		h.t.Errorf("the client sent %s %s, which breaks the contract:\n%s", req.Method, req.URL.Path, describe(vs))
	}
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		body = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	h.mu.Lock()
	h.sent = append(h.sent, sent{method: req.Method, path: req.URL.Path, query: req.URL.RawQuery, header: req.Header.Clone(), body: body})
	h.mu.Unlock()

	resp, err := s.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	vs := h.spec.ValidateResponse(req, resp)
	h.mu.Lock()
	why, off := h.offContract[resp.StatusCode]
	if off && len(vs) > 0 {
		h.flagged = append(h.flagged, vs)
	}
	h.mu.Unlock()
	switch {
	case off && len(vs) == 0:
		h.t.Errorf("the test declared %d responses off-contract (%s), but the validator accepts this one; serve it as a normal response",
			resp.StatusCode, why)
	case !off && len(vs) > 0:
		h.t.Errorf("the mocked %d response to %s %s breaks the contract:\n%s", resp.StatusCode, req.Method, req.URL.Path, describe(vs))
	}
	return resp, nil
}

func describe(vs openapi.Violations) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  - %s\n", v)
	}
	return b.String()
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// uuidV4 is the shape of a generated Idempotency-Key.
var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// Envelopes for mocked responses.

func success(message string, data string) string {
	return `{"status":"success","code":0,"message":` + fmt.Sprintf("%q", message) + `,"data":` + data + `}`
}

func failure(code ErrorCode, message string, fieldErrors string) string {
	if fieldErrors == "" {
		fieldErrors = "[]"
	}
	return fmt.Sprintf(`{"status":"error","code":%d,"message":%q,"errors":%s}`, int(code), message, fieldErrors)
}

// inputs are the x-malipo-test-values the fixtures use, read from the document and chosen by outcome,
// so that no test restates a number the document owns.
var inputs = mustInputs()

type testInputs struct {
	approvingPhone  string // a customer phone_number whose payment succeeds
	creditedAccount string // a bank account_number a payout succeeds to
	missingWallet   string // a momo_phone_number a payout fails to with account_not_found
}

func mustInputs() testInputs {
	spec, err := openapi.Default()
	if err != nil {
		panic(err)
	}
	tv, err := spec.TestValues()
	if err != nil {
		panic(err)
	}
	var in testInputs
	for _, v := range tv.Payments {
		if v.Status == string(api.PaymentStatusSuccess) && in.approvingPhone == "" {
			in.approvingPhone = v.PhoneNumber
		}
	}
	for _, v := range tv.Payouts.Bank {
		if v.Status == string(api.PayoutStatusSuccess) && in.creditedAccount == "" {
			in.creditedAccount = v.AccountNumber
		}
	}
	for _, v := range tv.Payouts.MobileNumber {
		if v.FailureReason == string(api.FailureReasonAccountNotFound) && in.missingWallet == "" {
			in.missingWallet = v.MomoPhoneNumber
		}
	}
	if in.approvingPhone == "" || in.creditedAccount == "" || in.missingWallet == "" {
		panic(fmt.Sprintf("x-malipo-test-values lacks an input the client tests need: %+v", in))
	}
	return in
}

// Success data for mocked responses, with the document's test values.
var (
	eventPayoutSuccess = `{"id":"evt_6f8b0d2e4a5c7b90","type":"payout.success","object_id":"po_5d1e7b3c2a9f8e40",
		"created_at":"2026-11-21T10:20:05Z","payload":{"id":"evt_6f8b0d2e4a5c7b90","type":"payout.success",
		"created_at":"2026-11-21T10:20:05Z","data":{"previous_status":"processing","object":{"payout_id":"po_5d1e7b3c2a9f8e40",
		"amount":2500,"currency":"ZMW","countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco",
		"account_number":"` + inputs.creditedAccount + `","status":"success","created_at":"2026-11-21T10:20:00Z","updated_at":"2026-11-21T10:20:05Z"}}}}`
	paymentPending = `{"paymentReference":"pay_8f3a2c1d9b7e4a60","reference":"order-1042","status":"pending",
		"amount":150.5,"currency":"ZMW","country":"ZM","method":"mobilemoney","narration":"Order 1042",
		"phone_number":"` + inputs.approvingPhone + `","webhook_url":"https://merchant.example.org/hooks/malipo",
		"created_at":"2026-11-21T10:15:00Z","updated_at":"2026-11-21T10:15:00Z"}`
	paymentProcessing = `{"paymentReference":"pay_8f3a2c1d9b7e4a60","reference":"order-1042","status":"processing",
		"amount":150.5,"currency":"ZMW","country":"ZM","method":"mobilemoney","narration":"Order 1042",
		"phone_number":"` + inputs.approvingPhone + `","webhook_url":"https://merchant.example.org/hooks/malipo",
		"created_at":"2026-11-21T10:15:00Z","updated_at":"2026-11-21T10:15:01Z"}`
	payoutProcessing = `{"payout_id":"po_5d1e7b3c2a9f8e40","reference":"inv-88","amount":2500,"currency":"ZMW",
		"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":"` + inputs.creditedAccount + `",
		"status":"processing","created_at":"2026-11-21T10:20:00Z","updated_at":"2026-11-21T10:20:00Z"}`
	payoutFailed = `{"payout_id":"po_9a8b7c6d5e4f3a20","amount":120,"currency":"ZMW","countryId":"ctry_zm",
		"transfer_to":"mobile_number","momo_phone_number":"` + inputs.missingWallet + `","status":"failed",
		"failure_reason":"account_not_found","created_at":"2026-11-21T10:21:00Z","updated_at":"2026-11-21T10:21:04Z"}`
)

// Webhook endpoints for mocked responses.
const (
	endpoint = `{"id":"we_2b7c9d1e4f6a8b30","url":"https://merchant.example.org/hooks/payouts",
		"events":["payout.success","payout.failed"],"description":"Finance","enabled":true,
		"created_at":"2026-11-21T10:15:00Z","updated_at":"2026-11-21T10:15:00Z"}`
	endpointWithSecret = `{"id":"we_2b7c9d1e4f6a8b30","url":"https://merchant.example.org/hooks/payouts",
		"events":["payout.success","payout.failed"],"enabled":true,"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"created_at":"2026-11-21T10:15:00Z","updated_at":"2026-11-21T10:15:00Z"}`
	deliveryFailure = `{"id":"df_4c2e8a6b1d3f5e70","url":"https://merchant.example.org/hooks/malipo","status_code":503,
		"created_at":"2026-11-21T10:20:00Z","expires_at":"2026-11-21T10:22:00Z"}`
	endpointRotated = `{"id":"we_2b7c9d1e4f6a8b30","url":"https://merchant.example.org/hooks/payouts",
		"events":["payout.success"],"enabled":true,"secret":"whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
		"previous_secret_expires_at":"2026-11-21T11:15:00Z",
		"created_at":"2026-11-21T10:15:00Z","updated_at":"2026-11-21T10:15:00Z"}`
)

func bankPayout() BankPayout {
	return BankPayout{Amount: 2500, CountryID: "ctry_zm", BankID: "bank_zm_zanaco", AccountNumber: inputs.creditedAccount,
		Narration: "Supplier invoice 88", Reference: "inv-88", WebhookURL: "https://merchant.example.org/hooks/malipo"}
}
