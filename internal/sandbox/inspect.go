package sandbox

import (
	"cmp"
	"slices"
	"strings"
	"time"

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

// Payments returns every payment of the merchant with publicKey, in no particular order.
func (s *Server) Payments(publicKey string) []Payment {
	m := s.merchantOf(publicKey)
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Payment, 0, len(m.payments))
	for _, p := range m.payments {
		out = append(out, *p)
	}
	return out
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
	out := make([]WebhookEndpoint, 0, len(m.endpointOrder))
	for _, id := range m.endpointOrder {
		out = append(out, m.endpoints[id].copyPublic())
	}
	return out
}

// RecentEvents returns the newest n events of the merchant with publicKey, newest first: what a
// view of the latest activity needs, at the cost of n events whatever the history's length.
func (s *Server) RecentEvents(publicKey string, n int) []Event {
	if publicKey == "" || n < 1 {
		return nil
	}
	page, _ := s.events.list(eventQuery{Merchant: publicKey, Descending: true, Limit: n})
	return cloneBodies(page)
}

// EventAttempts returns the kept delivery attempts of the event with id, oldest first.
func (s *Server) EventAttempts(eventID string) []Attempt {
	if eventID == "" {
		return nil
	}
	return s.events.attemptsOf(eventID)
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
	return newest(m.payments, n, func(p *Payment) (time.Time, string) { return p.UpdatedAt, p.PaymentReference })
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
	return newest(m.payouts, n, func(p *Payout) (time.Time, string) { return p.UpdatedAt, p.PayoutID })
}

// newest returns copies of the n values of objects with the latest (time, id), latest first. The
// caller holds the lock that guards objects.
func newest[T any](objects map[string]*T, n int, key func(*T) (time.Time, string)) []T {
	after := func(a, b *T) int { // > 0 when a is newer than b
		ta, ia := key(a)
		tb, ib := key(b)
		return cmp.Or(ta.Compare(tb), strings.Compare(ia, ib))
	}
	top := make([]*T, 0, min(n, len(objects)))
	for _, o := range objects {
		if len(top) == n && after(o, top[n-1]) <= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, o, func(e, target *T) int { return after(target, e) })
		if len(top) == n {
			top = top[:n-1]
		}
		top = slices.Insert(top, i, o)
	}
	out := make([]T, len(top))
	for i, o := range top {
		out[i] = *o
	}
	return out
}
