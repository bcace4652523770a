package contracttests

import (
	"net/http"
	"time"
)

// The kinds of Evidence.
const (
	// EvidenceRequest is a request the suite sent to the target, with the target's answer.
	EvidenceRequest = "request"
	// EvidenceWebhook is a webhook delivery the target sent to the suite's receiver, with the
	// receiver's answer.
	EvidenceWebhook = "webhook"
)

// MaxEvidenceBody is how much of each body (request, response or delivery) reports keep: 64 KiB. A
// longer body is cut there, with HTTPMessage.BodyTruncated set and HTTPMessage.BodySize giving its
// real length. The limit keeps a report of a badly broken target (every check failed, each with a
// megabyte body) in the megabytes, not the gigabytes; the curl command still carries the whole body
// when it is made of long runs of one byte, as the suite's oversized bodies are (see Evidence.Curl).
const MaxEvidenceBody = 64 << 10

// Evidence is one exchange of a run as the reports show it: a request the suite sent and the target's
// answer (Kind "request"), or a webhook delivery the target sent to the suite's receiver (Kind
// "webhook").
//
// Key values never appear in it: the `public-key` and `secret-key` header values the suite was given
// (its own merchant's and the second merchant's) show as `pk_test_…(redacted)`, and so does any of
// them, or any `whsec_` webhook secret, found in a URL, a body or another header. Key values the
// check invented to be refused (a wrong public key) are not secrets and stay as they were sent.
type Evidence struct {
	// Kind is EvidenceRequest or EvidenceWebhook.
	Kind string `json:"kind"`
	// Check is the id of the check it belongs to: the check that sent the request, or the one whose
	// receiver path (T.Hook) the delivery was sent to.
	Check string `json:"check,omitempty"`
	// Operation is the operationId the request was routed to, or the webhook event type.
	Operation string `json:"operation,omitempty"`
	// Started is when the request was sent, or when the delivery arrived.
	Started time.Time `json:"started"`
	// Duration is until the whole response was read, or until the receiver answered.
	Duration time.Duration `json:"duration_ns"`
	Request  HTTPMessage   `json:"request"`
	// Response is the target's answer, or, for a webhook, what the receiver answered (Status 0 when
	// the sender gave up first).
	Response HTTPMessage `json:"response"`
	// Error is the transport error met instead of a response, if any.
	Error string `json:"error,omitempty"`
	// Curl is a shell command that sends Request again (requests only). It reads the keys the suite
	// was given from $MALIPO_PUBLIC_KEY and $MALIPO_SECRET_KEY (the second merchant's from
	// $MALIPO_OTHER_PUBLIC_KEY and $MALIPO_OTHER_SECRET_KEY), sends exactly the headers the suite set
	// and the whole body, so that pasted in a shell against the same target it gets the same status.
	Curl string `json:"curl,omitempty"`
}

// HTTPMessage is one side of an exchange: a request (Method, URL) or a response (Status).
type HTTPMessage struct {
	Method string `json:"method,omitempty"`
	URL    string `json:"url,omitempty"`
	Status int    `json:"status,omitempty"`
	// Header is every header the suite set on the request, or the target sent, with key values
	// redacted.
	Header http.Header `json:"header,omitempty"`
	// Body is the body as text, at most MaxEvidenceBody bytes of it.
	Body string `json:"body,omitempty"`
	// BodyTruncated says Body is only the first MaxEvidenceBody bytes.
	BodyTruncated bool `json:"body_truncated,omitempty"`
	// BodySize is the length of the whole body in bytes.
	BodySize int `json:"body_size,omitempty"`
}

// Observer is an optional interface of a Reporter: one that implements it receives every exchange and
// every webhook delivery of the run as it ends, whichever check it belongs to and whether the check
// passes or not (HARRecorder writes them all to a file). Observe is called from one goroutine at a
// time, while checks run; it must not block for long, since the exchange's check waits for it.
type Observer interface {
	Observe(Evidence)
}
