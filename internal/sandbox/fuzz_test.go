package sandbox

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// failingTransport makes every webhook attempt fail at once, so that fuzzed webhook_urls never
// reach the network.
type failingTransport struct{}

func (failingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("fuzzing: deliveries are not sent")
}

// FuzzHandler feeds arbitrary methods, paths, headers and bodies to the handler: it must never
// panic, never answer 5xx, and every answer must be valid against the contract (status, headers and
// body of the operation the request routes to), or the error envelope for an undeclared path.
func FuzzHandler(f *testing.F) {
	seeds := []struct {
		method, path, contentType, body string
		keys                            uint8
	}{
		{"POST", "/v1/payment/payouts/process", "application/json", `{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":"0000000001"}`, 3},
		{"POST", "/v1/payment/payouts/process", "application/json", `{"amount":120,"countryId":"ctry_zm","transfer_to":"mobile_number","momo_phone_number":"260960000002","reference":"r1"}`, 7},
		{"POST", "/v1/payment/payouts/process", "application/json", `{"amount":1e30,"countryId":"ctry_zm","transfer_to":"mobile_number"}`, 3},
		{"POST", "/v1/payment/init", "application/json", `{"currency":"ZMW","country":"ZM","narration":"n","method":"mobilemoney","amount":1.5,"webhook_url":"http://127.0.0.1:1/h","phone_number":"260970000002"}`, 3},
		{"POST", "/v1/payment/pay/pay_0123456789abcdef", "application/json", `{"phone_number":"260970000001"}`, 1},
		{"POST", "/v1/payment/pay/pay_0123456789abcdef", "", ``, 1},
		{"GET", "/v1/payment/transactions/order-1/check", "", ``, 3},
		{"GET", "/v1/payment/payouts/po_1", "", ``, 3},
		{"GET", "/v1/countries", "", ``, 1},
		{"GET", "/v1/payment/banks?country=ZM", "", ``, 1},
		{"GET", "/v1/payment/banks?country=%ZZ", "", ``, 1},
		{"POST", "/v1/webhooks", "application/json", `{"url":"http://127.0.0.1:1/h","events":["payout.success"]}`, 7},
		{"GET", "/v1/webhooks", "", ``, 3},
		{"PATCH", "/v1/webhooks/we_1", "application/json", `{"enabled":false}`, 3},
		{"DELETE", "/v1/webhooks/we_1", "", ``, 3},
		{"POST", "/v1/webhooks/we_1/rotate-secret", "application/json", `{"grace_period_seconds":0}`, 3},
		{"POST", "/v1/payment/payouts/process", "text/plain", `{`, 0},
		{"PUT", "/v1/countries", "", ``, 2},
		{"GET", "/../v1//countries/", "", ``, 1},
		{"POST", "/v1/payment/payouts/process", "application/json; charset=utf-8", `[]`, 3},
		{"POST", "/v1/payment/payouts/process", "application/json", `null`, 3},
		{"POST", "/v1/payment/payouts/process", "application/json", `{"amount":1,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_ke_kcb","account_number":"\u0000"}`, 3},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.contentType, s.body, s.keys)
	}
	srv, err := New(
		WithMerchant(DefaultPublicKey, DefaultSecretKey),
		WithMerchant(otherPublicKey, otherSecretKey),
		WithTimings(Timings{PromptDelay: time.Millisecond, PayoutDelay: time.Millisecond}),
		WithRetrySchedule(nil),
		WithHTTPClient(&http.Client{Transport: failingTransport{}}),
	)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = srv.Close() })
	spec := testSpec(f)

	f.Fuzz(func(t *testing.T, method, path, contentType, body string, keys uint8) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req, err := http.NewRequest(method, "http://sandbox.test"+path, strings.NewReader(body))
		if err != nil {
			t.Skip()
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if keys&1 != 0 {
			req.Header.Set("public-key", DefaultPublicKey)
		}
		if keys&2 != 0 {
			req.Header.Set("secret-key", DefaultSecretKey)
		}
		if keys&4 != 0 {
			req.Header.Set("Idempotency-Key", "fuzz-"+string(rune('a'+keys%26)))
		}
		if keys&8 != 0 {
			req.Header.Set("public-key", otherPublicKey)
			req.Header.Set("secret-key", otherSecretKey)
		}
		if keys&16 != 0 {
			req.Header.Set("secret-key", body) // arbitrary key material
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s (%q, %q) -> %d: %s", method, path, contentType, body, rec.Code, rec.Body.String())
		}
		resp := rec.Result()
		// Every answer must be one the contract documents for the operation, with its documented
		// headers and body; an answer to a path the contract does not declare must be the error
		// envelope (404/405 cannot be validated per operation).
		var vs openapi.Violations
		if _, ok := spec.FindOperation(req); ok {
			vs = spec.ValidateResponse(req, resp)
		} else {
			vs = checkEnvelope(resp)
		}
		if len(vs) > 0 {
			t.Fatalf("%s %s (%q, %q, keys %d) -> %d breaks the contract: %v\n%s", method, path, contentType, body, keys, rec.Code, vs, rec.Body.String())
		}
	})
}
