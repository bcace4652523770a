package sandbox

import (
	"fmt"
	"sync"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// merchant is one merchant: its keys and its part of the store. mu orders everything that changes
// the merchant's state: every request of the merchant changes it under mu, inside one store
// transaction that is committed before mu is released (idempotent, server.go), and so do the
// simulated network's changes (settleDue). Nothing of one merchant is reachable from another's
// requests.
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
