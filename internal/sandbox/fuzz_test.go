package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
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
	payouts, initialize := api.OpProcessPayout().URL(), api.OpInitializePayment().URL()
	complete := api.OpCompletePayment().URL("pay_0123456789abcdef")
	endpoint := api.OpGetWebhookEndpoint().URL("we_1")
	banks := api.OpListBanks().URL()
	seeds := []struct {
		method, path, contentType, body string
		keys                            uint8
	}{
		{"POST", payouts, "application/json", fmt.Sprintf(`{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":%q}`, creditedAccount(f)), 3},
		{"POST", payouts, "application/json", fmt.Sprintf(`{"amount":120,"countryId":"ctry_zm","transfer_to":"mobile_number","momo_phone_number":%q,"reference":"r1"}`, walletTestValue(f, api.PayoutStatusFailed).MomoPhoneNumber), 7},
		{"POST", payouts, "application/json", `{"amount":1e30,"countryId":"ctry_zm","transfer_to":"mobile_number"}`, 3},
		{"POST", initialize, "application/json", fmt.Sprintf(`{"currency":"ZMW","country":"ZM","narration":"n","method":"mobilemoney","amount":1.5,"webhook_url":"http://127.0.0.1:1/h","phone_number":%q}`, paymentTestValue(f, api.PaymentStatusFailed).PhoneNumber), 3},
		{"POST", complete, "application/json", fmt.Sprintf(`{"phone_number":%q}`, approvingPhone(f)), 1},
		{"POST", complete, "", ``, 1},
		{"GET", api.OpGetTransactionStatus().URL("order-1"), "", ``, 3},
		{"GET", api.OpGetPayout().URL("po_1"), "", ``, 3},
		{"GET", api.OpListCountries().URL(), "", ``, 1},
		{"GET", banks + "?country=ZM", "", ``, 1},
		{"GET", banks + "?country=%ZZ", "", ``, 1},
		{"POST", api.OpCreateWebhookEndpoint().URL(), "application/json", `{"url":"http://127.0.0.1:1/h","events":["payout.success"]}`, 7},
		{"GET", api.OpListWebhookEndpoints().URL(), "", ``, 3},
		{"PATCH", endpoint, "application/json", `{"enabled":false}`, 3},
		{"DELETE", endpoint, "", ``, 3},
		{"POST", api.OpRotateWebhookEndpointSecret().URL("we_1"), "application/json", `{"grace_period_seconds":0}`, 3},
		{"POST", payouts, "text/plain", `{`, 0},
		{"PUT", api.OpListCountries().URL(), "", ``, 2},
		{"GET", "/../v1//countries/", "", ``, 1},
		{"POST", payouts, "application/json; charset=utf-8", `[]`, 3},
		{"POST", payouts, "application/json", `null`, 3},
		{"POST", payouts, "application/json", `{"amount":1,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_ke_kcb","account_number":"\u0000"}`, 3},
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
