package sandbox

import (
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Event is one webhook event the sandbox emitted: one per status change of a payment or payout
// (package store keeps them).
type Event = store.Event

// emitPayment reports a payment's status change, made in tx, as the document's PaymentEvent (see
// emit).
func (s *Server) emitPayment(tx *store.Tx, m *merchant, p Payment, previous api.PaymentStatus) {
	t := api.EventType("payment." + p.Status)
	s.emit(tx, m, t, p.PaymentReference, deliverableURL(p.WebhookURL, p.Seeded), string(previous), func(id string, at time.Time) any {
		return api.PaymentEvent{ID: id, Type: t, CreatedAt: at, Data: api.PaymentEventData{Object: p.Payment, PreviousStatus: previous}}
	})
}

// emitPayout reports a payout's status change, made in tx, as the document's PayoutEvent (see emit).
func (s *Server) emitPayout(tx *store.Tx, m *merchant, p Payout, previous api.PayoutStatus) {
	t := api.EventType("payout." + p.Status)
	s.emit(tx, m, t, p.PayoutID, deliverableURL(p.WebhookURL, p.Seeded), string(previous), func(id string, at time.Time) any {
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
// one object; what happens here under it is O(1) in the sandbox's history.
//
// The event and the outbox entries of its deliveries are written in tx, the change's transaction:
// a crash leaves either the old status with nothing owed (the settlement happens again after the
// restart) or the new one with every delivery in the outbox, never a status change that nobody will
// be told about. The deliveries start once tx is committed.
func (s *Server) emit(tx *store.Tx, m *merchant, eventType api.EventType, objectID, objectURL, previous string, event func(id string, at time.Time) any) {
	ev := Event{ID: newID(prefixEvent), Type: string(eventType), ObjectID: objectID, PreviousStatus: previous,
		MerchantPublicKey: m.publicKey, Emitted: time.Now()}
	ev.Body = marshal(event(ev.ID, s.now()))
	ev = s.store.AddEvent(tx, ev)
	s.notices.publish(Notice{Kind: NoticeEvent, Merchant: m.publicKey, ID: ev.ID})
	s.queue(tx, s.destinations(m, ev, objectURL))
}

// queue puts deliveries in the outbox with tx, and hands them to the dispatcher once tx is committed.
func (s *Server) queue(tx *store.Tx, dels []*delivery) {
	for _, del := range dels {
		s.store.Enqueue(tx, &del.Delivery)
		tx.Then(func(c store.Commit) {
			del.commit = c
			s.disp.enqueue(del)
		})
	}
}

// destinations returns the deliveries an event of m goes to now: the object's own webhook_url (""
// when it has none, or is seed data) and every endpoint of m subscribed to the event's type and
// enabled (seed data's endpoints receive nothing). The caller holds m.mu.
func (s *Server) destinations(m *merchant, ev Event, objectURL string) []*delivery {
	var dels []*delivery
	if objectURL != "" {
		dels = append(dels, &delivery{Delivery: store.Delivery{Event: ev, Merchant: m.publicKey, URL: objectURL}, merchant: m})
	}
	for _, e := range m.st.Endpoints() {
		if e.Seeded || !s.rules.Receives(e.WebhookEndpoint, api.EventType(ev.Type)) {
			continue
		}
		dels = append(dels, &delivery{Delivery: store.Delivery{Event: ev, Merchant: m.publicKey, EndpointID: e.ID, URL: e.URL}, merchant: m})
	}
	return dels
}

// target resolves where and how an attempt of d is sent, at the time of the attempt: an endpoint's
// current URL and secrets (so a rotation during retries is honoured), or the object's webhook_url and
// the merchant's secret key. ok is false when the endpoint was deleted meanwhile or no longer
// receives the event (disabled, or unsubscribed from its type; an endpoint a resend named gets it
// while it exists).
func (s *Server) target(d *delivery) (url string, secrets []webhook.Secret, ok bool) {
	if d.EndpointID == "" {
		return d.URL, []webhook.Secret{d.merchant.signingSecret()}, true
	}
	m := d.merchant
	m.mu.Lock()
	e, found := m.st.Endpoint(d.EndpointID)
	m.mu.Unlock()
	if !found || (!d.Chosen && !s.rules.Receives(e.WebhookEndpoint, api.EventType(d.Event.Type))) {
		return "", nil, false
	}
	return e.URL, e.ValidSecrets(s.cfg.clock()), true
}

// Events returns the events kept (the most recent 10000) for the merchant with publicKey (all
// merchants when it is empty), oldest first.
func (s *Server) Events(publicKey string) []Event {
	page, _ := s.store.Events(store.EventQuery{Merchant: publicKey})
	return page
}
