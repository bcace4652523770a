package client

import (
	"context"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The sandbox's controls (the document's "Sandbox controls" tag): `malipo sandbox` offers them to test
// an integration, and no production implementation does (it answers 404). They are in this client
// because the merchant code they help test is written with it.

type (
	// SandboxSettleRequest chooses how a sandbox control settles a payment or payout: Status success,
	// or failed with a FailureReason.
	SandboxSettleRequest = api.SandboxSettleRequest
	// SandboxDeliveryFailureRequest makes the sandbox's deliveries to URL fail for a while; nil fields
	// take the sandbox's defaults (503, 300 seconds).
	SandboxDeliveryFailureRequest = api.SandboxDeliveryFailureRequest
	// SandboxDeliveryFailure is a delivery failure in force until ExpiresAt.
	SandboxDeliveryFailure = api.SandboxDeliveryFailure
)

// SettleSandboxPayment ends a processing payment now (sandbox only) with the outcome req chooses, and
// the sandbox sends its webhooks as for a real settlement.
func (c *Client) SettleSandboxPayment(ctx context.Context, paymentReference string, req SandboxSettleRequest, opts ...CallOption) (*Payment, error) {
	var v validation
	v.id("path.payment_reference", paymentReference)
	v.settle(req)
	if err := v.err(api.OpSettleSandboxPayment()); err != nil {
		return nil, err
	}
	return call[Payment](ctx, c, request{op: api.OpSettleSandboxPayment(), params: []string{paymentReference}, body: req, opts: opts})
}

// SettleSandboxPayout ends a processing payout now (sandbox only) with the outcome req chooses.
func (c *Client) SettleSandboxPayout(ctx context.Context, payoutID string, req SandboxSettleRequest, opts ...CallOption) (*Payout, error) {
	var v validation
	v.id("path.payout_id", payoutID)
	v.settle(req)
	if err := v.err(api.OpSettleSandboxPayout()); err != nil {
		return nil, err
	}
	return call[Payout](ctx, c, request{op: api.OpSettleSandboxPayout(), params: []string{payoutID}, body: req, opts: opts})
}

// CreateSandboxDeliveryFailure makes the sandbox's deliveries to req.URL fail (sandbox only), to see a
// receiver's outage from the integration's side without breaking the receiver.
func (c *Client) CreateSandboxDeliveryFailure(ctx context.Context, req SandboxDeliveryFailureRequest, opts ...CallOption) (*SandboxDeliveryFailure, error) {
	var v validation
	v.required("/url", req.URL)
	if err := v.err(api.OpCreateSandboxDeliveryFailure()); err != nil {
		return nil, err
	}
	return call[SandboxDeliveryFailure](ctx, c, request{op: api.OpCreateSandboxDeliveryFailure(), body: req, opts: opts})
}

// ListSandboxDeliveryFailures returns the delivery failures in force (sandbox only), oldest first.
func (c *Client) ListSandboxDeliveryFailures(ctx context.Context, opts ...CallOption) ([]SandboxDeliveryFailure, error) {
	var out []SandboxDeliveryFailure
	if err := c.do(ctx, request{op: api.OpListSandboxDeliveryFailures(), out: &out, opts: opts}); err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteSandboxDeliveryFailure ends a delivery failure now (sandbox only).
func (c *Client) DeleteSandboxDeliveryFailure(ctx context.Context, id string, opts ...CallOption) error {
	var v validation
	v.id("path.id", id)
	if err := v.err(api.OpDeleteSandboxDeliveryFailure()); err != nil {
		return err
	}
	return c.do(ctx, request{op: api.OpDeleteSandboxDeliveryFailure(), params: []string{id}, opts: opts})
}

// settle checks the rule of a settle body the schema cannot say: a failure has a reason, a success
// none.
func (v *validation) settle(req SandboxSettleRequest) {
	switch {
	case req.Status == api.PaymentStatusFailed && req.FailureReason == "":
		v.add("/failure_reason", "required when status is failed: say why it failed")
	case req.Status == api.PaymentStatusSuccess && req.FailureReason != "":
		v.add("/failure_reason", "only a failed settlement has a failure reason; leave it out with success")
	case req.Status != api.PaymentStatusSuccess && req.Status != api.PaymentStatusFailed:
		v.add("/status", "must be success or failed")
	}
}
