package sandbox

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

func TestEveryOperationHasAHandler(t *testing.T) {
	for _, op := range testSpec(t).Operations() {
		assert.Contains(t, handlers, op.ID, "operation %s of the contract has no handler", op.ID)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
	}{
		{"empty key", WithMerchant("", "sk")},
		{"key with space", WithMerchant("pk x", "sk")},
		{"whsec secret key", WithMerchant("pk", "whsec_AAAA")},
		{"negative delay", WithTimings(Timings{PromptDelay: -1})},
		{"negative retry", WithRetrySchedule([]time.Duration{-1})},
		{"zero timeout", WithWebhookTimeout(0)},
		{"zero concurrency", WithDeliveryConcurrency(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opt)
			assert.Error(t, err)
		})
	}
	_, err := New(WithMerchant("pk", "sk1"), WithMerchant("pk", "sk2"))
	assert.ErrorContains(t, err, "two merchants")
}

func TestReferenceData(t *testing.T) {
	e := newEnv(t)
	res := e.client.do(http.MethodGet, api.OpListCountries().URL(), nil, withoutHeader("secret-key"))
	require.Equal(t, http.StatusOK, res.status)
	countries := map[string]string{}
	ids := map[string]string{}
	for _, c := range res.json(t)["data"].([]any) {
		c := c.(map[string]any)
		countries[c["country_code"].(string)] = c["currency_code"].(string)
		ids[c["country_code"].(string)] = c["id"].(string)
	}
	for code, currency := range map[string]string{"ZM": "ZMW", "GH": "GHS", "KE": "KES", "UG": "UGX", "RW": "RWF"} {
		assert.Equal(t, currency, countries[code], "country %s", code)
	}
	assert.Equal(t, "ctry_zm", ids["ZM"])

	for code := range countries {
		res := e.client.do(http.MethodGet, api.OpListBanks().URL()+"?country="+code, nil, withoutHeader("secret-key"))
		require.Equal(t, http.StatusOK, res.status)
		banks := res.json(t)["data"].([]any)
		assert.GreaterOrEqual(t, len(banks), 3, "banks of %s", code)
		for _, b := range banks {
			assert.Equal(t, code, b.(map[string]any)["country_code"])
		}
	}
	res = e.client.do(http.MethodGet, api.OpListBanks().URL()+"?country=ZM", nil)
	assert.Contains(t, string(res.body), `"bank_zm_zanaco"`)

	tests := []struct{ name, query string }{
		{"unknown country", "?country=ZZ"},
		{"malformed country", "?country=zm"},
		{"missing country", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.client.do(http.MethodGet, api.OpListBanks().URL()+tt.query, nil)
			assert.Equal(t, http.StatusBadRequest, res.status)
			assert.Equal(t, int(api.CodeValidationFailed), res.code(t))
			assert.Equal(t, []string{"query.country"}, res.fields(t))
		})
	}
}

func TestAuthentication(t *testing.T) {
	e := newEnv(t)
	payout := mobilePayout("")
	tests := []struct {
		name       string
		method     string
		path       string
		body       any
		opts       []reqOpt
		wantStatus int
		wantCode   api.ErrorCode
		wantFields []string
	}{
		{"no keys", http.MethodPost, api.OpProcessPayout().URL(), payout,
			[]reqOpt{withoutHeader("public-key"), withoutHeader("secret-key")}, 401, api.CodeMissingAPIKey, []string{"header.public-key", "header.secret-key"}},
		{"no keys and an invalid body: keys first", http.MethodPost, api.OpProcessPayout().URL(), `{"amount":"x"}`,
			[]reqOpt{withoutHeader("public-key"), withoutHeader("secret-key")}, 401, api.CodeMissingAPIKey, []string{"header.public-key", "header.secret-key"}},
		{"no secret key", http.MethodPost, api.OpProcessPayout().URL(), payout,
			[]reqOpt{withoutHeader("secret-key")}, 401, api.CodeMissingAPIKey, []string{"header.secret-key"}},
		{"no public key", http.MethodGet, api.OpListWebhookEndpoints().URL(), nil,
			[]reqOpt{withoutHeader("public-key")}, 401, api.CodeMissingAPIKey, []string{"header.public-key"}},
		{"unknown public key", http.MethodPost, api.OpProcessPayout().URL(), payout,
			[]reqOpt{withHeader("public-key", "pk_test_nobody")}, 401, api.CodeInvalidAPIKey, []string{"header.public-key"}},
		{"wrong secret key", http.MethodPost, api.OpProcessPayout().URL(), payout,
			[]reqOpt{withHeader("secret-key", "sk_test_wrong")}, 401, api.CodeInvalidAPIKey, []string{"header.secret-key"}},
		{"keys of two merchants", http.MethodGet, api.OpGetPayout().URL("po_1"), nil,
			[]reqOpt{withHeader("secret-key", otherSecretKey)}, 401, api.CodeInvalidAPIKey, []string{"header.secret-key"}},
		{"complete-payment needs only the public key", http.MethodPost, api.OpCompletePayment().URL("pay_unknown"), nil,
			[]reqOpt{withoutHeader("secret-key")}, 404, api.CodeNotFound, nil},
		{"complete-payment without public key", http.MethodPost, api.OpCompletePayment().URL("pay_unknown"), nil,
			[]reqOpt{withoutHeader("public-key")}, 401, api.CodeMissingAPIKey, []string{"header.public-key"}},
		{"countries need only the public key", http.MethodGet, api.OpListCountries().URL(), nil,
			[]reqOpt{withoutHeader("secret-key")}, 200, 0, nil},
		{"banks with a wrong public key", http.MethodGet, api.OpListBanks().URL() + "?country=ZM", nil,
			[]reqOpt{withHeader("public-key", "pk_nope")}, 401, api.CodeInvalidAPIKey, []string{"header.public-key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.client.do(tt.method, tt.path, tt.body, tt.opts...)
			assert.Equal(t, tt.wantStatus, res.status, "%s", res.body)
			assert.Equal(t, int(tt.wantCode), res.code(t))
			if tt.wantStatus >= 400 {
				assert.Equal(t, tt.wantFields, res.fields(t))
				assert.NotEmpty(t, res.json(t)["message"])
			}
		})
	}
}

func TestRequestErrors(t *testing.T) {
	e := newEnv(t)
	big := `{"amount":1,"countryId":"ctry_zm","transfer_to":"mobile_number","narration":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
	tests := []struct {
		name       string
		method     string
		path       string
		body       any
		opts       []reqOpt
		wantStatus int
		wantCode   api.ErrorCode
		wantFields []string
	}{
		{"malformed JSON", http.MethodPost, api.OpProcessPayout().URL(), `{"amount":`, nil, 400, api.CodeMalformedJSON, []string{""}},
		{"trailing garbage", http.MethodPost, api.OpProcessPayout().URL(), `{"amount":1} x`, nil, 400, api.CodeMalformedJSON, []string{""}},
		{"form body", http.MethodPost, api.OpProcessPayout().URL(), `amount=1`,
			[]reqOpt{withHeader("Content-Type", "application/x-www-form-urlencoded")}, 415, api.CodeUnsupportedMediaType, []string{"header.content-type"}},
		{"no content type", http.MethodPost, api.OpProcessPayout().URL(), `{}`,
			[]reqOpt{withoutHeader("Content-Type")}, 415, api.CodeUnsupportedMediaType, []string{"header.content-type"}},
		{"body over 1 MiB", http.MethodPost, api.OpProcessPayout().URL(), big, nil, 413, api.CodePayloadTooLarge, nil},
		{"no body", http.MethodPost, api.OpProcessPayout().URL(), nil, nil, 400, api.CodeValidationFailed, []string{""}},
		{"unknown field", http.MethodPost, api.OpProcessPayout().URL(), with(mobilePayout(""), "colour", "red"), nil, 400, api.CodeValidationFailed, []string{"/colour"}},
		{"field of the other kind", http.MethodPost, api.OpProcessPayout().URL(), with(mobilePayout(""), "bank_id", "bank_zm_zanaco"), nil, 400, api.CodeValidationFailed, []string{"/bank_id"}},
		{"bank payout without bank", http.MethodPost, api.OpProcessPayout().URL(),
			map[string]any{"amount": 0, "countryId": "ctry_zm", "transfer_to": "bank"}, nil, 400, api.CodeValidationFailed, []string{"/account_number", "/amount", "/bank_id"}},
		{"unknown transfer_to", http.MethodPost, api.OpProcessPayout().URL(), with(mobilePayout(""), "transfer_to", "cash"), nil, 400, api.CodeValidationFailed, []string{"/transfer_to"}},
		{"amount beyond int64", http.MethodPost, api.OpProcessPayout().URL(), `{"amount":1e30,"countryId":"ctry_zm","transfer_to":"mobile_number"}`, nil, 400, api.CodeValidationFailed, []string{"/amount"}},
		{"payment amount with three decimals", http.MethodPost, api.OpInitializePayment().URL(), with(paymentInit("", "https://x.example/h"), "amount", 1.005), nil, 400, api.CodeValidationFailed, []string{"/amount"}},
		{"payment without webhook_url", http.MethodPost, api.OpInitializePayment().URL(), with(paymentInit("", "https://x.example/h"), "webhook_url", ""), nil, 400, api.CodeValidationFailed, []string{"/webhook_url", "/webhook_url"}},
		{"bad path parameter", http.MethodGet, api.OpGetPayout().URL("po x"), nil, nil, 400, api.CodeValidationFailed, []string{"path.payout_id"}},
		{"idempotency key too long", http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(""),
			[]reqOpt{withIdempotencyKey(strings.Repeat("k", 256))}, 400, api.CodeValidationFailed, []string{"header.idempotency-key"}},
		{"update with empty body object", http.MethodPatch, api.OpUpdateWebhookEndpoint().URL("we_1"), `{}`, nil, 400, api.CodeValidationFailed, []string{""}},
		{"unknown path", http.MethodGet, "/v1/nothing", nil, nil, 404, api.CodeNotFound, nil},
		{"wrong method", http.MethodDelete, api.OpListCountries().URL(), nil, nil, 405, api.CodeMethodNotAllowed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.client.do(tt.method, tt.path, tt.body, tt.opts...)
			assert.Equal(t, tt.wantStatus, res.status, "%s", res.body)
			assert.Equal(t, int(tt.wantCode), res.code(t))
			assert.Equal(t, tt.wantFields, res.fields(t))
			assert.Equal(t, "application/json", res.header.Get("Content-Type"))
		})
	}
	res := e.client.do(http.MethodPut, api.OpGetWebhookEndpoint().URL("we_1"), nil)
	assert.Equal(t, "GET, PATCH, DELETE", res.header.Get("Allow"))
}
