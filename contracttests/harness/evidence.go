package harness

import (
	"slices"

	"github.com/malipo/terraform-provider-malipo/contracttests/evidence"
	"github.com/malipo/terraform-provider-malipo/report"
)

// StartEvidence sets up the recording of the run's evidence once its reporters are known: the
// reporters that are Observers receive every exchange and delivery, and the receiver records the
// deliveries of each check's paths into that check's evidence.
func (s *Suite) StartEvidence(reporters []report.Reporter) {
	rec := evidence.NewRecorder(s.cfg.redactor(), report.ObserversOf(reporters))
	s.evidence = rec
	s.receiver.StartEvidence(rec)
}

// red returns the run's redactor.
func (s *Suite) red() report.Redactor {
	if s.evidence != nil {
		return s.evidence.Redactor()
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
	logged, omitted := t.evidence.Close()
	red := t.suite.red()
	failures := slices.Clone(res.Failures)
	keep := res.Outcome != report.Passed && res.Outcome != report.Skipped
	index := make(map[uint64]int, len(logged))
	if keep && len(logged) > 0 {
		res.Evidence = make([]report.Evidence, len(logged))
		for i, le := range logged {
			res.Evidence[i] = le.Evidence
			index[le.Seq] = i
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
