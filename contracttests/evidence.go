package contracttests

import (
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// recorder turns the suite's exchanges and the receiver's deliveries into Evidence (redacted, bodies
// cut to report.MaxEvidenceBody, with a curl command for requests) and hands each to the run's Observers.
type recorder struct {
	red       report.Redactor
	observers *report.Observers
	seq       atomic.Uint64
}

// startEvidence sets up the recording of the run's evidence once its reporters are known: the
// reporters that are Observers receive every exchange and delivery, and the receiver records the
// deliveries of each check's paths into that check's evidence.
func (s *suite) startEvidence(reporters []report.Reporter) {
	rec := &recorder{red: s.cfg.redactor(), observers: report.ObserversOf(reporters)}
	s.evidence = rec
	s.receiver.StartEvidence(rec)
}

// red returns the run's redactor.
func (s *suite) red() report.Redactor {
	if s.evidence != nil {
		return s.evidence.red
	}
	return s.cfg.redactor()
}

// redactor returns the Redactor of the keys the suite was given, each read back by a curl line from
// the environment variable the CLI reads it from.
func (c *Config) redactor() report.Redactor {
	keys := []report.Key{{Value: c.Keys.Public, Env: "MALIPO_PUBLIC_KEY"}, {Value: c.Keys.Secret, Env: "MALIPO_SECRET_KEY"}}
	if c.OtherMerchant != nil {
		keys = append(keys, report.Key{Value: c.OtherMerchant.Public, Env: "MALIPO_OTHER_PUBLIC_KEY"},
			report.Key{Value: c.OtherMerchant.Secret, Env: "MALIPO_OTHER_SECRET_KEY"})
	}
	return report.NewRedactor(keys...)
}

// Next returns the sequence number of a new piece of evidence (never 0, which means "none").
func (rec *recorder) Next() uint64 { return rec.seq.Add(1) }

// Redactor returns the run's redactor.
func (rec *recorder) Redactor() report.Redactor { return rec.red }

// Observe hands a piece of evidence to the run's observers.
func (rec *recorder) Observe(ev report.Evidence) { rec.observers.Observe(ev) }

// loggedEvidence is one piece of a check's evidence with the sequence number failures refer to it by.
type loggedEvidence struct {
	seq uint64
	ev  report.Evidence
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
func (l *evidenceLog) Add(seq uint64, ev report.Evidence) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if len(l.entries) >= report.MaxEvidencePerCheck {
		l.entries = append(l.entries[:report.EvidenceHead], l.entries[report.EvidenceHead+1:]...)
		l.omitted++
	}
	l.entries = append(l.entries, loggedEvidence{seq: seq, ev: ev})
}

// Update replaces the evidence logged under seq (a delivery, once the receiver has answered).
func (l *evidenceLog) Update(seq uint64, ev report.Evidence) {
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
func (t *T) record(ev report.Evidence) uint64 {
	rec := t.suite.evidence
	if rec == nil {
		return 0
	}
	seq := rec.Next()
	t.evidence.Add(seq, ev)
	rec.Observe(ev)
	return seq
}

// attachEvidence ends the check's evidence log and puts it in res when the check did not pass (or
// skip), with each failure pointing at the exchange it is about. Every failure's text is redacted, as
// messages quote bodies, and a body can hold a webhook secret.
func (t *T) attachEvidence(res *report.Result) {
	logged, omitted := t.evidence.close()
	red := t.suite.red()
	failures := slices.Clone(res.Failures)
	keep := res.Outcome != report.Passed && res.Outcome != report.Skipped
	index := make(map[uint64]int, len(logged))
	if keep && len(logged) > 0 {
		res.Evidence = make([]report.Evidence, len(logged))
		for i, le := range logged {
			res.Evidence[i] = le.ev
			index[le.seq] = i
		}
		res.EvidenceOmitted = omitted
	}
	t.mu.Lock()
	about := t.about
	t.mu.Unlock()
	for i := range failures {
		f := &failures[i]
		f.Message, f.Exchange, f.Pointer = red.Text(f.Message), red.Text(f.Exchange), red.Text(f.Pointer)
		if at, ok := index[about[i]]; ok && about[i] != 0 {
			f.Evidence = []int{at}
		}
	}
	res.Failures = failures
}
