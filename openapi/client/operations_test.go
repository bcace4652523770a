package client

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func ptr[T any](v T) *T { return &v }

// TestOperationsHappyPath calls every operation once against a mock that answers the documented
// success; the harness validates request and response against the document. It checks the request
// the client built (method, path, headers, body) and the model it decoded.
func TestOperationsHappyPath(t *testing.T) {
	type call func(ctx context.Context, c *Client, opts ...CallOption) (any, error)
	cases := []struct {
		name     string
		opID     string
		path     string
		query    map[string]string
		status   int
		response string
		replayed bool
		call     call
		opts     []CallOption
		wantKey  string // the Idempotency-Key the caller gave; empty expects a generated one
		wantBody string // JSON; empty means no body
		check    func(t *testing.T, got any)
	}{
		{
			name: "initialize payment", opID: "initializePayment", path: api.OpInitializePayment().URL(),
			status: 201, response: success("Payment initialized", paymentPending),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.InitializePayment(ctx, PaymentInitRequest{Currency: "ZMW", Country: "ZM", Narration: "Order 1042",
					Amount: 150.5, Reference: "order-1042", PhoneNumber: inputs.approvingPhone,
					WebhookURL: "https://merchant.example.org/hooks/malipo"}, o...)
			},
			wantBody: `{"currency":"ZMW","country":"ZM","narration":"Order 1042","method":"mobilemoney","amount":150.5,
				"reference":"order-1042","phone_number":"` + inputs.approvingPhone + `","webhook_url":"https://merchant.example.org/hooks/malipo"}`,
			check: func(t *testing.T, got any) {
				assert.Equal(t, &Payment{PaymentReference: "pay_8f3a2c1d9b7e4a60", Reference: "order-1042", Status: api.PaymentStatusPending,
					Amount: 150.5, Currency: "ZMW", Country: "ZM", Method: api.PaymentMethodMobileMoney, Narration: "Order 1042",
					PhoneNumber: inputs.approvingPhone, WebhookURL: "https://merchant.example.org/hooks/malipo",
					CreatedAt: ts("2026-11-21T10:15:00Z"), UpdatedAt: ts("2026-11-21T10:15:00Z")}, got)
			},
		},
		{
			name: "complete payment with a phone number", opID: "completePayment", path: api.OpCompletePayment().URL("pay_8f3a2c1d9b7e4a60"),
			status: 202, response: success("Push prompt sent", paymentProcessing),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.CompletePayment(ctx, "pay_8f3a2c1d9b7e4a60", PaymentCompleteRequest{PhoneNumber: inputs.approvingPhone}, o...)
			},
			wantBody: `{"phone_number":"` + inputs.approvingPhone + `"}`,
			check: func(t *testing.T, got any) {
				p := got.(*Payment)
				assert.Equal(t, api.PaymentStatusProcessing, p.Status)
				assert.Equal(t, ts("2026-11-21T10:15:01Z"), p.UpdatedAt)
			},
		},
		{
			name: "complete payment without a body", opID: "completePayment", path: api.OpCompletePayment().URL("pay_8f3a2c1d9b7e4a60"),
			status: 202, response: success("Push prompt sent", paymentProcessing),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.CompletePayment(ctx, "pay_8f3a2c1d9b7e4a60", PaymentCompleteRequest{}, o...)
			},
			check: func(t *testing.T, got any) { assert.Equal(t, api.PaymentStatusProcessing, got.(*Payment).Status) },
		},
		{
			name: "transaction status", opID: "getTransactionStatus", path: api.OpGetTransactionStatus().URL("inv-88"),
			status: 200, response: success("Transaction retrieved", `{"type":"payout","id":"po_5d1e7b3c2a9f8e40","reference":"inv-88",
				"status":"failed","failure_reason":"insufficient_funds","amount":2500,"currency":"ZMW",
				"created_at":"2026-11-21T10:20:00Z","updated_at":"2026-11-21T10:20:04Z"}`),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.GetTransactionStatus(ctx, "inv-88", o...)
			},
			check: func(t *testing.T, got any) {
				assert.Equal(t, &Transaction{Type: api.TransactionTypePayout, ID: "po_5d1e7b3c2a9f8e40", Reference: "inv-88",
					Status: api.PaymentStatusFailed, FailureReason: api.FailureReasonInsufficientFunds, Amount: 2500, Currency: "ZMW",
					CreatedAt: ts("2026-11-21T10:20:00Z"), UpdatedAt: ts("2026-11-21T10:20:04Z")}, got)
				assert.True(t, got.(*Transaction).Status.Final())
			},
		},
		{
			name: "bank payout", opID: "processPayout", path: api.OpProcessPayout().URL(),
			status: 201, response: success("Payout is processing", payoutProcessing),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.ProcessPayout(ctx, bankPayout(), o...)
			},
			wantBody: `{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco",
				"account_number":"` + inputs.creditedAccount + `","narration":"Supplier invoice 88","reference":"inv-88",
				"webhook_url":"https://merchant.example.org/hooks/malipo"}`,
			check: func(t *testing.T, got any) {
				assert.Equal(t, &Payout{PayoutID: "po_5d1e7b3c2a9f8e40", Reference: "inv-88", Amount: 2500, Currency: "ZMW",
					CountryID: "ctry_zm", TransferTo: api.TransferToBank, BankID: "bank_zm_zanaco", AccountNumber: ptr(inputs.creditedAccount),
					Status: api.PayoutStatusProcessing, CreatedAt: ts("2026-11-21T10:20:00Z"), UpdatedAt: ts("2026-11-21T10:20:00Z")}, got)
			},
		},
		{
			name: "mobile payout to the merchant's own wallet, replayed, with the caller's key", opID: "processPayout",
			path: api.OpProcessPayout().URL(), status: 201, replayed: true,
			response: success("Payout is processing", payoutFailed),
			opts:     []CallOption{WithIdempotencyKey("payout-2026-11-21-0001")},
			wantKey:  "payout-2026-11-21-0001",
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.ProcessPayout(ctx, &MobilePayout{Amount: 4500, CountryID: "ctry_zm"}, o...)
			},
			wantBody: `{"amount":4500,"countryId":"ctry_zm","transfer_to":"mobile_number"}`,
			check: func(t *testing.T, got any) {
				p := got.(*Payout)
				assert.Equal(t, api.TransferToMobileNumber, p.TransferTo)
				assert.Equal(t, api.FailureReasonAccountNotFound, p.FailureReason)
				assert.True(t, p.Status.Final())
			},
		},
		{
			name: "get payout", opID: "getPayout", path: api.OpGetPayout().URL("po_9a8b7c6d5e4f3a20"),
			status: 200, response: success("Payout retrieved", payoutFailed),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.GetPayout(ctx, "po_9a8b7c6d5e4f3a20", o...)
			},
			check: func(t *testing.T, got any) {
				p := got.(*Payout)
				assert.Equal(t, inputs.missingWallet, p.MomoPhoneNumber)
				assert.Equal(t, api.PayoutStatusFailed, p.Status)
			},
		},
		{
			name: "list countries", opID: "listCountries", path: api.OpListCountries().URL(),
			status: 200, response: success("Countries retrieved", `[{"id":"ctry_zm","name":"Zambia","country_code":"ZM","currency_code":"ZMW"},
				{"id":"ctry_gh","name":"Ghana","country_code":"GH","currency_code":"GHS"}]`),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) { return c.ListCountries(ctx, o...) },
			check: func(t *testing.T, got any) {
				assert.Equal(t, []Country{{ID: "ctry_zm", Name: "Zambia", CountryCode: "ZM", CurrencyCode: "ZMW"},
					{ID: "ctry_gh", Name: "Ghana", CountryCode: "GH", CurrencyCode: "GHS"}}, got)
			},
		},
		{
			name: "list banks", opID: "listBanks", path: api.OpListBanks().URL(), query: map[string]string{"country": "ZM"},
			status: 200, response: success("Banks retrieved", `[{"id":"bank_zm_zanaco","name":"Zambia National Commercial Bank","country_code":"ZM"}]`),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.ListBanks(ctx, "ZM", o...)
			},
			check: func(t *testing.T, got any) {
				assert.Equal(t, []Bank{{ID: "bank_zm_zanaco", Name: "Zambia National Commercial Bank", CountryCode: "ZM"}}, got)
			},
		},
		{
			name: "create webhook endpoint", opID: "createWebhookEndpoint", path: api.OpCreateWebhookEndpoint().URL(),
			status: 201, response: success("Webhook endpoint created", endpointWithSecret),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.CreateWebhookEndpoint(ctx, WebhookEndpointCreateRequest{URL: "https://merchant.example.org/hooks/payouts",
					Events: []EventType{api.EventTypePayoutSuccess, api.EventTypePayoutFailed}, Description: ptr("Finance"), Enabled: ptr(false)}, o...)
			},
			wantBody: `{"url":"https://merchant.example.org/hooks/payouts","events":["payout.success","payout.failed"],
				"description":"Finance","enabled":false}`,
			check: func(t *testing.T, got any) {
				e := got.(*WebhookEndpointWithSecret)
				assert.Equal(t, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", e.Secret)
				assert.Equal(t, "we_2b7c9d1e4f6a8b30", e.ID)
				assert.Nil(t, e.PreviousSecretExpiresAt)
			},
		},
		{
			name: "list webhook endpoints", opID: "listWebhookEndpoints", path: api.OpListWebhookEndpoints().URL(),
			status: 200, response: success("Webhook endpoints retrieved", "["+endpoint+"]"),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.ListWebhookEndpoints(ctx, o...)
			},
			check: func(t *testing.T, got any) {
				require.Len(t, got, 1)
				assert.Equal(t, []EventType{api.EventTypePayoutSuccess, api.EventTypePayoutFailed}, got.([]WebhookEndpoint)[0].Events)
			},
		},
		{
			name: "get webhook endpoint", opID: "getWebhookEndpoint", path: api.OpGetWebhookEndpoint().URL("we_2b7c9d1e4f6a8b30"),
			status: 200, response: success("Webhook endpoint retrieved", endpoint),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.GetWebhookEndpoint(ctx, "we_2b7c9d1e4f6a8b30", o...)
			},
			check: func(t *testing.T, got any) {
				assert.Equal(t, &WebhookEndpoint{ID: "we_2b7c9d1e4f6a8b30", URL: "https://merchant.example.org/hooks/payouts",
					Events: []EventType{api.EventTypePayoutSuccess, api.EventTypePayoutFailed}, Description: ptr("Finance"), Enabled: true,
					CreatedAt: ts("2026-11-21T10:15:00Z"), UpdatedAt: ts("2026-11-21T10:15:00Z")}, got)
			},
		},
		{
			name: "update webhook endpoint sends only the set fields", opID: "updateWebhookEndpoint", path: api.OpUpdateWebhookEndpoint().URL("we_2b7c9d1e4f6a8b30"),
			status: 200, response: success("Webhook endpoint updated", endpoint),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.UpdateWebhookEndpoint(ctx, "we_2b7c9d1e4f6a8b30", WebhookEndpointUpdateRequest{Enabled: ptr(false), Description: ptr("")}, o...)
			},
			wantBody: `{"enabled":false,"description":""}`,
			check:    func(t *testing.T, got any) { assert.Equal(t, "we_2b7c9d1e4f6a8b30", got.(*WebhookEndpoint).ID) },
		},
		{
			name: "delete webhook endpoint", opID: "deleteWebhookEndpoint", path: api.OpDeleteWebhookEndpoint().URL("we_2b7c9d1e4f6a8b30"), status: 204,
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return nil, c.DeleteWebhookEndpoint(ctx, "we_2b7c9d1e4f6a8b30", o...)
			},
			check: func(*testing.T, any) {},
		},
		{
			name: "rotate webhook endpoint secret", opID: "rotateWebhookEndpointSecret", path: api.OpRotateWebhookEndpointSecret().URL("we_2b7c9d1e4f6a8b30"),
			status: 200, response: success("Webhook endpoint secret rotated", endpointRotated),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.RotateWebhookEndpointSecret(ctx, "we_2b7c9d1e4f6a8b30", RotateSecretRequest{GracePeriodSeconds: ptr(int64(3600))}, o...)
			},
			wantBody: `{"grace_period_seconds":3600}`,
			check: func(t *testing.T, got any) {
				e := got.(*WebhookEndpointWithSecret)
				require.NotNil(t, e.PreviousSecretExpiresAt)
				assert.Equal(t, ts("2026-11-21T11:15:00Z"), *e.PreviousSecretExpiresAt)
			},
		},
		{
			name: "rotate webhook endpoint secret with the default grace period", opID: "rotateWebhookEndpointSecret",
			path: api.OpRotateWebhookEndpointSecret().URL("we_2b7c9d1e4f6a8b30"), status: 200, response: success("Webhook endpoint secret rotated", endpointRotated),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.RotateWebhookEndpointSecret(ctx, "we_2b7c9d1e4f6a8b30", RotateSecretRequest{}, o...)
			},
			check: func(t *testing.T, got any) { assert.NotEmpty(t, got.(*WebhookEndpointWithSecret).Secret) },
		},
		{
			name: "settle a payout now (sandbox)", opID: "settleSandboxPayout", path: api.OpSettleSandboxPayout().URL("po_9a8b7c6d5e4f3a20"),
			status: 200, response: success("Payout settled", payoutFailed),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.SettleSandboxPayout(ctx, "po_9a8b7c6d5e4f3a20", SandboxSettleRequest{Status: api.PaymentStatusFailed, FailureReason: api.FailureReasonAccountNotFound}, o...)
			},
			wantBody: `{"status":"failed","failure_reason":"account_not_found"}`,
			check: func(t *testing.T, got any) {
				assert.Equal(t, api.FailureReasonAccountNotFound, got.(*Payout).FailureReason)
			},
		},
		{
			name: "settle a payment now (sandbox)", opID: "settleSandboxPayment", path: api.OpSettleSandboxPayment().URL("pay_8f3a2c1d9b7e4a60"),
			status: 200, response: success("Payment settled", paymentProcessing),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.SettleSandboxPayment(ctx, "pay_8f3a2c1d9b7e4a60", SandboxSettleRequest{Status: api.PaymentStatusSuccess}, o...)
			},
			wantBody: `{"status":"success"}`,
			check:    func(t *testing.T, got any) { assert.Equal(t, "pay_8f3a2c1d9b7e4a60", got.(*Payment).PaymentReference) },
		},
		{
			name: "make deliveries to a URL fail (sandbox)", opID: "createSandboxDeliveryFailure", path: api.OpCreateSandboxDeliveryFailure().URL(),
			status: 201, response: success("Deliveries to the URL fail until expires_at", deliveryFailure),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.CreateSandboxDeliveryFailure(ctx, SandboxDeliveryFailureRequest{URL: "https://merchant.example.org/hooks/malipo", DurationSeconds: ptr(int64(120))}, o...)
			},
			wantBody: `{"url":"https://merchant.example.org/hooks/malipo","duration_seconds":120}`,
			check:    func(t *testing.T, got any) { assert.Equal(t, int64(503), got.(*SandboxDeliveryFailure).StatusCode) },
		},
		{
			name: "list delivery failures (sandbox)", opID: "listSandboxDeliveryFailures", path: api.OpListSandboxDeliveryFailures().URL(),
			status: 200, response: success("Delivery failures retrieved", "["+deliveryFailure+"]"),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.ListSandboxDeliveryFailures(ctx, o...)
			},
			check: func(t *testing.T, got any) { assert.Len(t, got.([]SandboxDeliveryFailure), 1) },
		},
		{
			name: "end a delivery failure (sandbox)", opID: "deleteSandboxDeliveryFailure", path: api.OpDeleteSandboxDeliveryFailure().URL("df_4c2e8a6b1d3f5e70"), status: 204,
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return nil, c.DeleteSandboxDeliveryFailure(ctx, "df_4c2e8a6b1d3f5e70", o...)
			},
			check: func(*testing.T, any) {},
		},
		{
			name: "list events with every filter", opID: "listEvents", path: api.OpListEvents().URL(),
			query: map[string]string{"type": "payout.success", "object_id": "po_5d1e7b3c2a9f8e40", "created_after": "2026-11-21T00:00:00Z",
				"created_before": "2026-11-22T00:00:00Z", "limit": "10", "cursor": "c_4a1"},
			status: 200, response: success("Events retrieved", `{"items":[`+eventPayoutSuccess+`],"has_more":true,"next_cursor":"c_3f"}`),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.ListEvents(ctx, ListEventsParams{Type: api.EventTypePayoutSuccess, ObjectID: "po_5d1e7b3c2a9f8e40",
					CreatedAfter: ts("2026-11-21T00:00:00Z"), CreatedBefore: ts("2026-11-22T00:00:00Z"), Limit: 10, Cursor: "c_4a1"}, o...)
			},
			check: func(t *testing.T, got any) {
				page := got.(*EventPage)
				require.Len(t, page.Items, 1)
				assert.True(t, page.HasMore)
				assert.Equal(t, "c_3f", page.NextCursor)
				assert.Equal(t, "evt_6f8b0d2e4a5c7b90", page.Items[0].ID)
				var body PayoutEvent
				require.NoError(t, json.Unmarshal(page.Items[0].Payload, &body))
				assert.Equal(t, "po_5d1e7b3c2a9f8e40", body.Data.Object.PayoutID)
			},
		},
		{
			name: "get event", opID: "getEvent", path: api.OpGetEvent().URL("evt_6f8b0d2e4a5c7b90"),
			status: 200, response: success("Event retrieved", eventPayoutSuccess),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.GetEvent(ctx, "evt_6f8b0d2e4a5c7b90", o...)
			},
			check: func(t *testing.T, got any) {
				e := got.(*Event)
				assert.Equal(t, api.EventTypePayoutSuccess, e.Type)
				assert.Equal(t, "po_5d1e7b3c2a9f8e40", e.ObjectID)
				assert.Contains(t, string(e.Payload), `"previous_status":"processing"`)
			},
		},
		{
			name: "list event attempts", opID: "listEventAttempts", path: api.OpListEventAttempts().URL("evt_6f8b0d2e4a5c7b90"),
			status: 200, response: success("Delivery attempts retrieved", `[{"destination":{"kind":"webhook_url","url":"https://merchant.example.org/hooks/malipo"},
				"number":1,"resend":false,"started_at":"2026-11-21T10:20:05Z","duration_ms":212,"status_code":500,
				"response_body":"{\"error\":\"down\"}","delivered":false,"final":false}]`),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.ListEventAttempts(ctx, "evt_6f8b0d2e4a5c7b90", o...)
			},
			check: func(t *testing.T, got any) {
				as := got.([]DeliveryAttempt)
				require.Len(t, as, 1)
				assert.Equal(t, api.DeliveryDestinationKindWebhookURL, as[0].Destination.Kind)
				require.NotNil(t, as[0].StatusCode)
				assert.Equal(t, int64(500), *as[0].StatusCode)
				assert.JSONEq(t, `{"error":"down"}`, as[0].ResponseBody)
			},
		},
		{
			name: "resend event to one endpoint", opID: "resendEvent", path: api.OpResendEvent().URL("evt_6f8b0d2e4a5c7b90"),
			status: 202, response: success("Event resend queued", `{"event_id":"evt_6f8b0d2e4a5c7b90","deliveries":[{"kind":"endpoint",
				"url":"https://merchant.example.org/hooks/payouts","endpoint_id":"we_2b7c9d1e4f6a8b30"}]}`),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.ResendEvent(ctx, "evt_6f8b0d2e4a5c7b90", ResendEventRequest{EndpointID: "we_2b7c9d1e4f6a8b30"}, o...)
			},
			wantBody: `{"endpoint_id":"we_2b7c9d1e4f6a8b30"}`,
			check: func(t *testing.T, got any) {
				r := got.(*EventResend)
				require.Len(t, r.Deliveries, 1)
				assert.Equal(t, "we_2b7c9d1e4f6a8b30", r.Deliveries[0].EndpointID)
			},
		},
		{
			name: "resend event everywhere", opID: "resendEvent", path: api.OpResendEvent().URL("evt_6f8b0d2e4a5c7b90"),
			status: 202, response: success("Event resend queued", `{"event_id":"evt_6f8b0d2e4a5c7b90","deliveries":[]}`),
			call: func(ctx context.Context, c *Client, o ...CallOption) (any, error) {
				return c.ResendEvent(ctx, "evt_6f8b0d2e4a5c7b90", ResendEventRequest{}, o...)
			},
			check: func(t *testing.T, got any) { assert.Empty(t, got.(*EventResend).Deliveries) },
		},
	}

	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.opID] = true
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			op := opByID(t, tc.opID)
			m := h.mock(op.Method, tc.path)
			for k, v := range tc.query {
				m.MatchParam(k, "^"+v+"$")
			}
			r := m.Reply(tc.status)
			if tc.response != "" {
				r.JSON(tc.response)
			}
			if tc.replayed {
				r.SetHeader("Idempotent-Replayed", "true")
			}
			var meta Meta
			got, err := tc.call(context.Background(), h.client(), append(tc.opts, WithMeta(&meta))...)
			require.NoError(t, err)
			tc.check(t, got)

			reqs := h.requests()
			require.Len(t, reqs, 1, "one logical call, one request")
			req := reqs[0]
			assert.Equal(t, op.Method, req.method)
			assert.Equal(t, tc.path, req.path)
			assert.Equal(t, testPublicKey, req.header.Get("public-key"), "public-key is sent on every operation")
			if op.Needs(api.HeaderSecretKey) {
				assert.Equal(t, testSecretKey, req.header.Get("secret-key"))
			} else {
				assert.Empty(t, req.header.Values("secret-key"), "%s must not send the secret key", op.ID)
			}
			assert.Equal(t, DefaultUserAgent, req.header.Get("User-Agent"))
			assert.Equal(t, "application/json", req.header.Get("Accept"))
			key := req.header.Get("Idempotency-Key")
			if op.Method == http.MethodPost {
				assert.Equal(t, key, meta.IdempotencyKey)
				if tc.wantKey != "" {
					assert.Equal(t, tc.wantKey, key)
				} else {
					assert.Regexp(t, uuidV4, key, "a POST carries a generated key")
				}
			} else {
				assert.Empty(t, key, "only POSTs carry an Idempotency-Key")
			}
			if tc.wantBody == "" {
				assert.Empty(t, req.body)
				assert.Empty(t, req.header.Get("Content-Type"))
			} else {
				assert.JSONEq(t, tc.wantBody, string(req.body))
				assert.Equal(t, "application/json", req.header.Get("Content-Type"))
			}
			assert.Equal(t, tc.status, meta.StatusCode)
			assert.Equal(t, 1, meta.Attempts)
			assert.Equal(t, tc.replayed, meta.Replayed)
		})
	}
	for _, op := range api.Operations() {
		assert.True(t, covered[op.ID], "operation %s has no happy-path case", op.ID)
	}
}

func opByID(t *testing.T, id string) api.Operation {
	t.Helper()
	op, ok := api.OperationByID(id)
	require.True(t, ok, "the document has no operation %q", id)
	return op
}

// TestCompletePaymentNeverSendsTheSecretKey pins the seed's rule (complete-payment lists only
// public-key) on a client that has a secret key, and shows a client without one can still call it.
func TestCompletePaymentNeverSendsTheSecretKey(t *testing.T) {
	h := newHarness(t)
	h.mock(http.MethodPost, api.OpCompletePayment().URL("pay_8f3a2c1d9b7e4a60")).Reply(202).JSON(success("Push prompt sent", paymentProcessing))
	h.mock(http.MethodPost, api.OpCompletePayment().URL("pay_8f3a2c1d9b7e4a60")).Reply(202).JSON(success("Push prompt sent", paymentProcessing))

	_, err := h.client().CompletePayment(context.Background(), "pay_8f3a2c1d9b7e4a60", PaymentCompleteRequest{})
	require.NoError(t, err)
	publicOnly, err := New(testBase, testPublicKey, "", WithHTTPClient(h.hc))
	require.NoError(t, err)
	_, err = publicOnly.CompletePayment(context.Background(), "pay_8f3a2c1d9b7e4a60", PaymentCompleteRequest{})
	require.NoError(t, err)

	for _, r := range h.requests() {
		assert.NotContains(t, r.header, http.CanonicalHeaderKey("secret-key"))
	}
	_, err = publicOnly.ProcessPayout(context.Background(), bankPayout())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "needs the secret key")
	assert.Len(t, h.requests(), 2, "nothing is sent without the secret key an operation needs")
}
