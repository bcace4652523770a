// Package webhooksink is the contract suite's webhook receiver: it records every delivery the target
// sends, validates it against the document's webhooks, answers as each path's Behavior says, and
// writes it into the evidence of the check whose path it arrived on.
package webhooksink

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Delivery is one webhook delivery attempt the receiver saw.
type Delivery struct {
	// Path is the receiver path it was sent to; each check uses its own.
	Path     string
	Received time.Time
	Header   http.Header
	Body     []byte
	// EventID is the body's `id`; Type its `type`; ObjectID the payout_id or paymentReference.
	EventID, Type, ObjectID, ObjectStatus, PreviousStatus, FailureReason string
	// Answer is the status code the receiver answered with (0 when it stalled past the sender's time-out).
	Answer int
	// Violations are the ways the delivery breaks the spec's `webhooks` entry for its type.
	Violations openapi.Violations
	// Undeclared marks a delivery of an event type no document of the run declares: "new event types
	// can be added, without a new API version" (the Events tag), so it breaks no rule. The receiver
	// acknowledges it at once, checks do not see it (harness.T.Deliveries), and webhooks.signatures verifies it.
	Undeclared bool
	// Seq identifies the delivery's evidence (Recorder.Next), so that failures about it can point at it;
	// 0 when the run records no evidence.
	Seq uint64
}

// Behavior tells the receiver how to answer on one path, to test the sender's retries.
type Behavior struct {
	// FailFirst answers the first N attempts with 500.
	FailFirst int
	// StallFirst holds the first N attempts for Stall before answering, so that the sender times out.
	StallFirst int
	Stall      time.Duration
}

// Receiver is the suite's webhook sink: it records every delivery, validates it against the spec and
// answers as each path's Behavior says. Checks verify signatures themselves, since only they know the
// secret.
type Receiver struct {
	spec    *openapi.Spec
	baseURL string
	srv     *http.Server
	ln      net.Listener

	// closing ends stalls when the receiver closes; inflight counts the deliveries being handled.
	closing  chan struct{}
	inflight sync.WaitGroup

	mu         sync.Mutex
	closed     bool
	deliveries []*Delivery
	behaviors  map[string]Behavior
	attempts   map[string]int
	types      map[string]bool
	// evidence records every delivery, into the evidence of the check that owns its path (owners).
	evidence Recorder
	owners   map[string]owner
	// now stamps a delivery's arrival (SetClock).
	now func() time.Time
	// endpoints are the paths a check registered as a webhook endpoint's URL: their deliveries are
	// signed with that endpoint's secret; every other claimed path is an object's own webhook_url,
	// signed with the merchant secret key (MerchantSigned).
	endpoints map[string]bool
}

// owner is the check a receiver path belongs to.
type owner struct {
	check string
	log   Log
}

// Recorder turns the run's deliveries into evidence: the suite's recorder of exchanges, which numbers
// every piece of the run's evidence, redacts it and hands it to the run's observers (the reporters).
type Recorder interface {
	// Next returns the sequence number of a new piece of evidence; never 0, which means "none".
	Next() uint64
	Redactor() report.Redactor
	Observe(report.Evidence)
}

// Log is the evidence of one check while it runs, where the deliveries to its paths are written.
type Log interface {
	// Add logs a new piece of evidence under its sequence number.
	Add(seq uint64, ev report.Evidence)
	// Update replaces the evidence logged under seq (a delivery, once the receiver has answered).
	Update(seq uint64, ev report.Evidence)
}

// NewReceiver listens on addr (`127.0.0.1:0` for any port). publicURL is the base URL the target uses
// to reach it; empty means `http://<listen address>`.
func NewReceiver(spec *openapi.Spec, addr, publicURL string) (*Receiver, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("start webhook receiver on %s: %w", addr, err)
	}
	if publicURL == "" {
		publicURL = "http://" + ln.Addr().String()
	}
	return newReceiver(spec, ln, publicURL), nil
}

// newReceiver serves on ln (a test gives an in-memory listener).
func newReceiver(spec *openapi.Spec, ln net.Listener, publicURL string) *Receiver {
	r := &Receiver{spec: spec, baseURL: strings.TrimRight(publicURL, "/"), ln: ln, closing: make(chan struct{}),
		behaviors: map[string]Behavior{}, attempts: map[string]int{}, types: map[string]bool{}, owners: map[string]owner{}, endpoints: map[string]bool{}, now: time.Now}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r
}

// Close stops the receiver at once: it closes every connection, ends stalled deliveries unanswered,
// and returns when their handlers have.
//
// It does not drain gracefully, because there is nothing left to drain: the run is over, and no check
// reads a delivery that arrives now. A graceful http.Server.Shutdown would also wait for nothing in
// the common case: it treats a connection that has not yet carried a request as busy for its first
// five seconds (golang/go#22682), and the target's HTTP client leaves such connections behind (Go's
// Transport dials a spare connection while a request waits, and pools it unused when another one
// frees up first). With a deadline, every such connection made the run linger for the whole
// deadline after its summary.
func (r *Receiver) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	err := r.srv.Close()
	close(r.closing)
	r.inflight.Wait()
	return err
}

// URL returns the URL the target must deliver to for path.
func (r *Receiver) URL(path string) string { return r.baseURL + path }

// StartEvidence makes the receiver record every delivery from now on.
func (r *Receiver) StartEvidence(rec Recorder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evidence = rec
}

// Claim makes the deliveries to path evidence of the check with that id, written into its log.
func (r *Receiver) Claim(path, check string, log Log) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.owners[path] = owner{check: check, log: log}
}

// SetClock sets what stamps a delivery's arrival (Delivery.Received); time.Now unless a test says
// otherwise.
func (r *Receiver) SetClock(now func() time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = now
}

// SetBehavior sets how the receiver answers on path.
func (r *Receiver) SetBehavior(path string, b Behavior) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.behaviors[path] = b
}

// ProvokesRetries reports whether the receiver fails or stalls deliveries on path, to make the
// target retry.
func (r *Receiver) ProvokesRetries(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.behaviors[path]
	return b.FailFirst > 0 || b.StallFirst > 0
}

// declaredAnywhere reports whether the run's document or the embedded one declares an event type. A
// type only the embedded document declares is one a check may rely on and the run's document dropped:
// the check says so (the suite skips it) rather than never seeing the delivery.
func declaredAnywhere(spec *openapi.Spec, eventType string) bool {
	if _, ok := spec.Webhook(eventType); ok {
		return true
	}
	embedded, err := openapi.Default()
	if err != nil {
		return true // judged against the run's document, which reports it
	}
	_, ok := embedded.Webhook(eventType)
	return ok
}

// Deliveries returns copies of the deliveries of declared event types seen on path so far, oldest
// first (see Delivery.Undeclared).
func (r *Receiver) Deliveries(path string) []*Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*Delivery
	for _, d := range r.deliveries {
		if d.Path == path && !d.Undeclared {
			c := *d
			out = append(out, &c)
		}
	}
	return out
}

// MarkEndpoint records that path is the URL of a webhook endpoint, not an object's webhook_url.
func (r *Receiver) MarkEndpoint(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endpoints[path] = true
}

// MerchantSigned returns copies of the deliveries so far to the paths the checks gave as an object's
// own webhook_url (and never as a webhook endpoint's URL): the document has them signed with the
// merchant secret key. Each comes with the id of the check whose path it arrived on.
func (r *Receiver) MerchantSigned() (ds []*Delivery, checks []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.deliveries {
		o, claimed := r.owners[d.Path]
		if !claimed || r.endpoints[d.Path] {
			continue
		}
		c := *d
		ds, checks = append(ds, &c), append(checks, o.check)
	}
	return ds, checks
}

// TypesSeen returns every event type delivered so far.
func (r *Receiver) TypesSeen() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]bool, len(r.types))
	for k, v := range r.types {
		out[k] = v
	}
	return out
}

// ServeHTTP records one delivery attempt.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	r.inflight.Add(1) // under mu, so that Close's Wait comes after it or not at all
	now := r.now
	r.mu.Unlock()
	defer r.inflight.Done()
	body, _ := io.ReadAll(io.LimitReader(req.Body, 4<<20))
	d := &Delivery{Path: req.URL.Path, Received: now(), Header: req.Header.Clone(), Body: body}
	var env struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Data struct {
			PreviousStatus string         `json:"previous_status"`
			Object         map[string]any `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err == nil {
		d.EventID, d.Type, d.PreviousStatus = env.ID, env.Type, env.Data.PreviousStatus
		d.ObjectID, _ = env.Data.Object["payout_id"].(string)
		if d.ObjectID == "" {
			d.ObjectID, _ = env.Data.Object["paymentReference"].(string)
		}
		d.ObjectStatus, _ = env.Data.Object["status"].(string)
		d.FailureReason, _ = env.Data.Object["failure_reason"].(string)
	}
	if d.Type != "" && !declaredAnywhere(r.spec, d.Type) {
		d.Undeclared = true
	} else {
		d.Violations = r.spec.ValidateWebhook(d.Type, req.Header, body)
	}
	ev, o := r.arrived(d, req)
	defer r.settled(d, ev, o)

	r.mu.Lock()
	var n int
	var b Behavior
	if !d.Undeclared { // a path's behaviour is for the declared events a check waits for
		r.attempts[d.Path]++
		n, b = r.attempts[d.Path], r.behaviors[d.Path]
	}
	r.deliveries = append(r.deliveries, d)
	if d.Type != "" {
		r.types[d.Type] = true
	}
	r.mu.Unlock()

	switch {
	case n <= b.StallFirst:
		select {
		case <-time.After(b.Stall):
			r.answer(d, w, http.StatusOK)
		case <-req.Context().Done():
			// The sender gave up (its time-out): Answer stays 0, nothing was acknowledged.
		case <-r.closing:
			// The run is over: the sender gets no answer, as the delivery records.
			panic(http.ErrAbortHandler)
		}
	case n <= b.StallFirst+b.FailFirst:
		r.answer(d, w, http.StatusInternalServerError)
	default:
		r.answer(d, w, http.StatusOK)
	}
}

func (r *Receiver) answer(d *Delivery, w http.ResponseWriter, status int) {
	r.mu.Lock()
	d.Answer = status
	r.mu.Unlock()
	w.WriteHeader(status)
}

// arrived starts the evidence of a delivery as it arrives, in the log of the check that owns its path,
// so that a check that fails on the delivery before the receiver has answered still has it.
func (r *Receiver) arrived(d *Delivery, req *http.Request) (report.Evidence, owner) {
	r.mu.Lock()
	rec, o := r.evidence, r.owners[d.Path]
	r.mu.Unlock()
	if rec == nil {
		return report.Evidence{}, o
	}
	d.Seq = rec.Next()
	red := rec.Redactor()
	ev := report.Evidence{Kind: report.EvidenceWebhook, Check: o.check, Operation: d.Type, Started: d.Received,
		Request: report.HTTPMessage{Method: req.Method, URL: red.Text(r.baseURL + req.URL.RequestURI())}}
	red.Message(&ev.Request, req.Header, d.Body)
	if o.log != nil {
		o.log.Add(d.Seq, ev)
	}
	return ev, o
}

// settled completes a delivery's evidence with the receiver's answer (none when the sender gave up
// first) and hands it to the observers.
func (r *Receiver) settled(d *Delivery, ev report.Evidence, o owner) {
	r.mu.Lock()
	rec, answer := r.evidence, d.Answer
	r.mu.Unlock()
	if rec == nil || d.Seq == 0 {
		return
	}
	ev.Duration = time.Since(d.Received)
	ev.Response.Status = answer
	if answer == 0 {
		ev.Error = "the sender gave up (closed the connection) before the receiver answered"
	}
	if o.log != nil {
		o.log.Update(d.Seq, ev)
	}
	rec.Observe(ev)
}
