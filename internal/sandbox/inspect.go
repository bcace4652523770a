package sandbox

import "github.com/malipo/terraform-provider-malipo/openapi/api"

// In-process inspection of the store. Tests of this package, the contract suite and the Terraform
// provider's CheckDestroy read the sandbox's state through these, never through its unexported maps.
// Every method returns a copy, so callers cannot change the sandbox behind its locks.

func (s *Server) merchantOf(publicKey string) *merchant {
	for _, m := range s.merchants {
		if m.publicKey == publicKey {
			return m
		}
	}
	return nil
}

// Payout returns the payout with id of the merchant with publicKey.
func (s *Server) Payout(publicKey, id string) (Payout, bool) {
	m := s.merchantOf(publicKey)
	if m == nil {
		return Payout{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.payouts[id]
	if !ok {
		return Payout{}, false
	}
	return *p, true
}

// Payment returns the payment with paymentReference ref of the merchant with publicKey.
func (s *Server) Payment(publicKey, ref string) (Payment, bool) {
	m := s.merchantOf(publicKey)
	if m == nil {
		return Payment{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.payments[ref]
	if !ok {
		return Payment{}, false
	}
	return *p, true
}

// Payouts returns every payout of the merchant with publicKey, in no particular order.
func (s *Server) Payouts(publicKey string) []Payout {
	m := s.merchantOf(publicKey)
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Payout, 0, len(m.payouts))
	for _, p := range m.payouts {
		out = append(out, *p)
	}
	return out
}

// WebhookEndpoint returns the webhook endpoint with id of the merchant with publicKey, without its
// secret; false once it is deleted.
func (s *Server) WebhookEndpoint(publicKey, id string) (WebhookEndpoint, bool) {
	m := s.merchantOf(publicKey)
	if m == nil {
		return WebhookEndpoint{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.endpoints[id]
	if !ok {
		return WebhookEndpoint{}, false
	}
	return e.copyPublic(), true
}

// DeliveryFailures returns the delivery failures (a sandbox control) in force for the merchant with
// publicKey, oldest first.
func (s *Server) DeliveryFailures(publicKey string) []api.SandboxDeliveryFailure {
	m := s.merchantOf(publicKey)
	if m == nil {
		return nil
	}
	m.failuresMu.Lock()
	defer m.failuresMu.Unlock()
	var out []api.SandboxDeliveryFailure
	for _, f := range m.activeFailures(s.cfg.clock()) {
		out = append(out, f.SandboxDeliveryFailure)
	}
	return out
}
