package contracttests

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
)

// Reference data and protocol-level errors: malformed bodies, content types, sizes, routes, and
// reference ids that do not exist.

func referenceChecks() []*Check {
	return []*Check{
		{ID: "reference.countries", Category: CategoryReference, Covers: []string{"listCountries"},
			Doc: "GET /v1/countries lists at least one country with id, name, country_code and currency_code",
			Run: func(t *T) {
				ex := t.Do(http.MethodGet, "/v1/countries", nil)
				t.RequireStatus(ex, http.StatusOK)
				if list, _ := ex.Get("/data").([]any); len(list) == 0 {
					t.Errorf("no country listed; payouts need at least one")
				}
			}},
		{ID: "reference.banks", Category: CategoryReference, Covers: []string{"listCountries", "listBanks"},
			Doc: "every listed country has banks, and each bank belongs to the country asked for",
			Run: func(t *T) {
				countries, _ := t.Do(http.MethodGet, "/v1/countries", nil).Get("/data").([]any)
				for _, c := range countries {
					code, _ := c.(map[string]any)["country_code"].(string)
					ex := t.Do(http.MethodGet, "/v1/payment/banks?country="+code, nil)
					if !t.ExpectStatus(ex, http.StatusOK) {
						continue
					}
					banks, _ := ex.Get("/data").([]any)
					if len(banks) == 0 {
						t.Errorf("country %s has no bank", code)
					}
					for _, b := range banks {
						if got, _ := b.(map[string]any)["country_code"].(string); got != code {
							t.Errorf("GET /v1/payment/banks?country=%s returned a bank of %q", code, got)
						}
					}
				}
			}},
		{ID: "reference.banks.unknown-country", Category: CategoryReference, Covers: []string{"listBanks"},
			Doc: "banks of an unknown country code are rejected with 400 naming query.country",
			Run: func(t *T) {
				t.ExpectError(t.Do(http.MethodGet, "/v1/payment/banks?country=QQ", nil), http.StatusBadRequest, 1000, "query.country")
			}},
		{ID: "reference.banks.missing-country", Category: CategoryReference, Covers: []string{"listBanks"},
			Doc: "banks without ?country= are rejected with 400 naming query.country",
			Run: func(t *T) {
				t.ExpectError(t.Do(http.MethodGet, "/v1/payment/banks", nil), http.StatusBadRequest, 1000, "query.country")
			}},
	}
}

// protocolTarget is an operation with a JSON body, for malformed-body checks.
type protocolTarget struct {
	op, method, path string
	extension        bool
}

var protocolTargets = []protocolTarget{
	{"initializePayment", http.MethodPost, "/v1/payment/init", false},
	{"completePayment", http.MethodPost, "/v1/payment/pay/conform-unknown-id", false},
	{"processPayout", http.MethodPost, "/v1/payment/payouts/process", false},
	{"createWebhookEndpoint", http.MethodPost, "/v1/webhooks", true},
	{"updateWebhookEndpoint", http.MethodPatch, "/v1/webhooks/conform-unknown-id", true},
	{"rotateWebhookEndpointSecret", http.MethodPost, "/v1/webhooks/conform-unknown-id/rotate-secret", true},
}

func protocolChecks() []*Check {
	var checks []*Check
	for _, p := range protocolTargets {
		checks = append(checks,
			&Check{ID: "negative." + p.op + ".malformed-json", Category: CategoryNegative, Covers: []string{p.op}, Extension: p.extension,
				Doc: p.op + " with a body that is not JSON is rejected with 400 (code 1001)",
				Run: func(t *T) {
					t.ExpectError(t.Do(p.method, p.path, nil, WithRawBody("application/json", []byte(`{"amount": 1,`))), http.StatusBadRequest, 1001)
				}},
			&Check{ID: "negative." + p.op + ".wrong-content-type", Category: CategoryNegative, Covers: []string{p.op}, Extension: p.extension,
				Doc: p.op + " with a form-encoded body is rejected with 415 (code 1002)",
				Run: func(t *T) {
					t.ExpectError(t.Do(p.method, p.path, nil, WithRawBody("application/x-www-form-urlencoded", []byte("amount=1"))),
						http.StatusUnsupportedMediaType, 1002, "header.content-type")
				}})
	}
	checks = append(checks,
		&Check{ID: "negative.processPayout.body-too-large", Category: CategoryNegative, Covers: []string{"processPayout"},
			Doc: "a body over 1 MiB is rejected with 413 (code 1003)",
			Run: func(t *T) {
				big := []byte(`{"narration":"` + strings.Repeat("a", 1<<20+10) + `"}`)
				t.ExpectError(t.Do(http.MethodPost, "/v1/payment/payouts/process", nil, WithRawBody("application/json", big)),
					http.StatusRequestEntityTooLarge, 1003)
			}},
		&Check{ID: "negative.unknown-path", Category: CategoryNegative,
			Doc: "a path the spec does not document answers 404 with the error envelope (code 3000)",
			Run: func(t *T) {
				t.ExpectError(t.Do(http.MethodGet, "/v1/conform-no-such-path", nil), http.StatusNotFound, 3000)
			}},
		&Check{ID: "negative.unknown-method", Category: CategoryNegative, Covers: []string{"listCountries"},
			Doc: "a method the spec does not document on a known path answers 405 with the error envelope (code 3001)",
			Run: func(t *T) {
				t.ExpectError(t.Do(http.MethodDelete, "/v1/countries", nil), http.StatusMethodNotAllowed, 3001)
			}},
		&Check{ID: "negative.processPayout.unknown-country", Category: CategoryNegative, Covers: []string{"processPayout"},
			Doc: "a payout to a countryId that does not exist is rejected with 400 naming /countryId",
			Run: func(t *T) {
				b := t.MobilePayout("", "")
				b["countryId"] = "conform-no-such-country"
				t.ExpectError(t.Do(http.MethodPost, "/v1/payment/payouts/process", b), http.StatusBadRequest, 1000, "/countryId")
			}},
		&Check{ID: "negative.processPayout.unknown-bank", Category: CategoryNegative, Covers: []string{"processPayout"},
			Doc: "a bank payout to a bank_id that does not exist is rejected with 400 naming /bank_id",
			Run: func(t *T) {
				b := t.BankPayout("0000000001", "")
				b["bank_id"] = "conform-no-such-bank"
				t.ExpectError(t.Do(http.MethodPost, "/v1/payment/payouts/process", b), http.StatusBadRequest, 1000, "/bank_id")
			}},
		&Check{ID: "negative.processPayout.bank-of-other-country", Category: CategoryNegative, Covers: []string{"processPayout"},
			Doc: "a bank payout to a bank of another country is rejected with 400 naming /bank_id",
			Run: func(t *T) {
				rd := t.RefData()
				if rd.OtherBankID == "" {
					t.Skip("the target lists banks of one country only")
				}
				b := t.BankPayout("0000000001", "")
				b["bank_id"] = rd.OtherBankID
				t.ExpectError(t.Do(http.MethodPost, "/v1/payment/payouts/process", b), http.StatusBadRequest, 1000, "/bank_id")
			}},
		&Check{ID: "negative.initializePayment.unknown-country", Category: CategoryNegative, Covers: []string{"initializePayment"},
			Doc: "a payment in a country the service does not support is rejected with 400 naming /country",
			Run: func(t *T) {
				rd := t.RefData()
				_, hook := t.Hook()
				body := map[string]any{"currency": rd.Currency, "country": "QQ", "narration": "conform", "method": "mobilemoney",
					"amount": 1, "webhook_url": hook}
				t.ExpectError(t.Do(http.MethodPost, "/v1/payment/init", body), http.StatusBadRequest, 1000, "/country")
			}},
	)
	for _, nf := range []struct{ op, method, path string }{
		{"getPayout", http.MethodGet, "/v1/payment/payouts/conform-unknown-id"},
		{"getTransactionStatus", http.MethodGet, "/v1/payment/transactions/conform-unknown-id/check"},
		{"completePayment", http.MethodPost, "/v1/payment/pay/conform-unknown-id"},
	} {
		checks = append(checks, &Check{ID: "negative." + nf.op + ".not-found", Category: CategoryNegative, Covers: []string{nf.op},
			Doc: fmt.Sprintf("%s of an id that does not exist answers 404 (code 3000)", nf.op),
			Run: func(t *T) {
				var opts []ReqOption
				if nf.method == http.MethodPost {
					opts = append(opts, WithRawBody("application/json", bytes.TrimSpace([]byte(`{"phone_number":"260970000001"}`))))
				}
				t.ExpectError(t.Do(nf.method, nf.path, nil, opts...), http.StatusNotFound, 3000)
			}})
	}
	return checks
}
