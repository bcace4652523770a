package contracttests

import (
	"fmt"
	"net/http"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The flows checks share: create an object the way a merchant would, and wait for its final state.

// InitPayment initializes a payment with a fresh reference, delivering its webhooks to hookURL, and
// requires the documented 201.
func (t *T) InitPayment(phone, hookURL string, extra map[string]any) *Exchange {
	rd := t.RefData()
	body := map[string]any{
		"currency":     rd.Currency,
		"country":      rd.CountryCode,
		"narration":    "malipo conform " + t.ID(),
		"method":       "mobilemoney",
		"amount":       150.5,
		"reference":    NewID("conform-"),
		"webhook_url":  hookURL,
		"redirect_url": "",
	}
	if phone != "" {
		body["phone_number"] = phone
	}
	for k, v := range extra {
		if v == nil {
			delete(body, k)
		} else {
			body[k] = v
		}
	}
	ex := t.Do(api.OpInitializePayment().Method, api.OpInitializePayment().URL(), body)
	t.RequireStatus(ex, http.StatusCreated)
	if ex.Str("/data/paymentReference") == "" {
		t.Fatalf("initialize payment: the response has no data.paymentReference: %s", snippet(ex.Body))
	}
	return ex
}

// CompletePayment sends the push prompt for a payment.
func (t *T) CompletePayment(ref string, body any, opts ...ReqOption) *Exchange {
	return t.Do(api.OpCompletePayment().Method, api.OpCompletePayment().URL(ref), body, opts...)
}

// BankPayout returns a valid bank payout body for the target's reference data.
func (t *T) BankPayout(account, hookURL string) map[string]any {
	rd := t.RefData()
	b := map[string]any{"amount": 2500, "countryId": rd.CountryID, "transfer_to": "bank", "bank_id": rd.BankID,
		"account_number": account, "narration": "malipo conform " + t.ID(), "reference": NewID("conform-")}
	if hookURL != "" {
		b["webhook_url"] = hookURL
	}
	return b
}

// MobilePayout returns a valid mobile payout body; an empty phone pays the merchant's own wallet.
func (t *T) MobilePayout(phone, hookURL string) map[string]any {
	rd := t.RefData()
	b := map[string]any{"amount": 120, "countryId": rd.CountryID, "transfer_to": "mobile_number",
		"reference": NewID("conform-")}
	if phone != "" {
		b["momo_phone_number"] = phone
	}
	if hookURL != "" {
		b["webhook_url"] = hookURL
	}
	return b
}

// CreatePayout posts a payout body and requires the documented 201.
func (t *T) CreatePayout(body map[string]any, opts ...ReqOption) *Exchange {
	ex := t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), body, opts...)
	t.RequireStatus(ex, http.StatusCreated)
	if ex.Str("/data/payout_id") == "" {
		t.Fatalf("process payout: the response has no data.payout_id: %s", snippet(ex.Body))
	}
	return ex
}

// GetPayout reads a payout.
func (t *T) GetPayout(id string, opts ...ReqOption) *Exchange {
	return t.Do(api.OpGetPayout().Method, api.OpGetPayout().URL(id), nil, opts...)
}

// Transaction reads the status API.
func (t *T) Transaction(ref string, opts ...ReqOption) *Exchange {
	return t.Do(api.OpGetTransactionStatus().Method, api.OpGetTransactionStatus().URL(ref), nil, opts...)
}

// WaitFinal polls read until `/data/status` is `success` or `failed` and returns the last exchange.
func (t *T) WaitFinal(what string, read func() *Exchange) *Exchange {
	var last *Exchange
	t.Eventually(what+" to reach a final status", func() (bool, string) {
		last = read()
		s := last.Str("/data/status")
		return s == "success" || s == "failed", fmt.Sprintf("HTTP %d, status %q", last.Status, s)
	})
	return last
}

// CreateEndpoint creates a webhook endpoint (extension) and deletes it when the check ends.
func (t *T) CreateEndpoint(body map[string]any) *Exchange {
	ex := t.Do(api.OpCreateWebhookEndpoint().Method, api.OpCreateWebhookEndpoint().URL(), body)
	t.RequireStatus(ex, http.StatusCreated)
	id := ex.Str("/data/id")
	if id == "" {
		t.Fatalf("create webhook endpoint: the response has no data.id")
	}
	t.Cleanup(func() { t.Do(api.OpDeleteWebhookEndpoint().Method, api.OpDeleteWebhookEndpoint().URL(id), nil) })
	return ex
}

// Cleanup registers f to run when the check ends, last registered first.
func (t *T) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}
