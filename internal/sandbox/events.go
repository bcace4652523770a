package sandbox

import (
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Event is one webhook event the sandbox emitted: one per status change of a payment or payout.
// Tests and the contract suite read them through Events to compare what was sent with what arrived.
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

// emitPayment reports a payment's status change as the document's PaymentEvent, and writes the
// payment with it (see emit).
func (s *Server) emitPayment(m *merchant, p *Payment, previous api.PaymentStatus) commit {
	var save *op
	if s.disk != nil {
		o := paymentOp(m, p)
		save = &o
	}
	t := api.EventType("payment." + p.Status)
	return s.emit(m, save, t, p.PaymentReference, deliverableURL(p.WebhookURL, p.seeded), string(previous), func(id string, at time.Time) any {
		return api.PaymentEvent{ID: id, Type: t, CreatedAt: at, Data: api.PaymentEventData{Object: p.Payment, PreviousStatus: previous}}
	})
}

// emitPayout reports a payout's status change as the document's PayoutEvent, and writes the payout
// with it (see emit).
func (s *Server) emitPayout(m *merchant, p *Payout, previous api.PayoutStatus) commit {
	var save *op
	if s.disk != nil {
		o := payoutOp(m, p)
		save = &o
	}
	t := api.EventType("payout." + p.Status)
	return s.emit(m, save, t, p.PayoutID, deliverableURL(p.WebhookURL, p.seeded), string(previous), func(id string, at time.Time) any {
		return api.PayoutEvent{ID: id, Type: t, CreatedAt: at, Data: api.PayoutEventData{Object: p.Payout, PreviousStatus: previous}}
	})
}

// deliverableURL is the object's webhook_url, or "" for seed data, whose url is the documentation's.
func deliverableURL(url string, seeded bool) string {
	if seeded {
		return ""
	}
	return url
}

// emit records a status change and queues its deliveries: to the object's own webhook_url (signed
// with the merchant's secret key) and to every endpoint of the merchant subscribed to the type and
// enabled (signed with the endpoint's secrets). The caller holds m.mu, which orders the events of
// one object; what happens here under it is O(1) in the sandbox's history (eventstore.go).
//
// With a data directory, the changed object (save), the event and the outbox entries of its
// deliveries are one write, so one transaction: a crash leaves either the old status with nothing
// owed (the settlement happens again after the restart) or the new one with every delivery in the
// outbox, never a status change that nobody will be told about.
func (s *Server) emit(m *merchant, save *op, eventType api.EventType, objectID, objectURL, previous string, event func(id string, at time.Time) any) commit {
	ev := Event{ID: newID(prefixEvent), Type: string(eventType), ObjectID: objectID, PreviousStatus: previous,
		MerchantPublicKey: m.publicKey, Emitted: time.Now()}
	ev.Body = marshal(event(ev.ID, s.now()))
	ev = s.events.add(ev)
	s.notices.publish(Notice{Kind: NoticeEvent, Merchant: m.publicKey, ID: ev.ID})

	dels := s.destinations(m, ev, objectURL)
	if s.disk == nil {
		for _, del := range dels {
			s.disp.enqueue(del)
		}
		return commit{}
	}
	ops := s.eventOps(&ev)
	if save != nil {
		ops = append(ops, *save)
	}
	for _, del := range dels {
		ops = append(ops, s.outboxOp(del))
	}
	c := s.disk.write(ops...)
	for _, del := range dels {
		del.commit = c
		s.disp.enqueue(del)
	}
	return c
}

// destinations returns the deliveries an event of m goes to now: the object's own webhook_url (""
// when it has none, or is seed data) and every endpoint of m subscribed to the event's type and
// enabled (seed data's endpoints receive nothing). The caller holds m.mu.
func (s *Server) destinations(m *merchant, ev Event, objectURL string) []*delivery {
	var dels []*delivery
	if objectURL != "" {
		dels = append(dels, &delivery{event: ev, merchant: m, url: objectURL})
	}
	for _, id := range m.endpointOrder {
		e := m.endpoints[id]
		if e.seeded || !s.rules.Receives(e.WebhookEndpoint, api.EventType(ev.Type)) {
			continue
		}
		dels = append(dels, &delivery{event: ev, merchant: m, endpointID: e.ID, url: e.URL})
	}
	return dels
}

// target resolves where and how an attempt of d is sent, at the time of the attempt: an endpoint's
// current URL and secrets (so a rotation during retries is honoured), or the object's webhook_url and
// the merchant's secret key. ok is false when the endpoint was deleted meanwhile or no longer
// receives the event (disabled, or unsubscribed from its type; an endpoint a resend named gets it
// while it exists).
func (s *Server) target(d *delivery) (url string, secrets []webhook.Secret, ok bool) {
	if d.endpointID == "" {
		return d.url, []webhook.Secret{d.merchant.signingSecret()}, true
	}
	m := d.merchant
	m.mu.Lock()
	defer m.mu.Unlock()
	e, found := m.endpoints[d.endpointID]
	if !found || (!d.chosen && !s.rules.Receives(e.WebhookEndpoint, api.EventType(d.event.Type))) {
		return "", nil, false
	}
	return e.URL, e.validSecrets(s.cfg.clock()), true
}

// Events returns the events kept (the most recent 10000) for the merchant with publicKey (all
// merchants when it is empty), oldest first.
func (s *Server) Events(publicKey string) []Event {
	page, _ := s.events.list(eventQuery{Merchant: publicKey})
	return cloneBodies(page)
}
