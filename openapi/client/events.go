package client

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The event-log extension (/v1/events): what the service emitted, each delivery attempt and the
// receiver's answer, and resending an event. A service without the extension answers 404
// (IsNotFound) on all of it.

type (
	// Event is one status change of a payment or payout, with Payload, the webhook body exactly as
	// delivered (decode it into a PaymentEvent or PayoutEvent by Type, or use PaymentEvent and
	// PayoutEvent methods).
	Event = api.Event
	// EventPage is one page of ListEvents: the events, newest first, and the cursor of the next page.
	EventPage = api.EventPage
	// DeliveryAttempt is one attempt to deliver an event to one destination, with the receiver's
	// status and the first 1024 bytes of its answer, or the error that left it without one.
	DeliveryAttempt = api.DeliveryAttempt
	// DeliveryDestination is where a delivery goes: an object's webhook_url or a webhook endpoint.
	DeliveryDestination = api.DeliveryDestination
	// DeliveryDestinationKind says which kind of destination a DeliveryDestination is.
	DeliveryDestinationKind = api.DeliveryDestinationKind
	// ResendEventRequest is the optional body of ResendEvent: an EndpointID resends to that endpoint
	// only; the zero value resends to every destination the event has now.
	ResendEventRequest = api.ResendEventRequest
	// EventResend is what ResendEvent queued: one delivery per destination.
	EventResend = api.EventResend
)

// maxEventPage is the largest page ListEvents can ask for (the document's maximum of `limit`).
const maxEventPage = 100

// ListEventsParams filters and pages ListEvents; the zero value asks for the newest events, as many
// as the service's default page holds.
type ListEventsParams struct {
	// Type keeps only events of this type.
	Type EventType
	// ObjectID keeps only events about this payment (paymentReference) or payout (payout_id).
	ObjectID string
	// CreatedAfter keeps events created at or after it; CreatedBefore those created before it. Zero
	// leaves that end open.
	CreatedAfter, CreatedBefore time.Time
	// Limit caps the page, 1 to 100; 0 takes the service's default.
	Limit int
	// Cursor continues after the page whose EventPage.NextCursor it is; the other fields must be
	// those of the first page.
	Cursor string
}

// query is p as the operation's query parameters, with the certain problems of it.
func (p ListEventsParams) query() (url.Values, validation) {
	var v validation
	q := url.Values{}
	if p.Type != "" {
		if !validEnum(p.Type, api.EventTypeValues()) {
			v.add("query.type", fmt.Sprintf("%q is not an event type; use one of %v", p.Type, api.EventTypeValues()))
		}
		q.Set("type", string(p.Type))
	}
	if p.ObjectID != "" {
		v.id("query.object_id", p.ObjectID)
		q.Set("object_id", p.ObjectID)
	}
	if !p.CreatedAfter.IsZero() {
		q.Set("created_after", p.CreatedAfter.UTC().Format(time.RFC3339Nano))
	}
	if !p.CreatedBefore.IsZero() {
		q.Set("created_before", p.CreatedBefore.UTC().Format(time.RFC3339Nano))
	}
	switch {
	case p.Limit < 0 || p.Limit > maxEventPage:
		v.add("query.limit", fmt.Sprintf("must be between 1 and %d (0 takes the service's default)", maxEventPage))
	case p.Limit > 0:
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	return q, v
}

// ListEvents returns one page of the merchant's events, newest first (GET /v1/events). Pass the
// page's NextCursor as Cursor, with the same filters, for the next page while HasMore is true.
func (c *Client) ListEvents(ctx context.Context, p ListEventsParams, opts ...CallOption) (*EventPage, error) {
	q, v := p.query()
	if err := v.err(api.OpListEvents()); err != nil {
		return nil, err
	}
	return call[EventPage](ctx, c, request{op: api.OpListEvents(), query: q, opts: opts})
}

// GetEvent returns one event of the merchant with the webhook body it delivers (GET
// /v1/events/{event_id}). Another merchant's event is not found.
func (c *Client) GetEvent(ctx context.Context, eventID string, opts ...CallOption) (*Event, error) {
	var v validation
	v.id("path.event_id", eventID)
	if err := v.err(api.OpGetEvent()); err != nil {
		return nil, err
	}
	return call[Event](ctx, c, request{op: api.OpGetEvent(), params: []string{eventID}, opts: opts})
}

// ListEventAttempts returns every delivery attempt of an event, oldest first (GET
// /v1/events/{event_id}/attempts).
func (c *Client) ListEventAttempts(ctx context.Context, eventID string, opts ...CallOption) ([]DeliveryAttempt, error) {
	var v validation
	v.id("path.event_id", eventID)
	if err := v.err(api.OpListEventAttempts()); err != nil {
		return nil, err
	}
	var out []DeliveryAttempt
	if err := c.do(ctx, request{op: api.OpListEventAttempts(), params: []string{eventID}, out: &out, opts: opts}); err != nil {
		return nil, err
	}
	return out, nil
}

// ResendEvent delivers an event again with the same webhook-id (POST /v1/events/{event_id}/resend):
// to every destination it has now, or to req.EndpointID only. The deliveries are queued; follow them
// with ListEventAttempts.
func (c *Client) ResendEvent(ctx context.Context, eventID string, req ResendEventRequest, opts ...CallOption) (*EventResend, error) {
	var v validation
	v.id("path.event_id", eventID)
	if req.EndpointID != "" {
		v.id("/endpoint_id", req.EndpointID)
	}
	if err := v.err(api.OpResendEvent()); err != nil {
		return nil, err
	}
	r := request{op: api.OpResendEvent(), params: []string{eventID}, opts: opts}
	if req != (ResendEventRequest{}) {
		r.body = req
	}
	return call[EventResend](ctx, c, r)
}
