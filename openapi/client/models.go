package client

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The document's enums. Their values, names and descriptions are package api's, generated from the
// document (api.PaymentStatusSuccess, api.EventTypeValues(), ...); the aliases keep this package's
// signatures readable.
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
)

// PaymentInitRequest is the body of InitializePayment (the document's PaymentInitRequest).
type PaymentInitRequest struct {
	// Currency is the ISO 4217 code, e.g. "ZMW". Required.
	Currency string `json:"currency"`
	// Country is the ISO 3166-1 alpha-2 code, e.g. "ZM". Required.
	Country string `json:"country"`
	// Narration is shown to the customer. Required.
	Narration string `json:"narration"`
	// Method is how the customer pays; empty means api.PaymentMethodMobileMoney, the only method of v1.
	Method PaymentMethod `json:"method"`
	// Amount is in major units (150.5 is 150.50), greater than 0 with at most two decimals. Required.
	Amount float64 `json:"amount"`
	// Reference is the merchant's own reference, unique per merchant; the service generates one when
	// it is empty. A used reference is rejected with a 409 whose ExistingID names its holder.
	Reference string `json:"reference,omitempty"`
	// PhoneNumber is the customer's number in E.164 digits without "+"; it may instead be given to
	// CompletePayment.
	PhoneNumber string `json:"phone_number,omitempty"`
	// WebhookURL receives the payment's status changes. Required.
	WebhookURL string `json:"webhook_url"`
	// RedirectURL is kept for compatibility and unused by the push-prompt flow; empty omits it.
	RedirectURL string `json:"redirect_url,omitempty"`
}

// PaymentCompleteRequest is the optional body of CompletePayment (the document's
// PaymentCompleteRequest). The zero value sends no body, which uses the number given at initialization.
type PaymentCompleteRequest struct {
	// PhoneNumber is the customer's number in E.164 digits without "+", when initialization had none
	// or it should change.
	PhoneNumber string `json:"phone_number,omitempty"`
}

// Payment is a mobile-money collection (the document's Payment).
type Payment struct {
	// PaymentReference is the service's id of the payment, used by CompletePayment and
	// GetTransactionStatus.
	PaymentReference string `json:"paymentReference"`
	// Reference is the merchant reference, given or generated.
	Reference string `json:"reference"`
	// Status is where the payment is; see PaymentStatus.
	Status PaymentStatus `json:"status"`
	// FailureReason says why a failed payment failed; empty otherwise.
	FailureReason FailureReason `json:"failure_reason,omitempty"`
	// Amount is in major units.
	Amount float64 `json:"amount"`
	// Currency is the ISO 4217 code.
	Currency string `json:"currency"`
	// Country is the ISO 3166-1 alpha-2 code.
	Country string `json:"country"`
	// Method is how the customer pays.
	Method PaymentMethod `json:"method"`
	// Narration is shown to the customer.
	Narration string `json:"narration"`
	// PhoneNumber is the customer's number, once known.
	PhoneNumber string `json:"phone_number,omitempty"`
	// WebhookURL receives the payment's status changes.
	WebhookURL string `json:"webhook_url"`
	// RedirectURL is as sent at initialization.
	RedirectURL string `json:"redirect_url,omitempty"`
	// CreatedAt is when the payment was initialized.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when the payment last changed.
	UpdatedAt time.Time `json:"updated_at"`
}

// PayoutRequest is the body of ProcessPayout: a BankPayout or a MobilePayout (or a pointer to one).
// It is sealed so that the payout kind, sent as `transfer_to`, always matches the fields that are sent.
type PayoutRequest interface {
	// payoutKind is unexported so that only this package's payout types satisfy the interface.
	payoutKind() TransferTo
}

// BankPayout is a payout to a bank account (the document's BankPayoutRequest, `transfer_to: bank`).
type BankPayout struct {
	// Amount is in major units of the country's currency; at least 1. Required.
	Amount int64 `json:"amount"`
	// CountryID is a Country.ID from ListCountries (not the country code). Required.
	CountryID string `json:"countryId"`
	// BankID is a Bank.ID from ListBanks, of the same country. Required.
	BankID string `json:"bank_id"`
	// AccountNumber is the destination account number. Required.
	AccountNumber string `json:"account_number"`
	// Narration describes the payout's purpose; optional.
	Narration string `json:"narration,omitempty"`
	// Reference is the merchant's own reference, unique per merchant; optional. A used reference is
	// rejected with a 409 whose ExistingID names its holder.
	Reference string `json:"reference,omitempty"`
	// WebhookURL receives the payout's status changes; optional.
	WebhookURL string `json:"webhook_url,omitempty"`
}

// MobilePayout is a payout to a mobile-money wallet (the document's MobileMoneyPayoutRequest,
// `transfer_to: mobile_number`).
type MobilePayout struct {
	// Amount is in major units of the country's currency; at least 1. Required.
	Amount int64 `json:"amount"`
	// CountryID is a Country.ID from ListCountries (not the country code). Required.
	CountryID string `json:"countryId"`
	// MomoPhoneNumber is the receiving wallet in E.164 digits without "+"; empty pays the
	// merchant's own mobile-money wallet.
	MomoPhoneNumber string `json:"momo_phone_number,omitempty"`
	// Narration describes the payout's purpose; optional.
	Narration string `json:"narration,omitempty"`
	// Reference is the merchant's own reference, unique per merchant; optional.
	Reference string `json:"reference,omitempty"`
	// WebhookURL receives the payout's status changes; optional.
	WebhookURL string `json:"webhook_url,omitempty"`
}

func (BankPayout) payoutKind() TransferTo   { return api.TransferToBank }
func (MobilePayout) payoutKind() TransferTo { return api.TransferToMobileNumber }

// MarshalJSON adds `transfer_to: bank`, so that the kind cannot disagree with the fields.
func (p BankPayout) MarshalJSON() ([]byte, error) {
	type plain BankPayout
	return marshalWithKind(plain(p), api.TransferToBank)
}

// MarshalJSON adds `transfer_to: mobile_number`, so that the kind cannot disagree with the fields.
func (p MobilePayout) MarshalJSON() ([]byte, error) {
	type plain MobilePayout
	return marshalWithKind(plain(p), api.TransferToMobileNumber)
}

// Payout is a payout (the document's Payout): the seed's amount, payout_id and status, and the
// request's fields echoed back so that a payout can be read back completely.
type Payout struct {
	// PayoutID is the service's id of the payout, used by GetPayout.
	PayoutID string `json:"payout_id"`
	// Reference is the merchant reference, when one was given.
	Reference string `json:"reference,omitempty"`
	// Amount is in major units of Currency.
	Amount int64 `json:"amount"`
	// Currency is the ISO 4217 code of the payout's country.
	Currency string `json:"currency"`
	// CountryID is the country's id.
	CountryID string `json:"countryId"`
	// TransferTo is the destination kind.
	TransferTo TransferTo `json:"transfer_to"`
	// BankID is the bank's id (bank payouts).
	BankID string `json:"bank_id,omitempty"`
	// AccountNumber is the destination account (bank payouts).
	AccountNumber string `json:"account_number,omitempty"`
	// MomoPhoneNumber is the receiving wallet (mobile payouts); empty for the merchant's own wallet.
	MomoPhoneNumber string `json:"momo_phone_number,omitempty"`
	// Narration is as sent.
	Narration string `json:"narration,omitempty"`
	// WebhookURL is as sent.
	WebhookURL string `json:"webhook_url,omitempty"`
	// Status is where the payout is; see PayoutStatus.
	Status PayoutStatus `json:"status"`
	// FailureReason says why a failed payout failed; empty otherwise.
	FailureReason FailureReason `json:"failure_reason,omitempty"`
	// CreatedAt is when the payout was created.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when the payout last changed.
	UpdatedAt time.Time `json:"updated_at"`
}

// Transaction is the status of a payment or a payout as GetTransactionStatus reports it (the
// document's Transaction).
type Transaction struct {
	// Type says whether ID is a payment's paymentReference or a payout's payout_id.
	Type TransactionType `json:"type"`
	// ID is the paymentReference or payout_id.
	ID string `json:"id"`
	// Reference is the merchant reference, when there is one.
	Reference string `json:"reference,omitempty"`
	// Status is a PaymentStatus or a PayoutStatus value, depending on Type; Final tells whether it
	// can still change.
	Status string `json:"status"`
	// FailureReason says why a failed transaction failed; empty otherwise.
	FailureReason FailureReason `json:"failure_reason,omitempty"`
	// Amount is in major units.
	Amount float64 `json:"amount"`
	// Currency is the ISO 4217 code.
	Currency string `json:"currency"`
	// CreatedAt is when the payment or payout was created.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when it last changed.
	UpdatedAt time.Time `json:"updated_at"`
}

// Final reports whether the transaction's status never changes again (success or failed).
func (t Transaction) Final() bool {
	return PaymentStatus(t.Status).Final()
}

// Country is a country where payouts can be sent (the document's Country).
type Country struct {
	// ID is what payouts take as CountryID.
	ID string `json:"id"`
	// Name is the English name.
	Name string `json:"name"`
	// CountryCode is the ISO 3166-1 alpha-2 code, what ListBanks takes.
	CountryCode string `json:"country_code"`
	// CurrencyCode is the ISO 4217 code of the country's payouts.
	CurrencyCode string `json:"currency_code"`
}

// Bank is a bank that accepts payouts (the document's Bank).
type Bank struct {
	// ID is what a BankPayout takes as BankID.
	ID string `json:"id"`
	// Name is the bank's name.
	Name string `json:"name"`
	// CountryCode is the bank's country, ISO 3166-1 alpha-2.
	CountryCode string `json:"country_code"`
}

// WebhookEndpointCreateRequest is the body of CreateWebhookEndpoint (the document's
// WebhookEndpointCreateRequest).
type WebhookEndpointCreateRequest struct {
	// URL receives the deliveries; absolute http or https. Required.
	URL string `json:"url"`
	// Events are the event types to deliver; at least one, no duplicates. Required.
	Events []EventType `json:"events"`
	// Description is a note for people reading the configuration; optional.
	Description string `json:"description,omitempty"`
	// Enabled says whether events are delivered; nil means the service's default, true.
	Enabled *bool `json:"enabled,omitempty"`
}

// WebhookEndpointUpdateRequest is the body of UpdateWebhookEndpoint (the document's
// WebhookEndpointUpdateRequest). Only non-nil fields are sent and changed; at least one must be set.
type WebhookEndpointUpdateRequest struct {
	// URL replaces the endpoint's URL.
	URL *string `json:"url,omitempty"`
	// Events replaces the subscribed event types; nil keeps them, and an empty non-nil list is an error.
	Events []EventType `json:"events,omitempty"`
	// Description replaces the note; a pointer to "" clears it.
	Description *string `json:"description,omitempty"`
	// Enabled pauses (false) or resumes (true) deliveries.
	Enabled *bool `json:"enabled,omitempty"`
}

// RotateSecretRequest is the optional body of RotateWebhookEndpointSecret (the document's
// RotateSecretRequest). The zero value sends no body, which keeps the old secret valid for the
// service's default of 86400 seconds.
type RotateSecretRequest struct {
	// GracePeriodSeconds is how long the previous secret stays valid, 0 to 604800; 0 ends it at once,
	// nil means the default.
	GracePeriodSeconds *int64 `json:"grace_period_seconds,omitempty"`
}

// WebhookEndpoint is a URL that receives the events it subscribes to, as read back: without its
// secret (the document's WebhookEndpoint).
type WebhookEndpoint struct {
	// ID names the endpoint in the other webhook-endpoint calls.
	ID string `json:"id"`
	// URL receives the deliveries.
	URL string `json:"url"`
	// Events are the subscribed event types.
	Events []EventType `json:"events"`
	// Description is the note for people, when set.
	Description string `json:"description,omitempty"`
	// Enabled says whether events are delivered.
	Enabled bool `json:"enabled"`
	// CreatedAt is when the endpoint was created.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when it last changed.
	UpdatedAt time.Time `json:"updated_at"`
}

// WebhookEndpointWithSecret is a webhook endpoint with its signing secret, as only create and
// rotate-secret return it (the document's WebhookEndpointWithSecret). Store Secret to verify
// deliveries: it cannot be read again. Printing the value redacts the secret.
type WebhookEndpointWithSecret struct {
	WebhookEndpoint
	// Secret is the `whsec_` signing secret.
	Secret string `json:"secret"`
	// PreviousSecretExpiresAt is, after a rotation, when the previous secret stops being used.
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at,omitempty"`
}

// String describes the endpoint with its secret redacted, so that logging it cannot leak the secret.
func (e WebhookEndpointWithSecret) String() string {
	expires := "<none>"
	if e.PreviousSecretExpiresAt != nil {
		expires = e.PreviousSecretExpiresAt.Format(time.RFC3339)
	}
	return fmt.Sprintf("{ID:%s URL:%s Events:%v Description:%q Enabled:%t Secret:%s PreviousSecretExpiresAt:%s CreatedAt:%s UpdatedAt:%s}",
		e.ID, e.URL, e.Events, e.Description, e.Enabled, redactedMark, expires,
		e.CreatedAt.Format(time.RFC3339), e.UpdatedAt.Format(time.RFC3339))
}

// GoString is the %#v form, redacted like String.
func (e WebhookEndpointWithSecret) GoString() string {
	return "client.WebhookEndpointWithSecret" + e.String()
}

// Format makes every fmt verb print the redacted form, including %+v and %x that do not all consult
// String.
func (e WebhookEndpointWithSecret) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		_, _ = io.WriteString(f, e.GoString())
	case verb == 'q':
		_, _ = io.WriteString(f, strconv.Quote(e.String()))
	default:
		_, _ = io.WriteString(f, e.String())
	}
}

// PaymentEvent is the body of a payment webhook delivery (the document's PaymentEvent), for receivers.
type PaymentEvent struct {
	// ID is the event id, the same as the webhook-id header; deduplicate on it.
	ID string `json:"id"`
	// Type is one of the payment.* event types.
	Type EventType `json:"type"`
	// CreatedAt is when the change happened.
	CreatedAt time.Time `json:"created_at"`
	// Data is the payment after the change and its status before.
	Data PaymentEventData `json:"data"`
}

// PaymentEventData is the payload of a PaymentEvent.
type PaymentEventData struct {
	// Object is the payment after the change.
	Object Payment `json:"object"`
	// PreviousStatus is the payment's status before the change.
	PreviousStatus PaymentStatus `json:"previous_status"`
}

// PayoutEvent is the body of a payout webhook delivery (the document's PayoutEvent), for receivers.
type PayoutEvent struct {
	// ID is the event id, the same as the webhook-id header; deduplicate on it.
	ID string `json:"id"`
	// Type is one of the payout.* event types.
	Type EventType `json:"type"`
	// CreatedAt is when the change happened.
	CreatedAt time.Time `json:"created_at"`
	// Data is the payout after the change and its status before.
	Data PayoutEventData `json:"data"`
}

// PayoutEventData is the payload of a PayoutEvent.
type PayoutEventData struct {
	// Object is the payout after the change.
	Object Payout `json:"object"`
	// PreviousStatus is the payout's status before the change.
	PreviousStatus PayoutStatus `json:"previous_status"`
}

// envelope is the success envelope `{status, code, message, data}` around every 2xx JSON body.
type envelope[T any] struct {
	Status  string `json:"status"`
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    T      `json:"data"`
}

// errorEnvelope is the document's Error schema.
type errorEnvelope struct {
	Status  string       `json:"status"`
	Code    ErrorCode    `json:"code"`
	Message string       `json:"message"`
	Errors  []FieldError `json:"errors"`
	Data    *errorData   `json:"data,omitempty"`
}

// errorData is the document's ErrorData schema.
type errorData struct {
	ExistingID string `json:"existing_id,omitempty"`
}

// validEnum reports whether v is one of values; used by client-side validation.
func validEnum[T comparable](v T, values []T) bool { return slices.Contains(values, v) }
