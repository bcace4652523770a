package harness

import (
	"fmt"
	"maps"
	"net/http"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The flows checks share: create an object the way a merchant would, and wait for its final state.

// InitPayment initializes a payment from the document's example, with a fresh reference and phone as
// the customer's number (none when empty), delivering its webhooks to hookURL; the values in extra
// replace the body's (nil removes a property). It requires the documented 201.
func (t *T) InitPayment(phone, hookURL string, extra map[string]any) *Exchange {
	set := map[string]any{"webhook_url": hookURL, "phone_number": OrNil(phone), "reference": NewID("conform-")}
	maps.Copy(set, extra)
	ex := t.Do(api.OpInitializePayment().Method, api.OpInitializePayment().URL(), t.ExampleBody(api.OpInitializePayment(), "", set))
	t.RequireStatus(ex, http.StatusCreated)
	if ex.Str("/data/paymentReference") == "" {
		t.Fatalf("initialize payment: the response has no data.paymentReference: %s", Snippet(ex.Body))
	}
	return ex
}

// CompletePayment sends the push prompt for a payment.
func (t *T) CompletePayment(ref string, body any, opts ...ReqOption) *Exchange {
	return t.Do(api.OpCompletePayment().Method, api.OpCompletePayment().URL(ref), body, opts...)
}

// BankPayout returns a valid bank payout body from the document's example, for the target's reference
// data and the given account, with a fresh merchant reference (the lifecycle checks look the payout up
// by it); webhooks go to hookURL, or nowhere when it is empty.
func (t *T) BankPayout(account, hookURL string) map[string]any {
	return t.ExampleBody(api.OpProcessPayout(), string(api.TransferToBank),
		map[string]any{"account_number": account, "webhook_url": OrNil(hookURL), "reference": NewID("conform-")})
}

// MobilePayout returns a valid mobile payout body from the document's example, like BankPayout; an
// empty phone pays the merchant's own wallet.
func (t *T) MobilePayout(phone, hookURL string) map[string]any {
	return t.ExampleBody(api.OpProcessPayout(), string(api.TransferToMobileNumber),
		map[string]any{"momo_phone_number": OrNil(phone), "webhook_url": OrNil(hookURL), "reference": NewID("conform-")})
}

// OrNil is s, or nil (which removes the property from an example body) when s is empty.
func OrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CreatePayout posts a payout body and requires the documented 201.
func (t *T) CreatePayout(body map[string]any, opts ...ReqOption) *Exchange {
	ex := t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), body, opts...)
	t.RequireStatus(ex, http.StatusCreated)
	if ex.Str("/data/payout_id") == "" {
		t.Fatalf("process payout: the response has no data.payout_id: %s", Snippet(ex.Body))
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
		return api.PaymentStatus(s).Final() || api.PayoutStatus(s).Final(), fmt.Sprintf("HTTP %d, status %q", last.Status, s)
	})
	return last
}

// RotateSecret calls rotate-secret on the webhook endpoint id with body and returns the exchange,
// whatever its status: checks of refusals read it as they read a success.
func (t *T) RotateSecret(id string, body map[string]any) *Exchange {
	return t.Do(api.OpRotateWebhookEndpointSecret().Method, api.OpRotateWebhookEndpointSecret().URL(id), body)
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

// EndpointBody returns a create-webhook-endpoint body from the document's example that subscribes hook
// to the given event types; it leaves `enabled` out, so the endpoint is enabled by default.
func (t *T) EndpointBody(hook string, events ...api.EventType) map[string]any {
	list := make([]any, len(events))
	for i, e := range events {
		list[i] = string(e)
	}
	return t.ExampleBody(api.OpCreateWebhookEndpoint(), "", map[string]any{"url": hook, "events": list, "enabled": nil})
}

// IdleEndpoint creates a disabled webhook endpoint, which receives nothing, for checks that need one
// to exist, and returns its id; it is deleted when the check ends.
func (t *T) IdleEndpoint() string {
	_, hook := t.Hook()
	body := t.EndpointBody(hook, api.EventTypePayoutSuccess)
	body["enabled"] = false
	return t.CreateEndpoint(body).Str("/data/id")
}

// Cleanup registers f to run when the check ends, last registered first.
func (t *T) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}
