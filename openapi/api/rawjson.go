package api

import "encoding/json"

// RawJSON is a value the document declares as one of several schemas inline (an Event's payload: a
// PaymentEvent or a PayoutEvent), kept as the JSON it is: it encodes exactly as received, and the
// caller decodes it into the member its discriminating field names (for an event, its type).
type RawJSON = json.RawMessage
