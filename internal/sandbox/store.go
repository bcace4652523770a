package sandbox

import (
	"fmt"
	"sync"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Payment is a stored payment: the document's Payment (package api, which the responses, events and
// in-process inspection all encode) and what the sandbox keeps beside it (package store).
type Payment = store.Payment

// Payout is a stored payout: the document's Payout and what the sandbox keeps beside it.
type Payout = store.Payout

// WebhookEndpoint is a webhook endpoint as GET returns it: without its secret (the document's
// WebhookEndpoint).
type WebhookEndpoint = api.WebhookEndpoint

// merchant is one merchant: its keys and its part of the store. mu orders everything that changes
// the merchant's state: every request of the merchant runs its handler under it, inside one store
// transaction that is committed before mu is released (server.go), and so do the simulated network's
// changes (settlements). Nothing of one merchant is reachable from another's requests.
type merchant struct {
	publicKey string
	secretKey string
	secret    webhook.Secret // secretKey parsed for signing deliveries to objects' webhook_url

	mu sync.Mutex
	st *store.Merchant

	limiter rateLimiter // its own lock: counting a request never waits for the merchant's
}

func newMerchant(publicKey, secretKey string, st *store.Store) (*merchant, error) {
	sec, err := webhook.ParseSecret(secretKey)
	if err != nil {
		return nil, fmt.Errorf("merchant %s: the secret key cannot sign webhooks: %w", publicKey, err)
	}
	return &merchant{publicKey: publicKey, secretKey: secretKey, secret: sec, st: st.AddMerchant(publicKey)}, nil
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
