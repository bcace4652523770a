package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// predicates are the Is* helpers, by name, for truth tables.
var predicates = map[string]func(error) bool{
	"IsNotFound": IsNotFound, "IsConflict": IsConflict, "IsUnauthorized": IsUnauthorized,
	"IsValidation": IsValidation, "IsInvalidState": IsInvalidState, "IsRateLimited": IsRateLimited,
}

// TestErrorEnvelopesBecomeAPIErrors maps each class of documented error response to *APIError: status,
// code, message, field errors, existing id, Retry-After, the Error() text, and which Is* helpers hold.
func TestErrorEnvelopesBecomeAPIErrors(t *testing.T) {
	cases := []struct {
		name     string
		method   string
		path     string
		call     func(context.Context, *Client) error
		status   int
		body     string
		header   map[string]string
		want     APIError
		wantText string
		is       []string
	}{
		{
			name: "validation failed", method: http.MethodPost, path: api.OpProcessPayout().URL(),
			call:   func(ctx context.Context, c *Client) error { _, err := c.ProcessPayout(ctx, bankPayout()); return err },
			status: 400, body: failure(api.CodeValidationFailed, "The request is invalid; see errors for each field.",
				`[{"field":"/bank_id","reason":"required for transfer_to bank"},{"field":"/amount","reason":"must be an integer of at least 1"}]`),
			want: APIError{Operation: "process payout", StatusCode: 400, Code: api.CodeValidationFailed,
				Message: "The request is invalid; see errors for each field.", Attempts: 1,
				Errors: []FieldError{{"/bank_id", "required for transfer_to bank"}, {"/amount", "must be an integer of at least 1"}}},
			wantText: "malipo: process payout: 400 validation_failed (code 1000): The request is invalid; see errors for each field.; " +
				"/bank_id: required for transfer_to bank; /amount: must be an integer of at least 1",
			is: []string{"IsValidation"},
		},
		{
			name: "malformed JSON", method: http.MethodPost, path: api.OpInitializePayment().URL(),
			call:   initPayment,
			status: 400, body: failure(api.CodeMalformedJSON, "The body is not valid JSON.", ""),
			want: APIError{Operation: "initialize payment", StatusCode: 400, Code: api.CodeMalformedJSON, Message: "The body is not valid JSON.", Attempts: 1},
			is:   []string{"IsValidation"},
		},
		{
			name: "missing key", method: http.MethodPost, path: api.OpProcessPayout().URL(),
			call:   func(ctx context.Context, c *Client) error { _, err := c.ProcessPayout(ctx, bankPayout()); return err },
			status: 401, body: failure(api.CodeMissingAPIKey, "The secret-key header is missing.", `[{"field":"header.secret-key","reason":"required header is missing"}]`),
			want: APIError{Operation: "process payout", StatusCode: 401, Code: api.CodeMissingAPIKey, Message: "The secret-key header is missing.",
				Errors: []FieldError{{"header.secret-key", "required header is missing"}}, Attempts: 1},
			is: []string{"IsUnauthorized"},
		},
		{
			name: "invalid key", method: http.MethodGet, path: api.OpListCountries().URL(),
			call:   func(ctx context.Context, c *Client) error { _, err := c.ListCountries(ctx); return err },
			status: 401, body: failure(api.CodeInvalidAPIKey, "The public key is not valid.", ""),
			want: APIError{Operation: "list countries", StatusCode: 401, Code: api.CodeInvalidAPIKey, Message: "The public key is not valid.", Attempts: 1},
			is:   []string{"IsUnauthorized"},
		},
		{
			name: "not found", method: http.MethodGet, path: api.OpGetPayout().URL("po_0000000000000000"),
			call: func(ctx context.Context, c *Client) error {
				_, err := c.GetPayout(ctx, "po_0000000000000000")
				return err
			},
			status: 404, body: failure(api.CodeNotFound, "No payout po_0000000000000000 exists for this merchant.", ""),
			want: APIError{Operation: "get payout", StatusCode: 404, Code: api.CodeNotFound,
				Message: "No payout po_0000000000000000 exists for this merchant.", Attempts: 1},
			wantText: "malipo: get payout: 404 not_found (code 3000): No payout po_0000000000000000 exists for this merchant.",
			is:       []string{"IsNotFound"},
		},
		{
			name: "idempotency key reused", method: http.MethodPost, path: api.OpProcessPayout().URL(),
			call:   func(ctx context.Context, c *Client) error { _, err := c.ProcessPayout(ctx, bankPayout()); return err },
			status: 409, body: failure(api.CodeIdempotencyKeyReused, "The Idempotency-Key was used with another body.", ""),
			want: APIError{Operation: "process payout", StatusCode: 409, Code: api.CodeIdempotencyKeyReused,
				Message: "The Idempotency-Key was used with another body.", Attempts: 1},
			is: []string{"IsConflict"},
		},
		{
			name: "duplicate reference", method: http.MethodPost, path: api.OpProcessPayout().URL(),
			call:   func(ctx context.Context, c *Client) error { _, err := c.ProcessPayout(ctx, bankPayout()); return err },
			status: 409,
			body: fmt.Sprintf(`{"status":"error","code":%d,"message":"The reference inv-88 is already used by payout po_5d1e7b3c2a9f8e40.",
				"errors":[{"field":"/reference","reason":"already used"}],"data":{"existing_id":"po_5d1e7b3c2a9f8e40"}}`, api.CodeDuplicateReference),
			want: APIError{Operation: "process payout", StatusCode: 409, Code: api.CodeDuplicateReference,
				Message: "The reference inv-88 is already used by payout po_5d1e7b3c2a9f8e40.",
				Errors:  []FieldError{{"/reference", "already used"}}, ExistingID: "po_5d1e7b3c2a9f8e40", Attempts: 1},
			wantText: "malipo: process payout: 409 duplicate_reference (code 4002): The reference inv-88 is already used by payout " +
				"po_5d1e7b3c2a9f8e40.; /reference: already used; existing id po_5d1e7b3c2a9f8e40",
			is: []string{"IsConflict"},
		},
		{
			name: "payload too large", method: http.MethodPost, path: api.OpCreateWebhookEndpoint().URL(),
			call:   createEndpoint,
			status: 413, body: failure(api.CodePayloadTooLarge, "The request body is larger than 1048576 bytes.", ""),
			want: APIError{Operation: "create webhook endpoint", StatusCode: 413, Code: api.CodePayloadTooLarge,
				Message: "The request body is larger than 1048576 bytes.", Attempts: 1},
		},
		{
			name: "unsupported media type", method: http.MethodPost, path: api.OpCreateWebhookEndpoint().URL(),
			call:   createEndpoint,
			status: 415, body: failure(api.CodeUnsupportedMediaType, "Send application/json.", `[{"field":"header.content-type","reason":"must be application/json"}]`),
			want: APIError{Operation: "create webhook endpoint", StatusCode: 415, Code: api.CodeUnsupportedMediaType, Message: "Send application/json.",
				Errors: []FieldError{{"header.content-type", "must be application/json"}}, Attempts: 1},
		},
		{
			name: "invalid state", method: http.MethodPost, path: api.OpCompletePayment().URL("pay_8f3a2c1d9b7e4a60"),
			call: func(ctx context.Context, c *Client) error {
				_, err := c.CompletePayment(ctx, "pay_8f3a2c1d9b7e4a60", PaymentCompleteRequest{})
				return err
			},
			status: 422, body: failure(api.CodeInvalidState, "Payment pay_8f3a2c1d9b7e4a60 is processing; only a pending payment can be completed.", ""),
			want: APIError{Operation: "complete payment", StatusCode: 422, Code: api.CodeInvalidState,
				Message: "Payment pay_8f3a2c1d9b7e4a60 is processing; only a pending payment can be completed.", Attempts: 1},
			is: []string{"IsInvalidState"},
		},
		{
			name: "rate limited", method: http.MethodGet, path: api.OpGetPayout().URL("po_5d1e7b3c2a9f8e40"),
			call:   getPayout,
			status: 429, body: failure(api.CodeRateLimited, "Too many requests; retry after 2 seconds.", ""), header: map[string]string{"Retry-After": "2"},
			want: APIError{Operation: "get payout", StatusCode: 429, Code: api.CodeRateLimited,
				Message: "Too many requests; retry after 2 seconds.", RetryAfter: 2 * time.Second, Attempts: 1},
			is: []string{"IsRateLimited"},
		},
		{
			name: "internal error", method: http.MethodGet, path: api.OpGetPayout().URL("po_5d1e7b3c2a9f8e40"),
			call:   getPayout,
			status: 500, body: failure(api.CodeInternalError, "An internal error occurred; retry with the same Idempotency-Key.", ""),
			want: APIError{Operation: "get payout", StatusCode: 500, Code: api.CodeInternalError,
				Message: "An internal error occurred; retry with the same Idempotency-Key.", Attempts: 1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			r := h.mock(tc.method, tc.path).Reply(tc.status).JSON(tc.body)
			for k, v := range tc.header {
				r.SetHeader(k, v)
			}
			err := tc.call(context.Background(), h.client(WithRetryPolicy(NoRetries())))
			require.Error(t, err)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, &tc.want, apiErr)
			if tc.wantText != "" {
				assert.Equal(t, tc.wantText, err.Error())
			}
			assertPredicates(t, err, tc.is...)
		})
	}
}

func assertPredicates(t *testing.T, err error, want ...string) {
	t.Helper()
	for name, is := range predicates {
		wanted := false
		for _, w := range want {
			wanted = wanted || w == name
		}
		assert.Equal(t, wanted, is(err), "%s(%v)", name, err)
	}
}

func initPayment(ctx context.Context, c *Client) error {
	_, err := c.InitializePayment(ctx, PaymentInitRequest{Currency: "ZMW", Country: "ZM", Narration: "Order 1042",
		Amount: 150.5, WebhookURL: "https://merchant.example.org/hooks/malipo"})
	return err
}

func createEndpoint(ctx context.Context, c *Client) error {
	_, err := c.CreateWebhookEndpoint(ctx, WebhookEndpointCreateRequest{URL: "https://merchant.example.org/hooks/payouts",
		Events: []EventType{api.EventTypePayoutSuccess}})
	return err
}

func getPayout(ctx context.Context, c *Client) error {
	_, err := c.GetPayout(ctx, "po_5d1e7b3c2a9f8e40")
	return err
}

// TestUnusableResponsesGiveClearErrors serves what a proxy, a crashed server or a wrong base URL
// sends instead of the contract (the validator must flag each), and checks the error says what came
// back without panicking or quoting more than ~200 bytes of it.
func TestUnusableResponsesGiveClearErrors(t *testing.T) {
	html := "<html><head><title>502 Bad Gateway</title></head><body>" + strings.Repeat("upstream unavailable ", 40) + "</body></html>"
	elsewhere := "https://api.example.org" + api.OpGetPayout().URL("po_5d1e7b3c2a9f8e40") // where a redirect points
	cases := []struct {
		name        string
		status      int
		contentType string
		body        string
		apiError    bool     // whether the error is an *APIError
		contains    []string // fragments of the error text
		is          []string
	}{
		{name: "proxy HTML page", status: 502, contentType: "text/html", body: html, apiError: true,
			contains: []string{"malipo: get payout: 502 Bad Gateway: the response is not a Malipo error envelope (text/html, ", `"<html><head><title>502 Bad Gateway`, "…"}},
		{name: "JSON that is not the envelope", status: 500, contentType: "application/json", body: `{"error":"boom"}`, apiError: true,
			contains: []string{"500 Internal Server Error: the response is not a Malipo error envelope (application/json, 16 bytes): \"{\\\"error\\\":\\\"boom\\\"}\""}},
		{name: "empty gateway response", status: 503, apiError: true,
			contains: []string{"503 Service Unavailable: the response is not a Malipo error envelope (no Content-Type, empty body)"}},
		{name: "405 is in the error table but on no operation", status: 405, contentType: "application/json",
			body: failure(api.CodeMethodNotAllowed, "GET is not allowed here.", ""), apiError: true,
			contains: []string{"405 method_not_allowed (code 3001): GET is not allowed here."}},
		{name: "truncated success body", status: 200, contentType: "application/json", body: `{"status":"success","code":0,"data":{"payout_id":`,
			contains: []string{"malipo: get payout: the 200 response is not a JSON success envelope: unexpected end of JSON input"}},
		{name: "success without data", status: 200, contentType: "application/json", body: `{"status":"success","code":0,"message":"ok"}`,
			contains: []string{"the 200 response has no data"}},
		{name: "an error inside a 200", status: 200, contentType: "application/json", body: failure(api.CodeNotFound, "No such payout.", ""), apiError: true,
			contains: []string{"malipo: get payout: 200 not_found (code 3000): No such payout."}, is: []string{"IsNotFound"}},
		{name: "a redirect", status: 301, apiError: true,
			contains: []string{`301 Moved Permanently: the service redirected to "` + elsewhere + `"; point the base URL there`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.allowOffContract(tc.status, tc.name)
			r := h.mock(http.MethodGet, api.OpGetPayout().URL("po_5d1e7b3c2a9f8e40")).Reply(tc.status).BodyString(tc.body)
			if tc.contentType != "" {
				r.SetHeader("Content-Type", tc.contentType)
			}
			if tc.status == 301 {
				r.SetHeader("Location", elsewhere)
			}
			err := getPayout(context.Background(), h.client(WithRetryPolicy(NoRetries())))
			require.Error(t, err)
			var apiErr *APIError
			assert.Equal(t, tc.apiError, errors.As(err, &apiErr), "is an *APIError: %v", err)
			if tc.apiError {
				assert.Equal(t, tc.status, apiErr.StatusCode)
			}
			for _, c := range tc.contains {
				assert.Contains(t, err.Error(), c)
			}
			assert.Less(t, len(err.Error()), 400, "a body is quoted, not dumped: %s", err)
			assertPredicates(t, err, tc.is...)
			assert.NotEmpty(t, h.flaggedResponses(), "the validator flags the off-contract response")
		})
	}
}

// TestNetworkErrorsNameTheOperation checks that transport failures are wrapped with the operation and
// keep their cause for errors.Is.
func TestNetworkErrorsNameTheOperation(t *testing.T) {
	h := newHarness(t)
	h.mock(http.MethodGet, api.OpListCountries().URL()).ReplyError(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})
	_, err := h.client(WithRetryPolicy(NoRetries())).ListCountries(context.Background())
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "malipo: list countries: "), err.Error())
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	var apiErr *APIError
	assert.NotErrorAs(t, err, &apiErr)
	assertPredicates(t, err)
}

// TestIsHelpersAgreeWithTheErrorTable checks every documented code against its documented HTTP status,
// so that a helper answers the same whichever of the two a server gets right.
func TestIsHelpersAgreeWithTheErrorTable(t *testing.T) {
	byStatus := map[int]string{400: "IsValidation", 401: "IsUnauthorized", 404: "IsNotFound", 409: "IsConflict",
		422: "IsInvalidState", 429: "IsRateLimited"}
	statuses := specErrorStatuses(t)
	for code, status := range statuses {
		want := byStatus[status]
		byCode := &APIError{Code: ErrorCode(code)}
		byHTTP := &APIError{StatusCode: status}
		for name, is := range predicates {
			assert.Equal(t, name == want, is(byCode), "%s for code %d", name, code)
			assert.Equal(t, name == want, is(byHTTP), "%s for status %d", name, status)
		}
	}
	assertPredicates(t, nil)
	assertPredicates(t, errors.New("plain"))
	assertPredicates(t, (*APIError)(nil))
}
