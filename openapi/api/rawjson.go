package api

import "encoding/json"

// RawJSON is a value whose shape depends on a field of its own, kept as the JSON it is: an inline
// oneOf, or an object the document leaves open to members it does not declare (an Event's payload: a
// PaymentEvent, a PayoutEvent, or the body of an event type added later). It encodes exactly as
// received, and the caller decodes it by its discriminating field (for an event, its type).
type RawJSON = json.RawMessage
