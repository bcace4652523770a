package sandbox

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Payment is a stored payment: the document's Payment (package api, which the responses, events and
// in-process inspection all encode) and what the sandbox keeps beside it.
type Payment struct {
	api.Payment
	seeded      bool   // seed data (seed.go): nothing is delivered to its webhook_url
	redirectURL string // what RedirectURL points to once packed
}

// Payout is a stored payout: the document's Payout and what the sandbox keeps beside it.
type Payout struct {
	api.Payout
	seeded        bool   // seed data (seed.go): nothing is delivered to its webhook_url
	accountNumber string // what AccountNumber points to once packed
}

// pack puts the payment's own strings into one allocation, and its optional RedirectURL into the
// payment itself. See packStrings.
func (p *Payment) pack() {
	if p.RedirectURL != nil {
		p.redirectURL = *p.RedirectURL
	}
	packStrings(&p.PaymentReference, &p.Reference, &p.Narration, &p.PhoneNumber, &p.WebhookURL, &p.redirectURL)
	if p.RedirectURL != nil {
		p.RedirectURL = &p.redirectURL
	}
}

// pack puts the payout's own strings into one allocation, and its optional AccountNumber into the
// payout itself. See packStrings.
func (p *Payout) pack() {
	if p.AccountNumber != nil {
		p.accountNumber = *p.AccountNumber
	}
	packStrings(&p.PayoutID, &p.Reference, &p.MomoPhoneNumber, &p.Narration, &p.WebhookURL, &p.accountNumber)
	if p.AccountNumber != nil {
		p.AccountNumber = &p.accountNumber
	}
}

// packStrings copies the strings into one allocation and points each at its part of it. A sandbox
// keeps every object it created, and the garbage collector visits every heap object on every cycle:
// a payout decoded field by field is half a dozen objects (each string, the pointer to an optional
// one), packed it is two, the struct and its bytes. The merchant's maps share the packed strings
// (keys by id and reference), so they add none. Call it before the strings are shared.
func packStrings(fields ...*string) {
	n := 0
	for _, f := range fields {
		n += len(*f)
	}
	var b strings.Builder
	b.Grow(n)
	for _, f := range fields {
		b.WriteString(*f)
	}
	all, off := b.String(), 0
	for _, f := range fields {
		k := len(*f)
		*f = all[off : off+k]
		off += k
	}
}

// WebhookEndpoint is a webhook endpoint as GET returns it: without its secret (the document's
// WebhookEndpoint).
type WebhookEndpoint = api.WebhookEndpoint

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
	idem          *idemStore

	// failuresMu guards failures apart from mu: the dispatcher reads them on every attempt, and a
	// delivery must not wait for the merchant's requests (nor they for it).
	failuresMu sync.Mutex
	failures   []*deliveryFailure // sandbox control: deliveries to these URLs fail until they expire
}

func newMerchant(publicKey, secretKey string) (*merchant, error) {
	sec, err := webhook.ParseSecret(secretKey)
	if err != nil {
		return nil, fmt.Errorf("merchant %s: the secret key cannot sign webhooks: %w", publicKey, err)
	}
	return &merchant{
		publicKey:  publicKey,
		secretKey:  secretKey,
		secret:     sec,
		payments:   map[string]*Payment{},
		payouts:    map[string]*Payout{},
		references: map[string]string{},
		endpoints:  map[string]*endpoint{},
		idem:       newIdemStore(),
	}, nil
}

// signingSecret is the key deliveries to an object's own webhook_url are signed with.
func (m *merchant) signingSecret() webhook.Secret { return m.secret }

// nonEmpty is s as an optional field: nil (absent) when empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is an optional field's value, "" when absent.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
