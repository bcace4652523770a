package sandbox

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// failingTransport makes every webhook attempt fail at once, so that fuzzed webhook_urls never
// reach the network.
type failingTransport struct{}

func (failingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("fuzzing: deliveries are not sent")
}

// FuzzHandler feeds arbitrary methods, paths, headers and bodies to the handler: it must never
// panic and never answer 5xx, and every answer except 204 must be a JSON envelope.
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
		if rec.Code == http.StatusNoContent {
			return
		}
		var env struct {
			Status string `json:"status"`
			Code   *int   `json:"code"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Code == nil || (env.Status != "success" && env.Status != "error") {
			t.Fatalf("%s %s -> %d is not an envelope: %s", method, path, rec.Code, rec.Body.String())
		}
	})
}
