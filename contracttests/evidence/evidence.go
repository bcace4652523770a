// Package evidence keeps a contract run's evidence: every exchange the suite makes and every webhook
// delivery it receives, redacted, numbered and handed to the run's observers (Recorder), and each
// check's own while it runs (Log), which the reports show for a check that did not pass.
package evidence

import (
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Recorder numbers the suite's exchanges and the receiver's deliveries (Next), gives their makers the
// run's redactor (Redactor), and hands each piece of Evidence they make to the run's Observers
// (Observe).
type Recorder struct {
	red       report.Redactor
	observers *report.Observers
	seq       atomic.Uint64
}

// NewRecorder records with red and hands every piece of evidence to observers.
func NewRecorder(red report.Redactor, observers *report.Observers) *Recorder {
	return &Recorder{red: red, observers: observers}
}

// Next returns the sequence number of a new piece of evidence (never 0, which means "none").
func (rec *Recorder) Next() uint64 { return rec.seq.Add(1) }

// Redactor returns the run's redactor.
func (rec *Recorder) Redactor() report.Redactor { return rec.red }

// Observe hands a piece of evidence to the run's observers.
func (rec *Recorder) Observe(ev report.Evidence) { rec.observers.Observe(ev) }

// Entry is one piece of a check's evidence with the sequence number failures refer to it by.
type Entry struct {
	Seq      uint64
	Evidence report.Evidence
}

// Log is the evidence of one check while it runs. Its zero value is ready to use.
type Log struct {
	mu      sync.Mutex
	closed  bool // the check has ended: late deliveries are no longer kept
	entries []Entry
	omitted int
	// references are the merchant references the check has sent so far.
	references map[string]bool
}

// FreshReferences returns the merchant references the suite made in body that a replay must make
// afresh: those of a request without an Idempotency-Key that the check had not sent before (see
// report/curl.go).
func (l *Log) FreshReferences(header http.Header, body []byte) []string {
	refs := report.GeneratedReferences(body)
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

// Add appends one piece of evidence, dropping the oldest after the first report.EvidenceHead when the log is
// full.
func (l *Log) Add(seq uint64, ev report.Evidence) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if len(l.entries) >= report.MaxEvidencePerCheck {
		l.entries = append(l.entries[:report.EvidenceHead], l.entries[report.EvidenceHead+1:]...)
		l.omitted++
	}
	l.entries = append(l.entries, Entry{Seq: seq, Evidence: ev})
}

// Update replaces the evidence logged under seq (a delivery, once the receiver has answered).
func (l *Log) Update(seq uint64, ev report.Evidence) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.entries) - 1; i >= 0; i-- {
		if l.entries[i].Seq == seq {
			l.entries[i].Evidence = ev
			return
		}
	}
}

// Last returns the sequence number of the latest evidence, 0 when there is none.
func (l *Log) Last() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) == 0 {
		return 0
	}
	return l.entries[len(l.entries)-1].Seq
}

// Close ends the log and returns what it holds.
func (l *Log) Close() ([]Entry, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	entries, omitted := l.entries, l.omitted
	l.entries = nil
	return entries, omitted
}
