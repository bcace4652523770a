package client

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// InitializePayment creates a payment in status pending (POST /v1/payment/init). No money moves and
// the customer is not contacted until CompletePayment.
func (c *Client) InitializePayment(ctx context.Context, req PaymentInitRequest, opts ...CallOption) (*Payment, error) {
	if req.Method == "" {
		req.Method = api.PaymentMethodMobileMoney
	}
	var v validation
	v.required("/currency", req.Currency)
	v.required("/country", req.Country)
	v.required("/narration", req.Narration)
	v.required("/webhook_url", req.WebhookURL)
	if !validEnum(req.Method, api.PaymentMethodValues()) {
		v.add("/method", fmt.Sprintf("must be one of %v", api.PaymentMethodValues()))
	}
	switch {
	case math.IsNaN(req.Amount) || math.IsInf(req.Amount, 0) || req.Amount <= 0:
		v.add("/amount", "must be a number greater than 0")
	case decimals(req.Amount) > 2:
		v.add("/amount", "must have at most two decimals")
	}
	if err := v.err(api.OpInitializePayment()); err != nil {
		return nil, err
	}
	return call[Payment](ctx, c, request{op: api.OpInitializePayment(), body: req, opts: opts})
}

// decimals counts the digits after the point in x's shortest decimal form, the form encoding/json
// sends and the API's multipleOf 0.01 judges. Arithmetic on x*100 would not do: 2188118558.01*100 is
// 218811855801.00003 in binary floating point, and a valid amount would be refused.
func decimals(x float64) int {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// CompletePayment sends the push prompt for a pending payment (POST /v1/payment/pay/{payment_reference})
// and moves it to processing; the customer then approves or declines on the phone. It needs only the
// public key. A zero req uses the phone number given at initialization.
func (c *Client) CompletePayment(ctx context.Context, paymentReference string, req PaymentCompleteRequest, opts ...CallOption) (*Payment, error) {
	var v validation
	v.id("path.payment_reference", paymentReference)
	if err := v.err(api.OpCompletePayment()); err != nil {
		return nil, err
	}
	r := request{op: api.OpCompletePayment(), params: []string{paymentReference}, opts: opts}
	if req != (PaymentCompleteRequest{}) {
		r.body = req
	}
	return call[Payment](ctx, c, r)
}

// GetTransactionStatus returns the status of a payment or a payout (GET
// /v1/payment/transactions/{reference}/check). reference is a paymentReference, a merchant reference or
// a payout_id.
func (c *Client) GetTransactionStatus(ctx context.Context, reference string, opts ...CallOption) (*Transaction, error) {
	var v validation
	v.id("path.reference", reference)
	if err := v.err(api.OpGetTransactionStatus()); err != nil {
		return nil, err
	}
	return call[Transaction](ctx, c, request{op: api.OpGetTransactionStatus(), params: []string{reference}, opts: opts})
}

// ProcessPayout creates a payout to a bank account (BankPayout) or a wallet (MobilePayout) (POST
// /v1/payment/payouts/process). The payout starts processing and ends in success or failed; follow it
// with GetPayout or webhooks. It is retried only with the same Idempotency-Key, so it never pays twice.
// The request's type decides the `transfer_to` that is sent; req itself is not changed.
func (c *Client) ProcessPayout(ctx context.Context, req PayoutRequest, opts ...CallOption) (*Payout, error) {
	body, v := payoutBody(req)
	if err := v.err(api.OpProcessPayout()); err != nil {
		return nil, err
	}
	return call[Payout](ctx, c, request{op: api.OpProcessPayout(), body: body, opts: opts})
}

// payoutBody returns the payout request to send, a copy of req with its TransferTo set to the kind its
// type stands for, and the certain problems of it. A TransferTo the caller set to the other kind is a
// problem rather than overwritten: the type and the field would say different things.
func payoutBody(req PayoutRequest) (PayoutRequest, validation) {
	var v validation
	switch p := req.(type) {
	case *BankPayout:
		if p == nil {
			v.add("", "the payout request is a nil *BankPayout")
			return nil, v
		}
		req = *p
	case *MobilePayout:
		if p == nil {
			v.add("", "the payout request is a nil *MobilePayout")
			return nil, v
		}
		req = *p
	}
	kind := payoutKind(req)
	switch p := req.(type) {
	case BankPayout:
		p.TransferTo = v.kind(p.TransferTo, kind)
		v.amount(p.Amount)
		v.required("/countryId", p.CountryID)
		v.required("/bank_id", p.BankID)
		v.required("/account_number", p.AccountNumber)
		return p, v
	case MobilePayout:
		p.TransferTo = v.kind(p.TransferTo, kind)
		v.amount(p.Amount)
		v.required("/countryId", p.CountryID)
		return p, v
	}
	// nil: the interface is sealed, so nothing else satisfies it
	v.add("", "the payout request is nil; pass a client.BankPayout or a client.MobilePayout")
	return nil, v
}

// payoutKind is the `transfer_to` a payout request's type stands for: the discriminator mapping of the
// document's PayoutRequest, which spec_test.go checks this against.
func payoutKind(req PayoutRequest) TransferTo {
	switch req.(type) {
	case BankPayout, *BankPayout:
		return api.TransferToBank
	case MobilePayout, *MobilePayout:
		return api.TransferToMobileNumber
	}
	return ""
}

// GetPayout returns a payout with its current status (GET /v1/payment/payouts/{payout_id}).
func (c *Client) GetPayout(ctx context.Context, payoutID string, opts ...CallOption) (*Payout, error) {
	var v validation
	v.id("path.payout_id", payoutID)
	if err := v.err(api.OpGetPayout()); err != nil {
		return nil, err
	}
	return call[Payout](ctx, c, request{op: api.OpGetPayout(), params: []string{payoutID}, opts: opts})
}

// ListCountries returns the countries payouts can be sent to (GET /v1/countries), with the ids
// payouts take as CountryID. It needs only the public key.
func (c *Client) ListCountries(ctx context.Context, opts ...CallOption) ([]Country, error) {
	var out []Country
	if err := c.do(ctx, request{op: api.OpListCountries(), out: &out, opts: opts}); err != nil {
		return nil, err
	}
	return out, nil
}

// ListBanks returns the banks of a country (GET /v1/payment/banks?country=), with the ids a BankPayout
// takes as BankID. countryCode is a Country.CountryCode such as "ZM", not a Country.ID. It needs only
// the public key.
func (c *Client) ListBanks(ctx context.Context, countryCode string, opts ...CallOption) ([]Bank, error) {
	var v validation
	if !countryCodePattern.MatchString(countryCode) {
		v.add("query.country", fmt.Sprintf("%q is not an ISO 3166-1 alpha-2 code in upper case, such as ZM", countryCode))
	}
	if err := v.err(api.OpListBanks()); err != nil {
		return nil, err
	}
	var out []Bank
	if err := c.do(ctx, request{op: api.OpListBanks(), query: url.Values{"country": {countryCode}}, out: &out, opts: opts}); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateWebhookEndpoint registers a URL that receives every event of the subscribed types (POST
// /v1/webhooks). The result carries the endpoint's signing secret, shown only here and by
// RotateWebhookEndpointSecret: store it, unless req.Secret supplied it (it is then that secret).
func (c *Client) CreateWebhookEndpoint(ctx context.Context, req WebhookEndpointCreateRequest, opts ...CallOption) (*WebhookEndpointWithSecret, error) {
	var v validation
	v.required("/url", req.URL)
	if len(req.Events) == 0 {
		v.add("/events", "must list at least one event type")
	}
	v.events(req.Events)
	v.secret(req.Secret)
	if err := v.err(api.OpCreateWebhookEndpoint()); err != nil {
		return nil, err
	}
	return call[WebhookEndpointWithSecret](ctx, c, request{op: api.OpCreateWebhookEndpoint(), body: req, opts: opts})
}

// ListWebhookEndpoints returns the merchant's webhook endpoints, oldest first, without secrets (GET
// /v1/webhooks). A service without the webhook-endpoint extension answers 404 (IsNotFound).
func (c *Client) ListWebhookEndpoints(ctx context.Context, opts ...CallOption) ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	if err := c.do(ctx, request{op: api.OpListWebhookEndpoints(), out: &out, opts: opts}); err != nil {
		return nil, err
	}
	return out, nil
}

// GetWebhookEndpoint returns one webhook endpoint without its secret (GET /v1/webhooks/{id}).
func (c *Client) GetWebhookEndpoint(ctx context.Context, id string, opts ...CallOption) (*WebhookEndpoint, error) {
	var v validation
	v.id("path.id", id)
	if err := v.err(api.OpGetWebhookEndpoint()); err != nil {
		return nil, err
	}
	return call[WebhookEndpoint](ctx, c, request{op: api.OpGetWebhookEndpoint(), params: []string{id}, opts: opts})
}

// UpdateWebhookEndpoint changes the set fields of req and keeps the others (PATCH /v1/webhooks/{id}).
// The secret does not change; use RotateWebhookEndpointSecret for that.
func (c *Client) UpdateWebhookEndpoint(ctx context.Context, id string, req WebhookEndpointUpdateRequest, opts ...CallOption) (*WebhookEndpoint, error) {
	var v validation
	v.id("path.id", id)
	if req.URL == nil && req.Events == nil && req.Description == nil && req.Enabled == nil {
		v.add("", "set at least one field to change")
	}
	if req.URL != nil {
		v.required("/url", *req.URL)
	}
	if req.Events != nil && len(req.Events) == 0 {
		v.add("/events", "must list at least one event type; leave it nil to keep the current list")
	}
	v.events(req.Events)
	if err := v.err(api.OpUpdateWebhookEndpoint()); err != nil {
		return nil, err
	}
	return call[WebhookEndpoint](ctx, c, request{op: api.OpUpdateWebhookEndpoint(), params: []string{id}, body: req, opts: opts})
}

// DeleteWebhookEndpoint deletes a webhook endpoint (DELETE /v1/webhooks/{id}); deliveries already under
// way may still arrive once. A retried delete whose first attempt went through answers 404: callers
// that only want the endpoint gone can treat IsNotFound as success.
func (c *Client) DeleteWebhookEndpoint(ctx context.Context, id string, opts ...CallOption) error {
	var v validation
	v.id("path.id", id)
	if err := v.err(api.OpDeleteWebhookEndpoint()); err != nil {
		return err
	}
	return c.do(ctx, request{op: api.OpDeleteWebhookEndpoint(), params: []string{id}, opts: opts})
}

// RotateWebhookEndpointSecret issues a new signing secret (POST /v1/webhooks/{id}/rotate-secret): the
// one req.Secret supplies, or else one the service generates. The previous one stays valid until
// PreviousSecretExpiresAt, and deliveries carry a signature per valid secret meanwhile, so receivers
// can switch without dropping events. A zero req keeps the service's default grace period.
func (c *Client) RotateWebhookEndpointSecret(ctx context.Context, id string, req RotateSecretRequest, opts ...CallOption) (*WebhookEndpointWithSecret, error) {
	var v validation
	v.id("path.id", id)
	if g := req.GracePeriodSeconds; g != nil && (*g < 0 || *g > maxGracePeriodSeconds) {
		v.add("/grace_period_seconds", fmt.Sprintf("must be between 0 and %d (7 days)", maxGracePeriodSeconds))
	}
	v.secret(req.Secret)
	if err := v.err(api.OpRotateWebhookEndpointSecret()); err != nil {
		return nil, err
	}
	r := request{op: api.OpRotateWebhookEndpointSecret(), params: []string{id}, opts: opts}
	if req != (RotateSecretRequest{}) {
		r.body = req
	}
	return call[WebhookEndpointWithSecret](ctx, c, r)
}

// call runs r and returns its decoded data, or nil and the error.
func call[T any](ctx context.Context, c *Client, r request) (*T, error) {
	var out T
	r.out = &out
	if err := c.do(ctx, r); err != nil {
		return nil, err
	}
	return &out, nil
}

const maxGracePeriodSeconds = 7 * 24 * 60 * 60

var (
	// idPattern is the document's ObjectId and ObjectReference pattern.
	idPattern          = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)
	countryCodePattern = regexp.MustCompile(`^[A-Z]{2}$`)
)

// validation collects the certain problems of a request before it is sent.
type validation struct{ errs []FieldError }

func (v *validation) add(field, reason string) { v.errs = append(v.errs, FieldError{field, reason}) }

func (v *validation) required(field, value string) {
	if strings.TrimSpace(value) == "" {
		v.add(field, "is required")
	}
}

// secret checks a secret of the caller's, when one is given, as the service will
// (webhook.ParseEndpointSecret); the reason says what is wrong without quoting it.
func (v *validation) secret(s SecretString) {
	if s == "" {
		return
	}
	if _, err := webhook.ParseEndpointSecret(string(s)); err != nil {
		v.add("/secret", strings.TrimPrefix(err.Error(), "webhook: "))
	}
}

// kind returns the payout kind to send, want, and records a problem when the caller set another one.
func (v *validation) kind(given, want TransferTo) TransferTo {
	if given != "" && given != want {
		v.add("/transfer_to", fmt.Sprintf("is %q, but this payout type sends %q; leave TransferTo empty", given, want))
	}
	return want
}

func (v *validation) amount(a int64) {
	if a < 1 {
		v.add("/amount", "must be an integer of at least 1")
	}
}

// id checks a path parameter: a service id cannot be empty, and "." or ".." would change the path.
func (v *validation) id(field, value string) {
	switch {
	case value == "":
		v.add(field, "is required")
	case value == "." || value == "..":
		v.add(field, fmt.Sprintf("%q cannot be sent as a path segment", value))
	case !idPattern.MatchString(value):
		v.add(field, fmt.Sprintf("%q is not an id: use 1 to 128 letters, digits, '_', '.', ':' or '-'", value))
	}
}

func (v *validation) events(events []EventType) {
	seen := map[EventType]bool{}
	for i, e := range events {
		switch {
		case !validEnum(e, api.EventTypeValues()):
			v.add(fmt.Sprintf("/events/%d", i), fmt.Sprintf("%q is not an event type; use one of %v", e, api.EventTypeValues()))
		case seen[e]:
			v.add(fmt.Sprintf("/events/%d", i), fmt.Sprintf("%q is listed twice", e))
		}
		seen[e] = true
	}
}

func (v *validation) err(op api.Operation) error {
	if len(v.errs) == 0 {
		return nil
	}
	return &InvalidRequestError{Operation: op.Words(), Errors: v.errs}
}
