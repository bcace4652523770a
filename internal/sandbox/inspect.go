package sandbox

import (
	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

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
	return m.st.Payout(id)
}

// Payment returns the payment with paymentReference ref of the merchant with publicKey.
func (s *Server) Payment(publicKey, ref string) (Payment, bool) {
	m := s.merchantOf(publicKey)
	if m == nil {
		return Payment{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st.Payment(ref)
}

// Payouts returns every payout of the merchant with publicKey, in no particular order.
func (s *Server) Payouts(publicKey string) []Payout {
	m := s.merchantOf(publicKey)
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st.Payouts()
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
	e, ok := m.st.Endpoint(id)
	if !ok {
		return WebhookEndpoint{}, false
	}
	return e.Public(), true
}

// DeliveryFailures returns the delivery failures (a sandbox control) in force for the merchant with
// publicKey, oldest first.
func (s *Server) DeliveryFailures(publicKey string) []api.SandboxDeliveryFailure {
	m := s.merchantOf(publicKey)
	if m == nil {
		return nil
	}
	var out []api.SandboxDeliveryFailure
	for _, f := range m.st.Failures(s.cfg.clock()) {
		out = append(out, f.SandboxDeliveryFailure)
	}
	return out
}

// Payments returns every payment of the merchant with publicKey, in no particular order.
func (s *Server) Payments(publicKey string) []Payment {
	m := s.merchantOf(publicKey)
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st.Payments()
}

// WebhookEndpoints returns the webhook endpoints of the merchant with publicKey, oldest first,
// without their secrets.
func (s *Server) WebhookEndpoints(publicKey string) []WebhookEndpoint {
	m := s.merchantOf(publicKey)
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	all := m.st.Endpoints()
	out := make([]WebhookEndpoint, 0, len(all))
	for _, e := range all {
		out = append(out, e.Public())
	}
	return out
}

// RecentEvents returns the newest n events of the merchant with publicKey, newest first: what a
// view of the latest activity needs, at the cost of n events whatever the history's length.
func (s *Server) RecentEvents(publicKey string, n int) []Event {
	if publicKey == "" || n < 1 {
		return nil
	}
	page, _ := s.store.Events(store.EventQuery{Merchant: publicKey, Descending: true, Limit: n})
	return page
}

// EventAttempts returns the kept delivery attempts of the event with id, oldest first.
func (s *Server) EventAttempts(eventID string) []Attempt {
	if eventID == "" {
		return nil
	}
	return s.store.Attempts(eventID)
}

// RecentPayments returns the n payments of the merchant with publicKey that changed last, newest
// first. It looks at every payment but copies only n, so that a view of the latest activity costs
// the merchant's lock little even after a load test.
func (s *Server) RecentPayments(publicKey string, n int) []Payment {
	m := s.merchantOf(publicKey)
	if m == nil || n < 1 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st.RecentPayments(n)
}

// RecentPayouts returns the n payouts of the merchant with publicKey that changed last, newest first
// (see RecentPayments).
func (s *Server) RecentPayouts(publicKey string, n int) []Payout {
	m := s.merchantOf(publicKey)
	if m == nil || n < 1 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st.RecentPayouts(n)
}
