package sandbox

import (
	"fmt"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Payment is a mobile-money collection as the API returns it (the spec's Payment schema). The JSON
// tags are the wire names, so the same type serves responses, events and in-process inspection.
type Payment struct {
	PaymentReference string    `json:"paymentReference"`
	Reference        string    `json:"reference"`
	Status           string    `json:"status"`
	FailureReason    string    `json:"failure_reason,omitempty"`
	Amount           float64   `json:"amount"`
	Currency         string    `json:"currency"`
	Country          string    `json:"country"`
	Method           string    `json:"method"`
	Narration        string    `json:"narration"`
	PhoneNumber      string    `json:"phone_number,omitempty"`
	WebhookURL       string    `json:"webhook_url"`
	RedirectURL      *string   `json:"redirect_url,omitempty"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`

	seeded bool // seed data (seed.go): nothing is delivered to its webhook_url
}

// Payout is a payout as the API returns it (the spec's Payout schema).
type Payout struct {
	PayoutID        string    `json:"payout_id"`
	Reference       string    `json:"reference,omitempty"`
	Amount          int64     `json:"amount"`
	Currency        string    `json:"currency"`
	CountryID       string    `json:"countryId"`
	TransferTo      string    `json:"transfer_to"`
	BankID          string    `json:"bank_id,omitempty"`
	AccountNumber   string    `json:"account_number,omitempty"`
	MomoPhoneNumber string    `json:"momo_phone_number,omitempty"`
	Narration       string    `json:"narration,omitempty"`
	WebhookURL      string    `json:"webhook_url,omitempty"`
	Status          string    `json:"status"`
	FailureReason   string    `json:"failure_reason,omitempty"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`

	seeded bool // seed data (seed.go): nothing is delivered to its webhook_url
}

// WebhookEndpoint is a webhook endpoint as GET returns it: without its secret (the spec's
// WebhookEndpoint schema).
type WebhookEndpoint struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Events      []string  `json:"events"`
	Description string    `json:"description,omitempty"`
	Enabled     bool      `json:"enabled"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// endpoint is the stored form of a webhook endpoint: the public part plus its signing secrets.
type endpoint struct {
	WebhookEndpoint
	secret   webhook.Secret
	previous []previousSecret // the secret the last rotation replaced, while its grace lasts
	seeded   bool             // seed data (seed.go) with the documentation's url: receives nothing until the url changes
}

type previousSecret struct {
	secret  webhook.Secret
	expires time.Time
}

// validSecrets returns the secrets a delivery at now is signed with: the current one first, then
// every previous one whose grace period has not ended.
func (e *endpoint) validSecrets(now time.Time) []webhook.Secret {
	out := []webhook.Secret{e.secret}
	kept := e.previous[:0]
	for _, p := range e.previous {
		if now.Before(p.expires) {
			kept = append(kept, p)
			out = append(out, p.secret)
		}
	}
	e.previous = kept
	return out
}

// merchant holds one merchant's keys and objects. Every access to its maps holds mu; nothing of one
// merchant is reachable from another's requests.
type merchant struct {
	publicKey string
	secretKey string
	secret    webhook.Secret // secretKey parsed for signing deliveries to objects' webhook_url

	mu            sync.Mutex
	payments      map[string]*Payment // by paymentReference
	payouts       map[string]*Payout  // by payout_id
	references    map[string]string   // merchant reference -> paymentReference or payout_id
	endpoints     map[string]*endpoint
	endpointOrder []string // ids, oldest first
	idempotency   map[string]*idemEntry
	idemInserts   int
}

func newMerchant(publicKey, secretKey string) (*merchant, error) {
	sec, err := webhook.ParseSecret(secretKey)
	if err != nil {
		return nil, fmt.Errorf("merchant %s: the secret key cannot sign webhooks: %w", publicKey, err)
	}
	return &merchant{
		publicKey:   publicKey,
		secretKey:   secretKey,
		secret:      sec,
		payments:    map[string]*Payment{},
		payouts:     map[string]*Payout{},
		references:  map[string]string{},
		endpoints:   map[string]*endpoint{},
		idempotency: map[string]*idemEntry{},
	}, nil
}

// signingSecret is the key deliveries to an object's own webhook_url are signed with.
func (m *merchant) signingSecret() webhook.Secret { return m.secret }
