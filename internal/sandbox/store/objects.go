package store

import (
	"slices"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Payment is a stored payment: the document's Payment (package api, which the responses, events and
// in-process inspection all encode) and what the sandbox keeps beside it.
type Payment struct {
	api.Payment
	// Seeded marks seed data: nothing is delivered to its webhook_url (the documentation's).
	Seeded      bool   `json:"-"`
	redirectURL string // what RedirectURL points to in the arena
}

// Payout is a stored payout: the document's Payout and what the sandbox keeps beside it.
type Payout struct {
	api.Payout
	// Seeded marks seed data: nothing is delivered to its webhook_url (the documentation's).
	Seeded        bool   `json:"-"`
	accountNumber string // what AccountNumber points to in the arena
}

// Endpoint is a stored webhook endpoint: the public part (the document's WebhookEndpoint) and its
// signing secrets.
type Endpoint struct {
	api.WebhookEndpoint
	Secret webhook.Secret
	// Previous are the secrets rotations replaced that may still sign, each until its Expires.
	Previous []PreviousSecret
	// Seeded marks seed data with the documentation's url: it receives nothing until the url changes.
	Seeded bool
}

// PreviousSecret is a replaced endpoint secret and the end of its grace period.
type PreviousSecret struct {
	Secret  webhook.Secret
	Expires time.Time
}

// Public is the endpoint as GET returns it, without its secrets, sharing nothing with the store.
func (e *Endpoint) Public() api.WebhookEndpoint {
	out := e.WebhookEndpoint
	out.Events = slices.Clone(e.Events)
	if e.Description != nil {
		d := *e.Description
		out.Description = &d
	}
	return out
}

// clone is a copy of e that shares no slice with it.
func (e *Endpoint) clone() Endpoint {
	out := *e
	out.WebhookEndpoint = e.Public()
	out.Previous = slices.Clone(e.Previous)
	return out
}

// ValidSecrets returns the secrets a delivery at now is signed with: the current one first, then
// every previous one whose grace period has not ended.
func (e *Endpoint) ValidSecrets(now time.Time) []webhook.Secret {
	out := []webhook.Secret{e.Secret}
	for _, p := range e.Previous {
		if now.Before(p.Expires) {
			out = append(out, p.Secret)
		}
	}
	return out
}

// DeliveryFailure is a sandbox control: the merchant's deliveries to URL fail with StatusCode until
// Until (the document's expires_at is Until in whole seconds).
type DeliveryFailure struct {
	api.SandboxDeliveryFailure
	Until time.Time
}

// Event is one webhook event the sandbox emitted: one per status change of a payment or payout.
// Tests and the contract suite read them through the sandbox's Events to compare what was sent with
// what arrived.
type Event struct {
	// Seq numbers the sandbox's events from 1 in the order they were emitted, across merchants: the
	// cursor of a listing.
	Seq uint64
	// ID is the event id, also the webhook-id header of every delivery attempt.
	ID string
	// Type is `<object>.<new status>`, e.g. payout.failed.
	Type string
	// ObjectID is the paymentReference or payout_id the event is about.
	ObjectID string
	// PreviousStatus is the status before the change.
	PreviousStatus string
	// MerchantPublicKey names the merchant the object belongs to.
	MerchantPublicKey string
	// Emitted is when the status changed, with full precision (the body's created_at has seconds). It
	// never decreases along Seq.
	Emitted time.Time
	// Body is the JSON envelope exactly as delivered.
	Body []byte
}

// Attempt is one webhook delivery attempt. Tests use it to check retries (same webhook-id, growing
// Number), the contract suite to explain a failed webhook check.
type Attempt struct {
	// EventID is the event's id; WebhookID is the webhook-id header actually sent (they differ only
	// when an Outgoing hook changed it).
	EventID   string
	WebhookID string
	EventType string
	ObjectID  string
	// URL is where the attempt was sent; EndpointID is the webhook endpoint, empty for a delivery to
	// the object's own webhook_url.
	URL        string
	EndpointID string
	// Number counts attempts of this delivery from 1.
	Number int
	// Resend is true for the attempts of a delivery that the events API's resend asked for.
	Resend bool
	// StatusCode is the receiver's HTTP status, 0 when there was none (see Error).
	StatusCode int
	// Error says why the attempt failed without a status: time-out, refused connection, …
	Error string
	// ResponseBody is the first bytes of the receiver's answer, as it sent them.
	ResponseBody []byte
	// Delivered is true when the receiver acknowledged with a 2xx status.
	Delivered bool
	// Final is true when no further attempt follows: delivered, or the retry schedule is exhausted.
	Final bool
	// EventEmitted is when the status change happened; Started and Duration time the attempt.
	EventEmitted time.Time
	Started      time.Time
	Duration     time.Duration
}

// Delivery is a webhook delivery the store keeps in its outbox until it is finished: the event, its
// destination and how far its retry schedule got. Key is the outbox entry's (nil in memory).
type Delivery struct {
	Event      Event  `json:"event"`
	Merchant   string `json:"merchant"`
	EndpointID string `json:"endpoint_id,omitempty"`
	URL        string `json:"url"`
	// Resend marks a delivery the events API's resend asked for; Chosen one to an endpoint the caller
	// named, which gets it whatever the endpoint subscribes to.
	Resend bool `json:"resend,omitempty"`
	Chosen bool `json:"chosen,omitempty"`
	// Attempts is how many attempts were made; NextAt is when the next one is due (zero: at once).
	Attempts int       `json:"attempts,omitempty"`
	NextAt   time.Time `json:"next_at,omitzero"`

	Key []byte `json:"-"`
}
