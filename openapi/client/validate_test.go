package client

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// TestCertainlyInvalidRequestsAreNotSent checks the cheap client-side checks: each returns an
// *InvalidRequestError naming the fields in the service's notation, IsValidation holds, and nothing
// reaches the network (the harness fails on any request, as no mock is registered).
func TestCertainlyInvalidRequestsAreNotSent(t *testing.T) {
	ctx := context.Background()
	okInit := PaymentInitRequest{Currency: "ZMW", Country: "ZM", Narration: "Order", Amount: 1, WebhookURL: "https://m.example.org/h"}
	cases := []struct {
		name   string
		call   func(c *Client) error
		fields []string
	}{
		{"empty payment", func(c *Client) error { _, err := c.InitializePayment(ctx, PaymentInitRequest{}); return err },
			[]string{"/currency", "/country", "/narration", "/webhook_url", "/amount"}},
		{"payment amount with three decimals", func(c *Client) error {
			r := okInit
			r.Amount = 10.005
			_, err := c.InitializePayment(ctx, r)
			return err
		}, []string{"/amount"}},
		{"payment amount NaN", func(c *Client) error {
			r := okInit
			r.Amount = math.NaN()
			_, err := c.InitializePayment(ctx, r)
			return err
		}, []string{"/amount"}},
		{"negative payment amount", func(c *Client) error {
			r := okInit
			r.Amount = -5
			_, err := c.InitializePayment(ctx, r)
			return err
		}, []string{"/amount"}},
		{"unknown payment method", func(c *Client) error {
			r := okInit
			r.Method = "card"
			_, err := c.InitializePayment(ctx, r)
			return err
		}, []string{"/method"}},
		{"nil payout", func(c *Client) error { _, err := c.ProcessPayout(ctx, nil); return err }, []string{""}},
		{"nil *BankPayout", func(c *Client) error { _, err := c.ProcessPayout(ctx, (*BankPayout)(nil)); return err }, []string{""}},
		{"nil *MobilePayout", func(c *Client) error { _, err := c.ProcessPayout(ctx, (*MobilePayout)(nil)); return err }, []string{""}},
		{"empty bank payout", func(c *Client) error { _, err := c.ProcessPayout(ctx, BankPayout{}); return err },
			[]string{"/amount", "/countryId", "/bank_id", "/account_number"}},
		{"bank payout that says it is a mobile one", func(c *Client) error {
			p := bankPayout()
			p.TransferTo = api.TransferToMobileNumber
			_, err := c.ProcessPayout(ctx, p)
			return err
		}, []string{"/transfer_to"}},
		{"mobile payout of zero", func(c *Client) error {
			_, err := c.ProcessPayout(ctx, &MobilePayout{CountryID: "ctry_zm"})
			return err
		}, []string{"/amount"}},
		{"negative mobile payout", func(c *Client) error {
			_, err := c.ProcessPayout(ctx, MobilePayout{Amount: -1, CountryID: "ctry_zm"})
			return err
		}, []string{"/amount"}},
		{"empty payment reference", func(c *Client) error {
			_, err := c.CompletePayment(ctx, "", PaymentCompleteRequest{})
			return err
		}, []string{"path.payment_reference"}},
		{"dot-dot payment reference", func(c *Client) error {
			_, err := c.CompletePayment(ctx, "..", PaymentCompleteRequest{})
			return err
		}, []string{"path.payment_reference"}},
		{"payout id with a slash", func(c *Client) error { _, err := c.GetPayout(ctx, "po_1/../../countries"); return err },
			[]string{"path.payout_id"}},
		{"transaction reference with a space", func(c *Client) error { _, err := c.GetTransactionStatus(ctx, "order 1"); return err },
			[]string{"path.reference"}},
		{"too long id", func(c *Client) error { _, err := c.GetWebhookEndpoint(ctx, strings.Repeat("a", 129)); return err },
			[]string{"path.id"}},
		{"lower-case country code", func(c *Client) error { _, err := c.ListBanks(ctx, "zm"); return err }, []string{"query.country"}},
		{"country id instead of code", func(c *Client) error { _, err := c.ListBanks(ctx, "ctry_zm"); return err }, []string{"query.country"}},
		{"empty webhook endpoint", func(c *Client) error {
			_, err := c.CreateWebhookEndpoint(ctx, WebhookEndpointCreateRequest{})
			return err
		}, []string{"/url", "/events"}},
		{"unknown and duplicate event types", func(c *Client) error {
			_, err := c.CreateWebhookEndpoint(ctx, WebhookEndpointCreateRequest{URL: "https://m.example.org/h",
				Events: []EventType{api.EventTypePayoutFailed, "payout.pending", api.EventTypePayoutFailed}})
			return err
		}, []string{"/events/1", "/events/2"}},
		{"update with nothing to change", func(c *Client) error {
			_, err := c.UpdateWebhookEndpoint(ctx, "we_1", WebhookEndpointUpdateRequest{})
			return err
		}, []string{""}},
		{"update with an empty event list and URL", func(c *Client) error {
			_, err := c.UpdateWebhookEndpoint(ctx, "we_1", WebhookEndpointUpdateRequest{Events: []EventType{}, URL: ptr("")})
			return err
		}, []string{"/url", "/events"}},
		{"negative grace period", func(c *Client) error {
			_, err := c.RotateWebhookEndpointSecret(ctx, "we_1", RotateSecretRequest{GracePeriodSeconds: ptr(int64(-1))})
			return err
		}, []string{"/grace_period_seconds"}},
		{"grace period over 7 days", func(c *Client) error {
			_, err := c.RotateWebhookEndpointSecret(ctx, "we_1", RotateSecretRequest{GracePeriodSeconds: ptr(int64(604801))})
			return err
		}, []string{"/grace_period_seconds"}},
		{"delete without id", func(c *Client) error { return c.DeleteWebhookEndpoint(ctx, "") }, []string{"path.id"}},
		{"empty idempotency key", func(c *Client) error {
			_, err := c.ProcessPayout(ctx, bankPayout(), WithIdempotencyKey(""))
			return err
		}, []string{"header.idempotency-key"}},
		{"idempotency key over 255 characters", func(c *Client) error {
			_, err := c.ProcessPayout(ctx, bankPayout(), WithIdempotencyKey(strings.Repeat("k", 256)))
			return err
		}, []string{"header.idempotency-key"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			err := tc.call(h.client())
			require.Error(t, err)
			var ire *InvalidRequestError
			require.ErrorAs(t, err, &ire)
			var fields []string
			for _, f := range ire.Errors {
				fields = append(fields, f.Field)
			}
			assert.Equal(t, tc.fields, fields)
			assert.True(t, IsValidation(err))
			assert.Contains(t, err.Error(), ": invalid request, not sent: ")
			assert.Empty(t, h.requests())
		})
	}
}

func TestInvalidRequestErrorText(t *testing.T) {
	h := newHarness(t)
	_, err := h.client().ProcessPayout(context.Background(), BankPayout{CountryID: "ctry_zm"})
	require.Error(t, err)
	assert.Equal(t, "malipo: process payout: invalid request, not sent: /amount: must be an integer of at least 1; "+
		"/bank_id: is required; /account_number: is required", err.Error())
}

func TestNilContextIsAnErrorNotAPanic(t *testing.T) {
	h := newHarness(t)
	var nilCtx context.Context
	_, err := h.client().ListCountries(nilCtx) //nolint:staticcheck // the point of the test
	require.Error(t, err)
	assert.Equal(t, "malipo: list countries: the context is nil; pass context.Background() or the caller's context", err.Error())
}
