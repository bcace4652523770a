package contracttests

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
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

// Observer is an optional interface of a Reporter: one that implements it receives every exchange and
// every webhook delivery of the run as it ends, whichever check it belongs to and whether the check
// passes or not (HARRecorder writes them all to a file). Observe is called from one goroutine at a
// time, while checks run; it must not block for long, since the exchange's check waits for it.
type Observer interface {
	Observe(Evidence)
}

// maxEvidencePerCheck bounds the exchanges one check keeps for its report. A check that polls (for a
// settlement, a delivery) can make a hundred requests that differ only in time; past the bound the
// first evidenceHead are kept, then the latest, and Result.EvidenceOmitted counts the rest. The
// Observers still receive every one.
const (
	maxEvidencePerCheck = 200
	evidenceHead        = 20
)

// recorder turns the suite's exchanges and the receiver's deliveries into Evidence (redacted, bodies
// cut to MaxEvidenceBody, with a curl command for requests) and hands each to the run's Observers.
type recorder struct {
	red       redactor
	observers []Observer
	seq       atomic.Uint64

	mu sync.Mutex // one Observe call at a time
}

// startEvidence sets up the recording of the run's evidence once its reporters are known: the
// reporters that are Observers receive every exchange and delivery, and the receiver records the
// deliveries of each check's paths into that check's evidence.
func (s *suite) startEvidence(reporters []Reporter) {
	rec := &recorder{red: newRedactor(&s.cfg)}
	for _, r := range reporters {
		if o, ok := r.(Observer); ok {
			rec.observers = append(rec.observers, o)
		}
	}
	s.evidence = rec
	s.receiver.startEvidence(rec)
}

// red returns the run's redactor.
func (s *suite) red() redactor {
	if s.evidence != nil {
		return s.evidence.red
	}
	return newRedactor(&s.cfg)
}

// next returns the sequence number of a new piece of evidence (never 0, which means "none").
func (rec *recorder) next() uint64 { return rec.seq.Add(1) }

// observe hands ev to every observer, one call at a time.
func (rec *recorder) observe(ev Evidence) {
	if len(rec.observers) == 0 {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, o := range rec.observers {
		o.Observe(ev)
	}
}

// loggedEvidence is one piece of a check's evidence with the sequence number failures refer to it by.
type loggedEvidence struct {
	seq uint64
	ev  Evidence
}

// evidenceLog is the evidence of one check while it runs. Its zero value is ready to use.
type evidenceLog struct {
	mu      sync.Mutex
	closed  bool // the check has ended: late deliveries are no longer kept
	entries []loggedEvidence
	omitted int
	// references are the merchant references the check has sent so far.
	references map[string]bool
}

// freshReferences returns the merchant references the suite made in body that a replay must make
// afresh: those of a request without an Idempotency-Key that the check had not sent before (see
// curl.go).
func (l *evidenceLog) freshReferences(header http.Header, body []byte) []string {
	refs := generatedReferences(body)
	if len(refs) == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.references == nil {
		l.references = map[string]bool{}
	}
	var fresh []string
	for _, ref := range refs {
		if !l.references[ref] && header.Get(api.HeaderIdempotencyKey) == "" {
			fresh = append(fresh, ref)
		}
		l.references[ref] = true
	}
	return fresh
}

// add appends one piece of evidence, dropping the oldest after the first evidenceHead when the log is
// full.
func (l *evidenceLog) add(seq uint64, ev Evidence) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if len(l.entries) >= maxEvidencePerCheck {
		l.entries = append(l.entries[:evidenceHead], l.entries[evidenceHead+1:]...)
		l.omitted++
	}
	l.entries = append(l.entries, loggedEvidence{seq: seq, ev: ev})
}

// update replaces the evidence logged under seq (a delivery, once the receiver has answered).
func (l *evidenceLog) update(seq uint64, ev Evidence) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.entries) - 1; i >= 0; i-- {
		if l.entries[i].seq == seq {
			l.entries[i].ev = ev
			return
		}
	}
}

// last returns the sequence number of the latest evidence, 0 when there is none.
func (l *evidenceLog) last() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) == 0 {
		return 0
	}
	return l.entries[len(l.entries)-1].seq
}

// close ends the log and returns what it holds.
func (l *evidenceLog) close() ([]loggedEvidence, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	entries, omitted := l.entries, l.omitted
	l.entries = nil
	return entries, omitted
}

// record logs ev as evidence of the check, hands it to the observers and returns its sequence number.
func (t *T) record(ev Evidence) uint64 {
	rec := t.suite.evidence
	if rec == nil {
		return 0
	}
	seq := rec.next()
	t.evidence.add(seq, ev)
	rec.observe(ev)
	return seq
}

// attachEvidence ends the check's evidence log and puts it in res when the check did not pass (or
// skip), with each failure pointing at the exchange it is about. Every failure's text is redacted, as
// messages quote bodies, and a body can hold a webhook secret.
func (t *T) attachEvidence(res *Result) {
	logged, omitted := t.evidence.close()
	red := t.suite.red()
	failures := slices.Clone(res.Failures)
	keep := res.Outcome != Passed && res.Outcome != Skipped
	index := make(map[uint64]int, len(logged))
	if keep && len(logged) > 0 {
		res.Evidence = make([]Evidence, len(logged))
		for i, le := range logged {
			res.Evidence[i] = le.ev
			index[le.seq] = i
		}
		res.EvidenceOmitted = omitted
	}
	for i := range failures {
		f := &failures[i]
		f.Message, f.Exchange, f.Pointer = red.text(f.Message), red.text(f.Exchange), red.text(f.Pointer)
		if at, ok := index[f.seq]; ok && f.seq != 0 {
			f.Evidence = []int{at}
		}
		f.seq = 0
	}
	res.Failures = failures
}

// noteLastExchange makes a failure that names no exchange refer to the one the check made last.
func (t *T) noteLastExchange(f *Failure) {
	if f.seq == 0 {
		f.seq = t.evidence.last()
	}
}

// keyVar is one key value the suite was given and the environment variable a curl command reads it
// from.
type keyVar struct{ value, env string }

// redactor keeps key values and webhook secrets out of evidence and reports. It knows the key values
// the suite was given (Config.Keys and Config.OtherMerchant) and recognises webhook secrets by their
// form (`whsec_` and base64).
type redactor struct {
	keys []keyVar // longest value first, so that a key containing another is replaced whole
}

// minRedactedKey is the shortest key value replaced wherever it appears in a text; a shorter one would
// mangle ordinary words, and is still redacted as a whole header value.
const minRedactedKey = 4

// whsecPattern matches a webhook secret as a JSON string, a URL query or a header shows it (JSON may
// escape its slashes, a query percent-encodes + / =).
var whsecPattern = regexp.MustCompile(`whsec_(?:[A-Za-z0-9+/=_%-]|\\/)+`)

// keyPrefix is the part of a key shown when it is redacted: `pk_test_`, `sk_live_`, `whsec_`.
var keyPrefix = regexp.MustCompile(`^[A-Za-z]{1,8}_(?:(?:test|live)_)?`)

func newRedactor(cfg *Config) redactor {
	var r redactor
	add := func(value, env string) {
		if value != "" && !slices.ContainsFunc(r.keys, func(k keyVar) bool { return k.value == value }) {
			r.keys = append(r.keys, keyVar{value: value, env: env})
		}
	}
	add(cfg.Keys.Public, "MALIPO_PUBLIC_KEY")
	add(cfg.Keys.Secret, "MALIPO_SECRET_KEY")
	if cfg.OtherMerchant != nil {
		add(cfg.OtherMerchant.Public, "MALIPO_OTHER_PUBLIC_KEY")
		add(cfg.OtherMerchant.Secret, "MALIPO_OTHER_SECRET_KEY")
	}
	slices.SortStableFunc(r.keys, func(a, b keyVar) int { return len(b.value) - len(a.value) })
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

// text redacts every key value (also URL-encoded) and every webhook secret in s.
func (r redactor) text(s string) string {
	for _, k := range r.keys {
		if len(k.value) < minRedactedKey {
			continue
		}
		s = strings.ReplaceAll(s, k.value, masked(k.value))
		if q := url.QueryEscape(k.value); q != k.value {
			s = strings.ReplaceAll(s, q, masked(k.value))
		}
	}
	return whsecPattern.ReplaceAllString(s, "whsec_…(redacted)")
}

// header copies h with every value redacted; a value that is one of the keys is masked whole, however
// short.
func (r redactor) header(h http.Header) http.Header {
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
				vs[i] = r.text(v)
			}
		}
		out[name] = vs
	}
	return out
}

// keyVar returns the environment variable of the key whose value is exactly v, "" for none.
func (r redactor) keyVar(v string) string {
	for _, k := range r.keys {
		if k.value == v {
			return k.env
		}
	}
	return ""
}

// message fills the header and body of m: redacted, the body cut to MaxEvidenceBody (at a character
// boundary), with its real size.
func (r redactor) message(m *HTTPMessage, h http.Header, body []byte) {
	m.Header = r.header(h)
	if len(body) == 0 {
		return
	}
	m.BodySize = len(body)
	s := r.text(string(body))
	if len(s) > MaxEvidenceBody {
		cut := MaxEvidenceBody
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s, m.BodyTruncated = s[:cut], true
	}
	m.Body = s
}
