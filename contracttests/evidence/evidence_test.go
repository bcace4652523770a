package evidence_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests/evidence"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// A replay makes afresh the references of a create without an Idempotency-Key that the check had not
// sent before; a reference sent again on purpose (a duplicate) stays.
func TestFreshReferences(t *testing.T) {
	var l evidence.Log
	const ref, other = "conform-0123456789abcdef", "conform-fedcba9876543210"
	body := []byte(`{"amount":1,"reference":"` + ref + `"}`)
	assert.Equal(t, []string{ref}, l.FreshReferences(http.Header{}, body))
	assert.Empty(t, l.FreshReferences(http.Header{}, body), "the check sends it again: it tests the duplicate")
	assert.Empty(t, l.FreshReferences(http.Header{api.HeaderIdempotencyKey: {"k"}}, []byte(`{"reference":"`+other+`"}`)),
		"with an Idempotency-Key a replay is a replay")
}

// A full log keeps its first report.EvidenceHead entries and the latest, counting what it dropped; an
// entry is updated in place (a delivery once answered); once closed it keeps nothing more.
func TestLogKeepsTheHeadAndTheLatest(t *testing.T) {
	var l evidence.Log
	assert.Zero(t, l.Last(), "an empty log has no latest entry")
	total := report.MaxEvidencePerCheck + 5
	for seq := uint64(1); seq <= uint64(total); seq++ {
		l.Add(seq, report.Evidence{Operation: "op"})
	}
	l.Update(3, report.Evidence{Operation: "answered"})
	l.Update(report.EvidenceHead+1, report.Evidence{Operation: "dropped, not updated"})
	assert.Equal(t, uint64(total), l.Last())
	entries, omitted := l.Close()
	require.Len(t, entries, report.MaxEvidencePerCheck)
	assert.Equal(t, 5, omitted)
	assert.Equal(t, uint64(report.EvidenceHead), entries[report.EvidenceHead-1].Seq, "the head is kept")
	assert.Equal(t, uint64(report.EvidenceHead+6), entries[report.EvidenceHead].Seq, "the oldest after the head are dropped")
	assert.Equal(t, "answered", entries[2].Evidence.Operation)
	l.Add(uint64(total+1), report.Evidence{})
	again, _ := l.Close()
	assert.Empty(t, again, "a closed log keeps nothing")
}
