package openapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

func spec(t testing.TB) *openapi.Spec {
	t.Helper()
	s, err := openapi.Default()
	require.NoError(t, err)
	return s
}

// modes returns the default Spec and one without the fast path: the verdicts and violations of the two
// must be the same.
func modes(t testing.TB) []mode {
	t.Helper()
	full, err := openapi.ValidatorOnly()
	require.NoError(t, err)
	reworded, err := openapi.Reworded()
	require.NoError(t, err)
	return []mode{{"fast", spec(t)}, {"validator", full}, {"reworded", reworded}}
}

type mode struct {
	name string
	spec *openapi.Spec
}

// The v1 API fixes these operations, paths and key headers (docs/contract.md, "The contract in brief"), plus the
// webhook-endpoint and event-log extensions. The document must declare exactly these: this is the one test that writes
// them down independently of the document, so that an accidental edit of it cannot go unnoticed.
func TestEveryDesignOperationIsDocumented(t *testing.T) {
	both := [][]string{{"public-key", "secret-key"}}
	public := [][]string{{"public-key"}}
	want := []struct {
		id, method, path string
		keys             [][]string
	}{
		{"initializePayment", "POST", "/v1/payment/init", both},
		{"completePayment", "POST", "/v1/payment/pay/{payment_reference}", public},
		{"getTransactionStatus", "GET", "/v1/payment/transactions/{reference}/check", both},
		{"processPayout", "POST", "/v1/payment/payouts/process", both},
		{"getPayout", "GET", "/v1/payment/payouts/{payout_id}", both},
		{"listCountries", "GET", "/v1/countries", public},
		{"listBanks", "GET", "/v1/payment/banks", public},
		{"createWebhookEndpoint", "POST", "/v1/webhooks", both},
		{"listWebhookEndpoints", "GET", "/v1/webhooks", both},
		{"getWebhookEndpoint", "GET", "/v1/webhooks/{id}", both},
		{"updateWebhookEndpoint", "PATCH", "/v1/webhooks/{id}", both},
		{"deleteWebhookEndpoint", "DELETE", "/v1/webhooks/{id}", both},
		{"rotateWebhookEndpointSecret", "POST", "/v1/webhooks/{id}/rotate-secret", both},
		{"listEvents", "GET", "/v1/events", both},
		{"getEvent", "GET", "/v1/events/{event_id}", both},
		{"listEventAttempts", "GET", "/v1/events/{event_id}/attempts", both},
		{"resendEvent", "POST", "/v1/events/{event_id}/resend", both},
	}
	s := spec(t)
	var ids []string
	for _, w := range want {
		ids = append(ids, w.id)
		t.Run(w.id, func(t *testing.T) {
			op, ok := s.Operation(w.id)
			require.True(t, ok, "operation %s is missing", w.id)
			assert.Equal(t, w.method, op.Method)
			assert.Equal(t, w.path, op.Path)
			// Sort copies: op belongs to the shared, immutable Default spec.
			keys := make([][]string, len(op.KeyHeaders))
			for i, req := range op.KeyHeaders {
				keys[i] = slices.Sorted(slices.Values(req))
			}
			assert.Equal(t, w.keys, keys)
			declared := openapitest.Embedded(t).Operation(t, op)
			assert.NotEmpty(t, openapitest.Member(declared, "summary").Value)
			assert.NotEmpty(t, openapitest.Member(declared, "description").Value)
		})
	}
	var got []string
	for _, op := range s.Operations() {
		if op.SandboxOnly {
			// The sandbox's controls: documented in the same file, under their own tag, and not part
			// of the v1 API an implementation offers.
			assert.True(t, strings.HasPrefix(op.Path, "/v1/sandbox/"), "%s: a sandbox control lives under /v1/sandbox/, not %s", op.ID, op.Path)
			continue
		}
		got = append(got, op.ID)
	}
	assert.ElementsMatch(t, ids, got, "the document has operations the v1 API does not have, or lacks some")
	assert.Equal(t, []string{"payment.failed", "payment.processing", "payment.success", "payout.failed", "payout.success"}, s.EventTypes())
}

func TestErrorTableCoversEveryCode(t *testing.T) {
	s := spec(t)
	statuses, err := s.ErrorStatuses()
	require.NoError(t, err)
	var errorCode struct{ Enum []int }
	openapitest.Decode(t, openapitest.Embedded(t).At(t, "/components/schemas/ErrorCode"), &errorCode)
	enum := errorCode.Enum
	var table []int
	for c, status := range statuses {
		table = append(table, c)
		assert.GreaterOrEqual(t, status, 400, "code %d", c)
		assert.Less(t, status, 600, "code %d", c)
	}
	assert.ElementsMatch(t, enum, table)
}

// Every failure reason must be reachable in test mode, or conformance cannot check it.
func TestTestValuesReachEveryFailureReason(t *testing.T) {
	s := spec(t)
	tv, err := s.TestValues()
	require.NoError(t, err)
	require.NotEmpty(t, tv.Payments)
	require.NotEmpty(t, tv.Payouts.MobileNumber)
	require.NotEmpty(t, tv.Payouts.Bank)
	reached := map[string]bool{}
	outcomes := []openapi.Outcome{}
	for _, v := range tv.Payments {
		outcomes = append(outcomes, v.Outcome)
	}
	for _, v := range tv.Payouts.MobileNumber {
		outcomes = append(outcomes, v.Outcome)
	}
	for _, v := range tv.Payouts.Bank {
		outcomes = append(outcomes, v.Outcome)
	}
	for _, o := range outcomes {
		assert.Contains(t, []string{"success", "failed"}, o.Status)
		assert.Equal(t, o.Status == "failed", o.FailureReason != "", "%+v", o)
		reached[o.FailureReason] = true
	}
	var failureReason struct{ Enum []string }
	openapitest.Decode(t, openapitest.Embedded(t).At(t, "/components/schemas/FailureReason"), &failureReason)
	require.NotEmpty(t, failureReason.Enum)
	for _, reason := range failureReason.Enum {
		assert.True(t, reached[reason], "no test value produces failure_reason %s", reason)
	}
}

const base = "http://127.0.0.1:8080"

// clientRequest builds an outgoing request, as a client does: unlike httptest.NewRequest's server-side
// parsing, a `#` starts a fragment.
func clientRequest(method, path string, keys ...string) *http.Request {
	r, err := http.NewRequest(method, base+path, nil)
	if err != nil {
		panic(err)
	}
	for _, k := range keys {
		r.Header.Set(k, "k_"+k)
	}
	return r
}

func request(method, path, contentType, body string, keys ...string) *http.Request {
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(method, base+path, nil)
	} else {
		r = httptest.NewRequest(method, base+path, strings.NewReader(body))
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	for _, k := range keys {
		r.Header.Set(k, "test_"+k)
	}
	return r
}

var bothKeys = []string{"public-key", "secret-key"}

const (
	bankPayout   = `{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":"0000000001","narration":"Invoice 88","reference":"inv-88","webhook_url":"https://merchant.example.org/hooks"}`
	mobilePayout = `{"amount":120,"countryId":"ctry_zm","transfer_to":"mobile_number","momo_phone_number":"260960000001"}`
	initPayment  = `{"currency":"ZMW","country":"ZM","narration":"Order 1","method":"mobilemoney","amount":150.75,"webhook_url":"https://merchant.example.org/hooks","redirect_url":""}`
)

func TestValidRequestsPass(t *testing.T) {
	cases := []struct {
		name string
		r    *http.Request
	}{
		{"init payment", request("POST", "/v1/payment/init", "application/json", initPayment, bothKeys...)},
		{"init payment with reference and phone", request("POST", "/v1/payment/init", "application/json",
			`{"currency":"ZMW","country":"ZM","narration":"x","method":"mobilemoney","amount":1,"reference":"order-1","phone_number":"260970000001","webhook_url":"http://localhost:9/h"}`, bothKeys...)},
		{"complete payment without body", request("POST", "/v1/payment/pay/pay_123", "", "", "public-key")},
		{"complete payment with phone", request("POST", "/v1/payment/pay/pay_123", "application/json", `{"phone_number":"260970000001"}`, "public-key")},
		{"transaction status", request("GET", "/v1/payment/transactions/order-1/check", "", "", bothKeys...)},
		// A fragment is never sent; libopenapi-validator v0.14.0 read it into the path and panicked here.
		{"transaction status with a fragment", clientRequest("GET", "/v1/payment/transactions/order-1/check#top", bothKeys...)},
		{"get payout with a fragment", clientRequest("GET", "/v1/payment/payouts/po_1#top", bothKeys...)},
		{"bank payout", request("POST", "/v1/payment/payouts/process", "application/json", bankPayout, bothKeys...)},
		{"mobile payout", request("POST", "/v1/payment/payouts/process", "application/json", mobilePayout, bothKeys...)},
		{"payout to own wallet", request("POST", "/v1/payment/payouts/process", "application/json", `{"amount":1,"countryId":"ctry_zm","transfer_to":"mobile_number"}`, bothKeys...)},
		{"payout with charset", request("POST", "/v1/payment/payouts/process", "application/json; charset=utf-8", mobilePayout, bothKeys...)},
		{"get payout", request("GET", "/v1/payment/payouts/po_1", "", "", bothKeys...)},
		{"countries", request("GET", "/v1/countries", "", "", "public-key")},
		{"banks", request("GET", "/v1/payment/banks?country=ZM", "", "", "public-key")},
		{"create endpoint", request("POST", "/v1/webhooks", "application/json", `{"url":"https://m.example.org/h","events":["payout.success"],"enabled":false}`, bothKeys...)},
		{"list endpoints", request("GET", "/v1/webhooks", "", "", bothKeys...)},
		{"get endpoint", request("GET", "/v1/webhooks/we_1", "", "", bothKeys...)},
		{"update endpoint", request("PATCH", "/v1/webhooks/we_1", "application/json", `{"description":""}`, bothKeys...)},
		{"delete endpoint", request("DELETE", "/v1/webhooks/we_1", "", "", bothKeys...)},
		{"rotate secret", request("POST", "/v1/webhooks/we_1/rotate-secret", "application/json", `{"grace_period_seconds":0}`, bothKeys...)},
		{"rotate secret without body", request("POST", "/v1/webhooks/we_1/rotate-secret", "", "", bothKeys...)},
		{"idempotency key", withHeader(request("POST", "/v1/payment/payouts/process", "application/json", mobilePayout, bothKeys...), "Idempotency-Key", "k-1")},
	}
	for _, m := range modes(t) {
		s := m.spec
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				assert.Empty(t, s.ValidateRequest(c.r))
			})
		}
	}
}

func withHeader(r *http.Request, k, v string) *http.Request {
	r.Header.Set(k, v)
	return r
}

// Each bad request is rejected with a violation whose pointer names the offending field.
func TestBadRequestsNameTheField(t *testing.T) {
	cases := []struct {
		name     string
		r        *http.Request
		in       string
		pointers []string
	}{
		{"payout missing amount", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"countryId":"ctry_zm","transfer_to":"mobile_number"}`, bothKeys...), openapi.InBody, []string{"/amount"}},
		{"payout amount 0", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":0,"countryId":"ctry_zm","transfer_to":"mobile_number"}`, bothKeys...), openapi.InBody, []string{"/amount"}},
		{"payout amount 1.5", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":1.5,"countryId":"ctry_zm","transfer_to":"mobile_number"}`, bothKeys...), openapi.InBody, []string{"/amount"}},
		{"payout amount negative", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":-5,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"b","account_number":"0000000001"}`, bothKeys...), openapi.InBody, []string{"/amount"}},
		{"payout amount as string", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":"10","countryId":"ctry_zm","transfer_to":"mobile_number"}`, bothKeys...), openapi.InBody, []string{"/amount"}},
		{"unknown transfer_to", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":1,"countryId":"ctry_zm","transfer_to":"cash"}`, bothKeys...), openapi.InBody, []string{"/transfer_to"}},
		{"missing transfer_to", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":1,"countryId":"ctry_zm"}`, bothKeys...), openapi.InBody, []string{"/transfer_to"}},
		{"bank payout without bank_id", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":1,"countryId":"ctry_zm","transfer_to":"bank","account_number":"0000000001"}`, bothKeys...), openapi.InBody, []string{"/bank_id"}},
		{"bank payout without bank fields", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":1,"countryId":"ctry_zm","transfer_to":"bank"}`, bothKeys...), openapi.InBody, []string{"/account_number", "/bank_id"}},
		{"mobile payout with bank_id", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":1,"countryId":"ctry_zm","transfer_to":"mobile_number","bank_id":"bank_zm_zanaco"}`, bothKeys...), openapi.InBody, []string{"/bank_id"}},
		{"payout unknown field", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":1,"countryId":"ctry_zm","transfer_to":"mobile_number","currency":"ZMW"}`, bothKeys...), openapi.InBody, []string{"/currency"}},
		{"payout bad phone", request("POST", "/v1/payment/payouts/process", "application/json",
			`{"amount":1,"countryId":"ctry_zm","transfer_to":"mobile_number","momo_phone_number":"+26 096"}`, bothKeys...), openapi.InBody, []string{"/momo_phone_number"}},
		{"malformed JSON", request("POST", "/v1/payment/payouts/process", "application/json", `{"amount":1,`, bothKeys...), openapi.InBody, []string{""}},
		{"body not an object", request("POST", "/v1/payment/payouts/process", "application/json", `[1,2]`, bothKeys...), openapi.InBody, []string{""}},
		{"wrong content type", request("POST", "/v1/payment/payouts/process", "text/plain", mobilePayout, bothKeys...), openapi.InHeader, []string{"header.content-type"}},
		{"missing body", request("POST", "/v1/payment/payouts/process", "application/json", "", bothKeys...), openapi.InBody, []string{""}},
		{"missing secret key", request("POST", "/v1/payment/payouts/process", "application/json", mobilePayout, "public-key"), openapi.InHeader, []string{"header.secret-key"}},
		{"missing both keys", request("GET", "/v1/payment/payouts/po_1", "", ""), openapi.InHeader, []string{"header.public-key", "header.secret-key"}},
		{"complete payment without public key", request("POST", "/v1/payment/pay/pay_1", "", ""), openapi.InHeader, []string{"header.public-key"}},
		{"init missing currency", request("POST", "/v1/payment/init", "application/json",
			`{"country":"ZM","narration":"x","method":"mobilemoney","amount":1,"webhook_url":"https://a.example.org/h"}`, bothKeys...), openapi.InBody, []string{"/currency"}},
		{"init amount 0", request("POST", "/v1/payment/init", "application/json",
			`{"currency":"ZMW","country":"ZM","narration":"x","method":"mobilemoney","amount":0,"webhook_url":"https://a.example.org/h"}`, bothKeys...), openapi.InBody, []string{"/amount"}},
		{"init amount with three decimals", request("POST", "/v1/payment/init", "application/json",
			`{"currency":"ZMW","country":"ZM","narration":"x","method":"mobilemoney","amount":1.005,"webhook_url":"https://a.example.org/h"}`, bothKeys...), openapi.InBody, []string{"/amount"}},
		{"init wrong method", request("POST", "/v1/payment/init", "application/json",
			`{"currency":"ZMW","country":"ZM","narration":"x","method":"card","amount":1,"webhook_url":"https://a.example.org/h"}`, bothKeys...), openapi.InBody, []string{"/method"}},
		{"init lower-case currency", request("POST", "/v1/payment/init", "application/json",
			`{"currency":"zmw","country":"ZM","narration":"x","method":"mobilemoney","amount":1,"webhook_url":"https://a.example.org/h"}`, bothKeys...), openapi.InBody, []string{"/currency"}},
		{"init webhook_url not a URL", request("POST", "/v1/payment/init", "application/json",
			`{"currency":"ZMW","country":"ZM","narration":"x","method":"mobilemoney","amount":1,"webhook_url":"not a url"}`, bothKeys...), openapi.InBody, []string{"/webhook_url"}},
		{"banks without country", request("GET", "/v1/payment/banks", "", "", "public-key"), openapi.InQuery, []string{"query.country"}},
		{"banks lower-case country", request("GET", "/v1/payment/banks?country=zm", "", "", "public-key"), openapi.InQuery, []string{"query.country"}},
		{"payout id with a space", request("GET", "/v1/payment/payouts/a%20b", "", "", bothKeys...), openapi.InPath, []string{"path.payout_id"}},
		{"endpoint with unknown event", request("POST", "/v1/webhooks", "application/json",
			`{"url":"https://m.example.org/h","events":["payout.success","payout.nope"]}`, bothKeys...), openapi.InBody, []string{"/events/1"}},
		{"endpoint with no events", request("POST", "/v1/webhooks", "application/json",
			`{"url":"https://m.example.org/h","events":[]}`, bothKeys...), openapi.InBody, []string{"/events"}},
		{"empty endpoint update", request("PATCH", "/v1/webhooks/we_1", "application/json", `{}`, bothKeys...), openapi.InBody, []string{""}},
		{"rotate with negative grace", request("POST", "/v1/webhooks/we_1/rotate-secret", "application/json", `{"grace_period_seconds":-1}`, bothKeys...), openapi.InBody, []string{"/grace_period_seconds"}},
		{"init with two unknown members", request("POST", "/v1/payment/init", "application/json",
			`{"currency":"ZMW","country":"ZM","narration":"x","method":"mobilemoney","amount":1,"webhook_url":"https://a.example.org/h","tip":1,"a/b":2}`, bothKeys...), openapi.InBody, []string{"/a~1b", "/tip"}},
		{"init missing two members", request("POST", "/v1/payment/init", "application/json",
			`{"currency":"ZMW","country":"ZM","method":"mobilemoney","webhook_url":"https://a.example.org/h"}`, bothKeys...), openapi.InBody, []string{"/amount", "/narration"}},
		{"mobile payout with an unknown member", request("POST", "/v1/payment/payouts/process", "application/json",
			strings.Replace(mobilePayout, `{`, `{"bank_id":"bank_zm_zanaco",`, 1), bothKeys...), openapi.InBody, []string{"/bank_id"}},
		{"unknown path", request("GET", "/v1/nope", "", "", bothKeys...), openapi.InRoute, []string{""}},
		// libopenapi-validator v0.14.0 panicked on a media type without a subtype; found by FuzzFastPathIsSound.
		{"content type without subtype", request("POST", "/v1/payment/payouts/process", "AppliCAtion", mobilePayout, bothKeys...), openapi.InHeader, []string{"header.content-type"}},
		{"optional body, content type without subtype", request("POST", "/v1/webhooks/we_1/rotate-secret", "application", `{}`, bothKeys...), openapi.InHeader, []string{"header.content-type"}},
		{"method not documented", request("DELETE", "/v1/countries", "", "", "public-key"), openapi.InRoute, []string{""}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.in] = true
	}
	assert.Equal(t, map[string]bool{openapi.InRoute: true, openapi.InHeader: true, openapi.InPath: true, openapi.InQuery: true, openapi.InBody: true},
		covered, "the cases reach every part of a request a violation can name")
	for _, m := range modes(t) {
		s := m.spec
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				vs := s.ValidateRequest(c.r)
				require.NotEmpty(t, vs, "the request must be rejected")
				pointers := slices.Compact(vs.Pointers())
				assert.Equal(t, c.pointers, pointers, "%v", vs)
				for _, v := range vs {
					assert.Equal(t, c.in, v.In, "%v", v)
					assert.NotEmpty(t, v.Message)
				}
			})
		}
	}
}

func TestRequestBodyStaysReadable(t *testing.T) {
	s := spec(t)
	r := request("POST", "/v1/payment/payouts/process", "application/json", bankPayout, bothKeys...)
	require.Empty(t, s.ValidateRequest(r))
	var buf bytes.Buffer
	_, err := buf.ReadFrom(r.Body)
	require.NoError(t, err)
	assert.JSONEq(t, bankPayout, buf.String())
}

func response(status int, body string, headers ...string) *http.Response {
	rec := httptest.NewRecorder()
	if body != "" {
		rec.Header().Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		rec.Header().Set(headers[i], headers[i+1])
	}
	rec.WriteHeader(status)
	_, _ = rec.WriteString(body)
	return rec.Result()
}

const payoutData = `{"payout_id":"po_1","amount":2500,"currency":"ZMW","countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":"0000000001","status":"processing","created_at":"2026-11-21T10:20:00Z","updated_at":"2026-11-21T10:20:00Z"}`

func TestResponses(t *testing.T) {
	payoutReq := func() *http.Request {
		return request("POST", "/v1/payment/payouts/process", "application/json", bankPayout, bothKeys...)
	}
	cases := []struct {
		name     string
		r        *http.Request
		resp     *http.Response
		in       string
		pointers []string
	}{
		{"payout created", payoutReq(), response(201, `{"status":"success","code":0,"message":"Payout is processing","data":`+payoutData+`}`), "", nil},
		{"payout replayed", payoutReq(), response(201, `{"status":"success","code":0,"message":"Payout is processing","data":`+payoutData+`}`, "Idempotent-Replayed", "true"), "", nil},
		{"payout validation error", payoutReq(), response(400, `{"status":"error","code":1000,"message":"bad","errors":[{"field":"/amount","reason":"must be >= 1"}]}`), "", nil},
		{"countries", request("GET", "/v1/countries", "", "", "public-key"),
			response(200, `{"status":"success","code":0,"message":"ok","data":[{"id":"ctry_zm","name":"Zambia","country_code":"ZM","currency_code":"ZMW"}]}`), "", nil},
		{"delete endpoint", request("DELETE", "/v1/webhooks/we_1", "", "", bothKeys...), response(204, ""), "", nil},
		{"payout without data.status", payoutReq(), response(201, `{"status":"success","code":0,"message":"m","data":`+strings.Replace(payoutData, `"status":"processing",`, "", 1)+`}`), openapi.InBody, []string{"/data/status"}},
		{"payout with unknown status", payoutReq(), response(201, `{"status":"success","code":0,"message":"m","data":`+strings.Replace(payoutData, `"processing"`, `"pending"`, 1)+`}`), openapi.InBody, []string{"/data/status"}},
		{"success with non-zero code", payoutReq(), response(201, `{"status":"success","code":7,"message":"m","data":`+payoutData+`}`), openapi.InBody, []string{"/code"}},
		{"undocumented status code", payoutReq(), response(200, `{"status":"success","code":0,"message":"m","data":`+payoutData+`}`), openapi.InStatus, []string{""}},
		{"error without envelope", payoutReq(), response(400, `{"error":"bad amount"}`), openapi.InBody, []string{"/code", "/errors", "/message", "/status"}},
		{"error with unknown code", payoutReq(), response(409, `{"status":"error","code":42,"message":"m","errors":[]}`), openapi.InBody, []string{"/code"}},
		{"plain text error", payoutReq(), response(500, "oops", "Content-Type", "text/plain"), openapi.InHeader, []string{"header.content-type"}},
		// libopenapi-validator skips the schema when nothing decodes; the package does not.
		{"payout created without a body", payoutReq(), response(201, "", "Content-Type", "application/json"), openapi.InBody, []string{""}},
		{"payout created with a null body", payoutReq(), response(201, " null\n"), openapi.InBody, []string{""}},
		{"error without a body", payoutReq(), response(400, "", "Content-Type", "application/json; charset=utf-8"), openapi.InBody, []string{""}},
		// Optional headers are not checked by libopenapi-validator; the package checks them.
		{"replay header not a boolean", payoutReq(), response(201, `{"status":"success","code":0,"message":"m","data":`+payoutData+`}`, "Idempotent-Replayed", "yes"), openapi.InHeader, []string{"header.idempotent-replayed"}},
		{"rate limited with Retry-After", payoutReq(), response(429, `{"status":"error","code":6000,"message":"slow down","errors":[]}`, "Retry-After", "2"), "", nil},
		{"Retry-After not an integer", payoutReq(), response(429, `{"status":"error","code":6000,"message":"slow down","errors":[]}`, "Retry-After", "soon"), openapi.InHeader, []string{"header.retry-after"}},
		{"Retry-After negative", payoutReq(), response(429, `{"status":"error","code":6000,"message":"slow down","errors":[]}`, "Retry-After", "-1"), openapi.InHeader, []string{"header.retry-after"}},
	}
	for _, m := range modes(t) {
		s := m.spec
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				vs := s.ValidateResponse(c.r, c.resp)
				if c.pointers == nil {
					assert.Empty(t, vs)
					return
				}
				require.NotEmpty(t, vs)
				assert.Equal(t, c.pointers, slices.Compact(vs.Pointers()), "%v", vs)
				for _, v := range vs {
					assert.Equal(t, c.in, v.In, "%v", v)
				}
			})
		}
	}
}

func TestResponseBodyStaysReadable(t *testing.T) {
	s := spec(t)
	body := `{"status":"success","code":0,"message":"ok","data":[]}`
	resp := response(200, body)
	require.Empty(t, s.ValidateResponse(request("GET", "/v1/webhooks", "", "", bothKeys...), resp))
	var buf bytes.Buffer
	_, err := buf.ReadFrom(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, body, buf.String())
}

func webhookHeader() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("webhook-id", "evt_1")
	h.Set("webhook-timestamp", "1795263300")
	h.Set("webhook-signature", "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=")
	return h
}

const payoutFailedEvent = `{"id":"evt_1","type":"payout.failed","created_at":"2026-11-21T10:00:04Z","data":{"previous_status":"processing","object":{"payout_id":"po_1","amount":1,"currency":"ZMW","countryId":"ctry_zm","transfer_to":"mobile_number","status":"failed","failure_reason":"account_not_found","created_at":"2026-11-21T10:00:00Z","updated_at":"2026-11-21T10:00:04Z"}}}`

func TestWebhooks(t *testing.T) {
	noSig := webhookHeader()
	noSig.Del("webhook-signature")
	badSig := webhookHeader()
	badSig.Set("webhook-signature", "sha256=abc")
	cases := []struct {
		name      string
		eventType string
		header    http.Header
		body      string
		in        string
		pointers  []string
	}{
		{"payout failed", "payout.failed", webhookHeader(), payoutFailedEvent, "", nil},
		{"two signatures", "payout.failed", withSig(webhookHeader(), "v1,YWJj v1,ZGVm"), payoutFailedEvent, "", nil},
		{"failed without failure_reason", "payout.failed", webhookHeader(), strings.Replace(payoutFailedEvent, `"failure_reason":"account_not_found",`, "", 1), openapi.InBody, []string{"/data/object/failure_reason"}},
		{"object status disagrees with type", "payout.success", webhookHeader(), strings.Replace(payoutFailedEvent, `"type":"payout.failed"`, `"type":"payout.success"`, 1), openapi.InBody, []string{"/data/object/status"}},
		{"type disagrees with the delivery", "payout.success", webhookHeader(), payoutFailedEvent, openapi.InBody, []string{"/data/object/status", "/type"}},
		{"wrong previous status", "payout.failed", webhookHeader(), strings.Replace(payoutFailedEvent, `"previous_status":"processing"`, `"previous_status":"failed"`, 1), openapi.InBody, []string{"/data/previous_status"}},
		{"missing signature", "payout.failed", noSig, payoutFailedEvent, openapi.InHeader, []string{"header.webhook-signature"}},
		{"signature not Standard Webhooks", "payout.failed", badSig, payoutFailedEvent, openapi.InHeader, []string{"header.webhook-signature"}},
		{"unknown event type", "payout.reversed", webhookHeader(), payoutFailedEvent, openapi.InRoute, []string{""}},
	}
	for _, m := range modes(t) {
		s := m.spec
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				vs := s.ValidateWebhook(c.eventType, c.header, []byte(c.body))
				if c.pointers == nil {
					assert.Empty(t, vs)
					return
				}
				require.NotEmpty(t, vs)
				assert.Equal(t, c.pointers, slices.Compact(vs.Pointers()), "%v", vs)
				for _, v := range vs {
					assert.Equal(t, c.in, v.In, "%v", v)
				}
			})
		}
	}
}

func withSig(h http.Header, sig string) http.Header {
	h.Set("webhook-signature", sig)
	return h
}

func TestEveryExampleValidates(t *testing.T) {
	s := spec(t)
	examples, err := s.Examples()
	require.NoError(t, err)
	vs, err := s.CheckExamples()
	require.NoError(t, err)
	assert.Empty(t, vs)

	locations := map[string]bool{}
	for _, ex := range examples {
		locations[ex.Location] = true
	}
	doc := openapitest.Embedded(t)
	for _, name := range openapitest.Keys(doc.At(t, "/components/schemas")) {
		found := false
		for loc := range locations {
			if strings.HasPrefix(loc, "#/components/schemas/"+name+"/") {
				found = true
				break
			}
		}
		assert.True(t, found, "schema %s has no example", name)
	}
	// Every body an operation or a webhook sends or answers, each status's, has an example of its own.
	type located struct {
		op  *openapi.Operation
		loc string // the operation's JSON pointer
	}
	var ops []located
	for _, op := range s.Operations() {
		path := strings.ReplaceAll(strings.ReplaceAll(op.Path, "~", "~0"), "/", "~1")
		ops = append(ops, located{op, "#/paths/" + path + "/" + strings.ToLower(op.Method)})
	}
	for _, typ := range s.EventTypes() {
		op, ok := s.Webhook(typ)
		require.True(t, ok, typ)
		ops = append(ops, located{op, "#/webhooks/" + typ + "/post"})
	}
	for _, o := range ops {
		declared := doc.At(t, o.loc)
		if body := openapitest.Member(declared, "requestBody"); body != nil && len(openapitest.Keys(openapitest.Member(doc.Resolve(t, body), "content"))) > 0 {
			assert.True(t, hasExampleUnder(locations, o.loc+"/requestBody/content/"), "%s: its request body has no example", o.loc)
		}
		for code, resp := range openapitest.Members(openapitest.Member(declared, "responses")) {
			if len(openapitest.Keys(openapitest.Member(doc.Resolve(t, resp), "content"))) > 0 {
				assert.True(t, hasExampleUnder(locations, o.loc+"/responses/"+code+"/content/"), "%s: its %s answer has no example", o.loc, code)
			}
		}
	}
}

// hasExampleUnder reports whether some example's location starts with prefix.
func hasExampleUnder(locations map[string]bool, prefix string) bool {
	for loc := range locations {
		if strings.HasPrefix(loc, prefix) {
			return true
		}
	}
	return false
}

// The example check must be able to fail: a document with a wrong example is reported.
func TestCheckExamplesCatchesAWrongExample(t *testing.T) {
	broken := bytes.Replace(openapi.YAML(), []byte("      examples: [2500]\n"), []byte("      examples: [0]\n"), 1)
	require.NotEqual(t, openapi.YAML(), broken, "the replaced example must exist")
	s, err := openapi.Load(broken)
	require.NoError(t, err)
	vs, err := s.CheckExamples()
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, "#/components/schemas/PayoutAmount/examples/0", vs[0].SpecLocation)
}

func TestLoadRejectsBrokenDocuments(t *testing.T) {
	_, err := openapi.Load([]byte("openapi: 3.1.0\ninfo: [\n"))
	assert.Error(t, err)
	// The operation's own operationId (indented as an operation's), not a link's that names it.
	noID := bytes.Replace(openapi.YAML(), []byte("\n      operationId: getPayout\n"), []byte("\n      x-no-operation-id: getPayout\n"), 1)
	_, err = openapi.Load(noID)
	assert.ErrorContains(t, err, "no operationId")
}

func TestValidationIsSafeForConcurrentUse(t *testing.T) {
	// A fresh Spec: nothing has been validated with it yet, so first uses race with each other.
	s, err := openapi.Load(openapi.YAML())
	require.NoError(t, err)
	done := make(chan openapi.Violations)
	for i := 0; i < 16; i++ {
		go func(i int) {
			for _, typ := range s.EventTypes() {
				assert.NotEmpty(t, s.ValidateWebhook(typ, webhookHeader(), []byte(`{"id":"evt_1"}`)))
			}
			body := mobilePayout
			if i%2 == 1 {
				body = `{"amount":0,"countryId":"ctry_zm","transfer_to":"mobile_number"}`
			}
			var all openapi.Violations
			for j := 0; j < 20; j++ {
				all = append(all, s.ValidateRequest(request("POST", "/v1/payment/payouts/process", "application/json", body, bothKeys...))...)
			}
			done <- all
		}(i)
	}
	for i := 0; i < 16; i++ {
		vs := <-done
		if len(vs) > 0 {
			assert.Len(t, vs, 20)
			for _, v := range vs {
				assert.Equal(t, "/amount", v.Pointer)
			}
		}
	}
}

func TestViolationString(t *testing.T) {
	v := openapi.Violation{Operation: "processPayout", In: openapi.InBody, Pointer: "/amount", Message: "got number, want integer",
		SpecLocation: "#/components/schemas/PayoutAmount/type"}
	assert.Equal(t, "processPayout body /amount: got number, want integer (#/components/schemas/PayoutAmount/type)", v.String())
	h := openapi.Violation{In: openapi.InHeader, Pointer: "header.secret-key", Message: "missing"}
	assert.Equal(t, "header.secret-key: missing", h.String())
	assert.NoError(t, openapi.Violations(nil).Err())
	assert.EqualError(t, openapi.Violations{v, h}.Err(), v.String()+"; "+h.String())
}

// TestRoute: the one routing implementation (the sandbox serves with it) binds path parameters by name
// and lists the methods of a path for a 405.
func TestRoute(t *testing.T) {
	s, err := openapi.Default()
	require.NoError(t, err)
	op, params, allowed := s.Route(http.MethodPost, "/v1/webhooks/we_1/rotate-secret")
	require.NotNil(t, op)
	assert.Equal(t, "rotateWebhookEndpointSecret", op.ID)
	assert.Equal(t, map[string]string{"id": "we_1"}, params)
	assert.Nil(t, allowed)

	op, params, _ = s.Route(http.MethodGet, "/v1/countries")
	require.NotNil(t, op)
	assert.Equal(t, "listCountries", op.ID)
	assert.Nil(t, params)

	op, _, allowed = s.Route(http.MethodDelete, "/v1/countries")
	assert.Nil(t, op)
	assert.Equal(t, []string{http.MethodGet}, allowed)

	op, _, allowed = s.Route(http.MethodPut, "/v1/webhooks/we_1")
	assert.Nil(t, op)
	assert.ElementsMatch(t, []string{http.MethodGet, http.MethodPatch, http.MethodDelete}, allowed)

	op, _, allowed = s.Route(http.MethodGet, "/v1/payment/payouts/")
	assert.Nil(t, op, "an empty path parameter matches nothing")
	assert.Empty(t, allowed)
}

// The scenario header and its values, which package api writes down because the document gives them in
// prose only, are the ones the "Sandbox controls" tag describes.
func TestScenarioHeaderIsDocumented(t *testing.T) {
	desc := openapitest.Embedded(t).TagDescription(t, "Sandbox controls")
	require.NotEmpty(t, desc, "the document has a Sandbox controls tag with a description")
	assert.Contains(t, desc, "`"+api.HeaderSandboxScenario+"`")
	for _, sc := range api.SandboxScenarios() {
		assert.Contains(t, desc, "| `"+string(sc)+"`", "scenario %s is a row of the tag's table", sc)
	}
	assert.Equal(t, len(api.SandboxScenarios()), strings.Count(desc, "\n| `"), "every row of the table is a scenario package api knows")
}

// The loaded operation and the generated one agree on which statuses an operation documents.
func TestOperationDocumentsAsTheGeneratedTable(t *testing.T) {
	s := spec(t)
	for _, gen := range api.Operations() {
		op, ok := s.Operation(gen.ID)
		require.True(t, ok, gen.ID)
		for _, status := range []int{200, 201, 202, 204, 400, 401, 404, 405, 409, 413, 415, 422, 429, 500, 502} {
			assert.Equal(t, gen.Documents(status), op.Documents(status), "%s %d", gen.ID, status)
		}
	}
	op, _ := s.Operation(api.OpListCountries().ID)
	assert.False(t, op.Documents(404), "listCountries documents no 404")
	assert.True(t, op.Documents(429))
}

// The sandbox answers a scenario header it cannot play with a 400 on every operation (the "Sandbox
// controls" tag says so), so every operation must document one, or its answer would break the
// document; where the API itself has no 400 the response is the sandbox-only one.
func TestEveryOperationDocumentsTheScenarios400(t *testing.T) {
	s := spec(t)
	desc := openapitest.Embedded(t).TagDescription(t, "Sandbox controls")
	assert.Contains(t, strings.Join(strings.Fields(desc), " "),
		"A value the sandbox does not know (such as `rate-limited` for `rate_limited`) is refused on every operation with `400` (code 1000)",
		"the tag states the rule the sandbox follows")
	for _, op := range s.Operations() {
		assert.True(t, op.Documents(400), "%s documents a 400 (SandboxScenarioBadRequest if the API has none)", op.ID)
	}
	_, ok := openapitest.Embedded(t).Lookup(t, "/components/responses/SandboxScenarioBadRequest")
	assert.True(t, ok, "the sandbox-only 400 is a response component")
}

// TestUsingASpecCompilesNoLibopenapi guards the reason libModel exists: a package that uses a *Spec,
// its operations and a report's summary, without calling Model or OperationModel, compiles none of
// libopenapi's generic methods. If a field or method of Spec or Operation names a libopenapi type again,
// every such package compiles about 10,000 of them again (seconds each on a cold build).
func TestUsingASpecCompilesNoLibopenapi(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a package with the go command")
	}
	archive := filepath.Join(t.TempDir(), "probe.a")
	out, err := exec.Command("go", "build", "-o", archive, "./testdata/compileprobe").CombinedOutput()
	require.NoError(t, err, "go build ./testdata/compileprobe: %s", out)
	syms, err := exec.Command("go", "tool", "nm", archive).CombinedOutput()
	require.NoError(t, err, "go tool nm: %s", syms)
	var compiled, fromLib int
	for line := range strings.Lines(string(syms)) {
		fields := strings.Fields(line)
		if len(fields) < 3 || fields[len(fields)-2] != "T" {
			continue // not a function defined in this archive
		}
		compiled++
		if strings.Contains(fields[len(fields)-1], "pb33f") {
			fromLib++
		}
	}
	require.Positive(t, compiled, "the probe compiled no function at all: the count below proves nothing")
	assert.Zero(t, fromLib, "a package that only uses a *openapi.Spec compiled %d of libopenapi's functions "+
		"(of %d): a field or method of Spec or Operation names a libopenapi type; hide it behind `any` "+
		"and a free function as libModel explains", fromLib, compiled)
}
