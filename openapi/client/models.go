package client

import (
	"fmt"
	"slices"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/internal/redact"
)

// The document's enums and wire types are package api's, generated from openapi/malipo.yaml
// (api.gen.go); nothing here restates a field. The aliases keep this package's signatures readable
// (client.Payout rather than api.Payout) and are the same types, so values pass between the two
// packages without conversion. Optional fields are pointers where the document lets an empty value
// differ from an absent one (Payment.RedirectURL, Payout.AccountNumber, the descriptions of webhook
// endpoints); see the generator, openapi/internal/apigen.
type (
	// PaymentMethod is how a customer pays.
	PaymentMethod = api.PaymentMethod
	// PaymentStatus is where a payment is in its life cycle.
	PaymentStatus = api.PaymentStatus
	// PayoutStatus is where a payout is in its life cycle.
	PayoutStatus = api.PayoutStatus
	// TransferTo is a payout's destination kind; the type of the PayoutRequest decides it.
	TransferTo = api.TransferTo
	// FailureReason says why a payment or payout failed.
	FailureReason = api.FailureReason
	// EventType is the type of a webhook event; webhook endpoints subscribe to a list of them.
	EventType = api.EventType
	// TransactionType says which kind of object a Transaction describes.
	TransactionType = api.TransactionType

	// PaymentInitRequest is the body of InitializePayment. An empty Method means
	// api.PaymentMethodMobileMoney, the only method of v1; an empty Reference lets the service
	// generate one.
	PaymentInitRequest = api.PaymentInitRequest
	// PaymentCompleteRequest is the optional body of CompletePayment. The zero value sends no body,
	// which uses the number given at initialization.
	PaymentCompleteRequest = api.PaymentCompleteRequest
	// Payment is a mobile-money collection.
	Payment = api.Payment

	// PayoutRequest is the body of ProcessPayout: a BankPayout or a MobilePayout, or a pointer to one.
	// The interface is sealed (package api's), and the type decides the `transfer_to` that is sent, so
	// the kind always matches the fields.
	PayoutRequest = api.PayoutRequest
	// BankPayout is a payout to a bank account (the document's BankPayoutRequest). Leave TransferTo
	// empty: ProcessPayout sends `bank`.
	BankPayout = api.BankPayoutRequest
	// MobilePayout is a payout to a mobile-money wallet (the document's MobileMoneyPayoutRequest); an
	// empty MomoPhoneNumber pays the merchant's own wallet. Leave TransferTo empty: ProcessPayout
	// sends `mobile_number`.
	MobilePayout = api.MobileMoneyPayoutRequest
	// Payout is a payout: the seed's amount, payout_id and status, and the request's fields echoed
	// back so that a payout can be read back completely.
	Payout = api.Payout

	// Transaction is the status of a payment or a payout as GetTransactionStatus reports it; its
	// Status.Final tells whether the status can still change.
	Transaction = api.Transaction
	// Country is a country where payouts can be sent; its ID is what payouts take as CountryID.
	Country = api.Country
	// Bank is a bank that accepts payouts; its ID is what a BankPayout takes as BankID.
	Bank = api.Bank

	// WebhookEndpointCreateRequest is the body of CreateWebhookEndpoint; a nil Enabled means the
	// service's default, true. An empty Secret lets the service generate the endpoint's secret; a
	// secret of your own (whsec_ and the base64 of 24 to 64 random bytes, see
	// webhook.ParseEndpointSecret) is used as given. Printing or logging the request shows it
	// redacted.
	WebhookEndpointCreateRequest = api.WebhookEndpointCreateRequest
	// WebhookEndpointUpdateRequest is the body of UpdateWebhookEndpoint: only non-nil fields are sent
	// and changed, and at least one must be set.
	WebhookEndpointUpdateRequest = api.WebhookEndpointUpdateRequest
	// RotateSecretRequest is the optional body of RotateWebhookEndpointSecret. The zero value sends no
	// body, which has the service generate the new secret and keep the old one valid for its default
	// of 86400 seconds. Secret, when set, is the new secret, as for WebhookEndpointCreateRequest.
	RotateSecretRequest = api.RotateSecretRequest
	// SecretString is a secret a request carries (the Secret of the two requests above): an ordinary
	// string on the wire, redacted when printed or logged.
	SecretString = api.SecretString
	// WebhookEndpoint is a URL that receives the events it subscribes to, as read back: without its
	// secret.
	WebhookEndpoint = api.WebhookEndpoint

	// PaymentEvent is the body of a payment webhook delivery, for receivers.
	PaymentEvent = api.PaymentEvent
	// PaymentEventData is the payload of a PaymentEvent.
	PaymentEventData = api.PaymentEventData
	// PayoutEvent is the body of a payout webhook delivery, for receivers.
	PayoutEvent = api.PayoutEvent
	// PayoutEventData is the payload of a PayoutEvent.
	PayoutEventData = api.PayoutEventData
)

// WebhookEndpointWithSecret is a webhook endpoint with its signing secret, as only create and
// rotate-secret return it (the document's WebhookEndpointWithSecret). Store Secret to verify
// deliveries: it cannot be read again.
//
// It is defined on api.WebhookEndpointWithSecret, not an alias of it, for one reason: its printing
// methods redact the secret, so that logging a result cannot leak it, and methods can only be declared
// on a type of this package. The fields, their JSON names and types are the generated type's;
// convert with api.WebhookEndpointWithSecret(e) where the generated type is wanted.
type WebhookEndpointWithSecret api.WebhookEndpointWithSecret

// Endpoint is the endpoint without its secret, as GetWebhookEndpoint would return it.
func (e WebhookEndpointWithSecret) Endpoint() WebhookEndpoint {
	return WebhookEndpoint{ID: e.ID, URL: e.URL, Events: e.Events, Description: e.Description,
		Enabled: e.Enabled, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

// String describes the endpoint with its secret redacted, so that logging it cannot leak the secret.
func (e WebhookEndpointWithSecret) String() string {
	expires := "<none>"
	if e.PreviousSecretExpiresAt != nil {
		expires = e.PreviousSecretExpiresAt.Format(time.RFC3339)
	}
	description := ""
	if e.Description != nil {
		description = *e.Description
	}
	return fmt.Sprintf("{ID:%s URL:%s Events:%v Description:%q Enabled:%t Secret:%s PreviousSecretExpiresAt:%s CreatedAt:%s UpdatedAt:%s}",
		e.ID, e.URL, e.Events, description, e.Enabled, redactedMark, expires,
		e.CreatedAt.Format(time.RFC3339), e.UpdatedAt.Format(time.RFC3339))
}

// GoString is the %#v form, redacted like String.
func (e WebhookEndpointWithSecret) GoString() string {
	return "client.WebhookEndpointWithSecret" + e.String()
}

// Format makes every fmt verb print the redacted form, including %+v and %x that do not all consult
// String.
func (e WebhookEndpointWithSecret) Format(f fmt.State, verb rune) {
	redact.Format(e, f, verb)
}

// validEnum reports whether v is one of values; used by client-side validation.
func validEnum[T comparable](v T, values []T) bool { return slices.Contains(values, v) }
