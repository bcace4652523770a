package receivertests

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
)

// A check that panics fails with the panic as its message instead of killing `malipo webhooks test`
// and every other check's result with it.
func TestPanickingCheckFailsAlone(t *testing.T) {
	g := &grader{}
	c := &check{id: "delivery.panics", category: contracttests.CategoryWebhooks, run: func(*checkRun) { panic("boom") }}
	res := g.runOne(context.Background(), c, &contracttests.Check{ID: c.id})
	assert.Equal(t, contracttests.Failed, res.Outcome)
	require.Len(t, res.Failures, 1)
	assert.Contains(t, res.Failures[0].Message, "check panicked")
	assert.Contains(t, res.Failures[0].Message, "boom")
}
