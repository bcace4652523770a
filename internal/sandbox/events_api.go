package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The event-log extension (/v1/events): a merchant's events, their delivery attempts, and resend. It
// reads the indexed event store (package store, events.go), so that a request costs O(log n + what it returns)
// however long the sandbox has run; nothing here scans the history.

// defaultEventPage is the page size of a listing without `limit` (the document's default).
const defaultEventPage = 20

// cursorPrefix starts every cursor, so that a cursor is never mistaken for an event id in a log.
const cursorPrefix = "c_"

// encodeCursor makes the opaque cursor that continues a listing after the event numbered seq.
func encodeCursor(seq uint64) string { return cursorPrefix + strconv.FormatUint(seq, 36) }

// decodeCursor reads a cursor encodeCursor made.
func decodeCursor(c string) (uint64, bool) {
	rest, ok := strings.CutPrefix(c, cursorPrefix)
	if !ok {
		return 0, false
	}
	seq, err := strconv.ParseUint(rest, 36, 64)
	return seq, err == nil && seq > 0
}

// eventResource is the document's Event for a stored event: its body is the payload, as delivered.
func eventResource(ev Event) api.Event {
	return api.Event{ID: ev.ID, Type: api.EventType(ev.Type), ObjectID: ev.ObjectID, CreatedAt: ev.Emitted.UTC(), Payload: api.RawJSON(ev.Body)}
}

func (s *Server) listEvents(req *request) *response {
	query := req.r.URL.Query()
	q := store.EventQuery{Merchant: req.m.publicKey, Type: query.Get("type"), ObjectID: query.Get("object_id"), Descending: true, Limit: defaultEventPage}
	var problems []FieldError
	for _, bound := range []struct {
		name string
		to   *time.Time
	}{{"created_after", &q.Since}, {"created_before", &q.Until}} {
		v := query.Get(bound.name)
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			problems = append(problems, FieldError{Field: "query." + bound.name, Reason: "must be an RFC 3339 date-time, e.g. 2026-11-21T10:15:00Z"})
			continue
		}
		*bound.to = t
	}
	if v := query.Get("limit"); v != "" {
		// Only reachable with validation off, for anything but digits: the schema bounds it.
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			problems = append(problems, FieldError{Field: "query.limit", Reason: "must be an integer from 1 to 100"})
		}
		q.Limit = n
	}
	if v := query.Get("cursor"); v != "" {
		seq, ok := decodeCursor(v)
		if !ok {
			problems = append(problems, FieldError{Field: "query.cursor", Reason: "is not a cursor this service gave; pass the next_cursor of the previous page as it is"})
		}
		q.Cursor = seq
	}
	if len(problems) > 0 {
		return s.invalid(problems...)
	}
	page, more := s.store.Events(q)
	out := api.EventPage{Items: make([]api.Event, 0, len(page)), HasMore: more}
	for _, ev := range page {
		out.Items = append(out.Items, eventResource(ev))
	}
	if more {
		out.NextCursor = encodeCursor(page[len(page)-1].Seq)
	}
	return s.success(http.StatusOK, "Events retrieved", out)
}

// merchantEvent returns the event with the request's event_id when it is the merchant's; another
// merchant's event is as unknown as one that never existed.
func (s *Server) merchantEvent(req *request) (Event, *response) {
	id := req.params["event_id"]
	ev, ok := s.store.Event(id)
	if !ok || ev.MerchantPublicKey != req.m.publicKey {
		return Event{}, s.notFound(fmt.Sprintf("No event %s exists for this merchant; list the events with %s %s.", id,
			api.OpListEvents().Method, api.OpListEvents().Path))
	}
	return ev, nil
}

func (s *Server) getEvent(req *request) *response {
	ev, fail := s.merchantEvent(req)
	if fail != nil {
		return fail
	}
	return s.success(http.StatusOK, "Event retrieved", eventResource(ev))
}

func (s *Server) listEventAttempts(req *request) *response {
	ev, fail := s.merchantEvent(req)
	if fail != nil {
		return fail
	}
	attempts := s.store.Attempts(ev.ID)
	attempts = attempts[max(0, len(attempts)-s.limits.attempts):] // the most recent, still oldest first
	out := make([]api.DeliveryAttempt, 0, len(attempts))
	for _, a := range attempts {
		out = append(out, s.attemptResource(a))
	}
	return s.success(http.StatusOK, "Delivery attempts retrieved", out)
}

// attemptResource is the document's DeliveryAttempt for a recorded attempt; its error (which quotes the
// URL, up to 2048 characters) cut to the document's bound.
func (s *Server) attemptResource(a Attempt) api.DeliveryAttempt {
	out := api.DeliveryAttempt{Destination: destination(a.URL, a.EndpointID), Number: int64(a.Number), Resend: a.Resend,
		StartedAt: a.Started.UTC(), DurationMs: a.Duration.Milliseconds(), Error: clip(a.Error, s.limits.attemptErr),
		ResponseBody: strings.ToValidUTF8(string(a.ResponseBody), "\uFFFD"), Delivered: a.Delivered, Final: a.Final}
	if a.StatusCode != 0 {
		code := int64(a.StatusCode)
		out.StatusCode = &code
	}
	return out
}

func destination(url, endpointID string) api.DeliveryDestination {
	if endpointID == "" {
		return api.DeliveryDestination{Kind: api.DeliveryDestinationKindWebhookURL, URL: url}
	}
	return api.DeliveryDestination{Kind: api.DeliveryDestinationKindEndpoint, URL: url, EndpointID: endpointID}
}

// resendEvent queues the event again, with the same id (the webhook-id of every attempt) and body: to
// the destinations it has now (the object's webhook_url, the enabled endpoints subscribed to its
// type), or to the one endpoint the body names, whatever it subscribes to. Seed data delivers
// nothing, as everywhere: its URLs are the documentation's.
func (s *Server) resendEvent(req *request) *response {
	var in api.ResendEventRequest
	if fail := s.decode(req.value, &in); fail != nil {
		return fail
	}
	ev, fail := s.merchantEvent(req)
	if fail != nil {
		return fail
	}
	m := req.m
	var queued []*delivery
	if in.EndpointID != "" {
		e, ok := m.st.Endpoint(in.EndpointID)
		if !ok {
			return s.endpointNotFound(in.EndpointID)
		}
		if !e.Seeded {
			queued = append(queued, &delivery{Delivery: store.Delivery{Event: ev, Merchant: m.publicKey, EndpointID: e.ID, URL: e.URL, Resend: true, Chosen: true}, merchant: m})
		}
	} else {
		queued = s.destinations(m, ev, s.objectURL(m, ev))
		for _, d := range queued {
			d.Resend = true
		}
	}
	s.queue(req.tx, queued)
	out := api.EventResend{EventID: ev.ID, Deliveries: make([]api.DeliveryDestination, 0, len(queued))}
	for _, d := range queued {
		out.Deliveries = append(out.Deliveries, destination(d.URL, d.EndpointID))
	}
	return s.success(http.StatusAccepted, "Event resend queued", out)
}

// objectURL is the deliverable webhook_url of the object an event is about, now; "" when it has none
// (or is seed data). The caller holds m.mu.
func (s *Server) objectURL(m *merchant, ev Event) string {
	if strings.HasPrefix(ev.Type, "payment.") {
		if p, ok := m.st.Payment(ev.ObjectID); ok {
			return deliverableURL(p.WebhookURL, p.Seeded)
		}
		return ""
	}
	if p, ok := m.st.Payout(ev.ObjectID); ok {
		return deliverableURL(p.WebhookURL, p.Seeded)
	}
	return ""
}

// seedEvent puts an event example into the log, emitted at its created_at and never delivered. The
// caller holds m.mu.
func (s *Server) seedEvent(tx *store.Tx, m *merchant, raw []byte) error {
	var body struct {
		ID        string    `json:"id"`
		Type      string    `json:"type"`
		CreatedAt time.Time `json:"created_at"`
		Data      struct {
			PreviousStatus string `json:"previous_status"`
			Object         struct {
				PaymentReference string `json:"paymentReference"`
				PayoutID         string `json:"payout_id"`
			} `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return err
	}
	s.store.AddEvent(tx, Event{ID: body.ID, Type: body.Type, ObjectID: body.Data.Object.PaymentReference + body.Data.Object.PayoutID,
		PreviousStatus: body.Data.PreviousStatus, MerchantPublicKey: m.publicKey, Emitted: body.CreatedAt, Body: raw})
	return nil
}
