package contracttests

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// A replay makes afresh the references of a create without an Idempotency-Key that the check had not
// sent before; a reference sent again on purpose (a duplicate) stays.
func TestFreshReferences(t *testing.T) {
	var l evidenceLog
	ref := NewID("conform-")
	body := []byte(`{"amount":1,"reference":"` + ref + `"}`)
	assert.Equal(t, []string{ref}, l.freshReferences(http.Header{}, body))
	assert.Empty(t, l.freshReferences(http.Header{}, body), "the check sends it again: it tests the duplicate")
	other := []byte(`{"reference":"` + NewID("conform-") + `"}`)
	assert.Empty(t, l.freshReferences(http.Header{api.HeaderIdempotencyKey: {"k"}}, other), "with an Idempotency-Key a replay is a replay")
}
