package report

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The kinds of Evidence.
const (
	// EvidenceRequest is a request the suite sent to the target, with the target's answer.
	EvidenceRequest = "request"
	// EvidenceWebhook is a webhook delivery the target sent to the suite's receiver, with the
	// receiver's answer.
	EvidenceWebhook = "webhook"
	// EvidenceDelivery is a webhook delivery a grader sent to a merchant's receiver (`malipo webhooks
	// test`), with the receiver's answer.
	EvidenceDelivery = "delivery"
)

// MaxEvidenceBody is how much of each body (request, response or delivery) reports keep: 64 KiB. A
// longer body is cut there, with HTTPMessage.BodyTruncated set and HTTPMessage.BodySize giving its
// real length. The limit keeps a report of a badly broken target (every check failed, each with a
// megabyte body) in the megabytes, not the gigabytes; the curl command still carries the whole body
// when it is made of long runs of one byte, as the suite's oversized bodies are (see Evidence.Curl).
const MaxEvidenceBody = 64 << 10

// Evidence is one exchange of a run as the reports show it: a request the contract suite sent and the
// target's answer (Kind "request"), a webhook delivery the target sent to the suite's receiver (Kind
// "webhook"), or a delivery the receiver grader sent to a merchant's receiver (Kind "delivery").
//
// Key values never appear in it: the `public-key` and `secret-key` header values the suite was given
// (its own merchant's and the second merchant's) show as `pk_test_…(redacted)`, and so does any of
// them, or any `whsec_` webhook secret, found in a URL, a body or another header. Key values the
// check invented to be refused (a wrong public key) are not secrets and stay as they were sent.
type Evidence struct {
	// Kind is EvidenceRequest, EvidenceWebhook or EvidenceDelivery.
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
	// and the whole body (a webhook secret and a merchant reference of a create made afresh by the
	// shell), so that pasted in a shell against the same target it gets the same status, as long as
	// what the request depends on has not changed since (see curl.go).
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

// headerLines returns the message's headers as "Name: value" lines, sorted by name, a line per value:
// how every report shows them.
func (m HTTPMessage) headerLines() []string {
	names := make([]string, 0, len(m.Header))
	for name := range m.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	var lines []string
	for _, name := range names {
		for _, v := range m.Header[name] {
			lines = append(lines, name+": "+v)
		}
	}
	return lines
}

// Observer is an optional interface of a Reporter: one that implements it receives every exchange and
// every webhook delivery of the run as it ends, whichever check it belongs to and whether the check
// passes or not (HARRecorder writes them all to a file). Observe is called from one goroutine at a
// time, while checks run; it must not block for long, since the exchange's check waits for it.
type Observer interface {
	Observe(Evidence)
}

// Observers hands every piece of evidence to the reporters of a run that are Observers, one call at a
// time. Its zero value observes nothing.
type Observers struct {
	mu   sync.Mutex
	list []Observer
}

// ObserversOf returns the Observers among reporters.
func ObserversOf(reporters []Reporter) *Observers {
	o := &Observers{}
	for _, r := range reporters {
		if ob, ok := r.(Observer); ok {
			o.list = append(o.list, ob)
		}
	}
	return o
}

// Observe hands ev to every observer, one call at a time.
func (o *Observers) Observe(ev Evidence) {
	if o == nil || len(o.list) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, ob := range o.list {
		ob.Observe(ev)
	}
}

// Key is one key value a grader was given and the environment variable a curl command reads it from
// ($MALIPO_PUBLIC_KEY, …).
type Key struct{ Value, Env string }

// Redactor keeps key values and webhook secrets out of evidence and reports. It knows the key values
// the grader was given (NewRedactor) and recognises webhook secrets by their form (`whsec_` and
// base64). Its zero value knows no key and still redacts webhook secrets.
type Redactor struct {
	keys []Key // longest value first, so that a key containing another is replaced whole
}

// minRedactedKey is the shortest key value replaced wherever it appears in a text; a shorter one would
// mangle ordinary words, and is still redacted as a whole header value.
const minRedactedKey = 4

// whsecPattern matches a webhook secret as a JSON string, a URL query or a header shows it (JSON may
// escape its slashes, a query percent-encodes + / =).
var whsecPattern = regexp.MustCompile(`whsec_(?:[A-Za-z0-9+/=_%-]|\\/)+`)

// keyPrefix is the part of a key shown when it is redacted: `pk_test_`, `sk_live_`, `whsec_`.
var keyPrefix = regexp.MustCompile(`^[A-Za-z]{1,8}_(?:(?:test|live)_)?`)

// NewRedactor returns a Redactor of the keys given (a key with an empty Value is left out).
func NewRedactor(keys ...Key) Redactor {
	var r Redactor
	for _, k := range keys {
		if k.Value != "" && !slices.ContainsFunc(r.keys, func(have Key) bool { return have.Value == k.Value }) {
			r.keys = append(r.keys, k)
		}
	}
	slices.SortStableFunc(r.keys, func(a, b Key) int { return len(b.Value) - len(a.Value) })
	return r
}

// masked is how a redacted value shows: its kind's prefix, if it has one, and "…(redacted)".
func masked(value string) string {
	prefix := keyPrefix.FindString(value)
	if len(prefix) >= len(value) {
		prefix = ""
	}
	return prefix + "…(redacted)"
}

// userinfoPassword matches the password of a URL's userinfo (`https://ci:TOKEN@host`): a credential in a
// --target or --url, which no report shows.
var userinfoPassword = regexp.MustCompile(`(://[^/?#@\s:]*):[^/?#@\s]+@`)

// MaskUserinfo redacts the password of every URL's userinfo in s, keeping the user: a target given as
// https://ci:TOKEN@host shows as https://ci:…(redacted)@host in every report and rerun line.
func MaskUserinfo(s string) string {
	return userinfoPassword.ReplaceAllString(s, "$1:…(redacted)@")
}

// MaskedArgs is args with MaskUserinfo applied to each: a rerun command as reports print it.
func MaskedArgs(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = MaskUserinfo(a)
	}
	return out
}

// Text redacts every key value (also URL-encoded), every webhook secret and every URL's userinfo
// password in s.
func (r Redactor) Text(s string) string {
	for _, k := range r.keys {
		if len(k.Value) < minRedactedKey {
			continue
		}
		s = strings.ReplaceAll(s, k.Value, masked(k.Value))
		if q := url.QueryEscape(k.Value); q != k.Value {
			s = strings.ReplaceAll(s, q, masked(k.Value))
		}
	}
	return MaskUserinfo(whsecPattern.ReplaceAllString(s, "whsec_…(redacted)"))
}

// Header copies h with every value redacted; a value that is one of the keys is masked whole, however
// short.
func (r Redactor) Header(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for name, values := range h {
		vs := make([]string, len(values))
		for i, v := range values {
			if r.keyVar(v) != "" {
				vs[i] = masked(v)
			} else {
				vs[i] = r.Text(v)
			}
		}
		out[name] = vs
	}
	return out
}

// MaxEvidencePerCheck bounds the exchanges one check keeps for its report. A check that polls (for a
// settlement, a delivery) can make a hundred requests that differ only in time; past the bound the
// first EvidenceHead are kept, then the latest, and Result.EvidenceOmitted counts the rest. The
// Observers still receive every one.
const (
	MaxEvidencePerCheck = 200
	EvidenceHead        = 20
)

// keyVar returns the environment variable of the key whose value is exactly v, "" for none.
func (r Redactor) keyVar(v string) string {
	for _, k := range r.keys {
		if k.Value == v {
			return k.Env
		}
	}
	return ""
}

// Message fills the header and body of m: redacted, the body cut to MaxEvidenceBody (at a character
// boundary), with its real size.
func (r Redactor) Message(m *HTTPMessage, h http.Header, body []byte) {
	m.Header = r.Header(h)
	if len(body) == 0 {
		return
	}
	m.BodySize = len(body)
	s := r.Text(string(body))
	if len(s) > MaxEvidenceBody {
		cut := MaxEvidenceBody
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s, m.BodyTruncated = s[:cut], true
	}
	m.Body = s
}
