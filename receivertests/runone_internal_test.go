package receivertests

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// A receiver check runs on the shared runner: one that panics fails with the panic as its message
// instead of killing `malipo webhooks test` and every other check's result with it, and the checks
// after it still run.
func TestPanickingCheckFailsAlone(t *testing.T) {
	g := &grader{}
	panics := &check{id: "delivery.panics", category: CategoryAccepts, run: func(*checkRun) { panic("boom") }}
	passes := &check{id: "delivery.passes", category: CategoryAccepts, run: func(*checkRun) {}}
	sum, err := runner.Run(context.Background(), runner.Options{Concurrency: 1},
		[]runner.Check{g.job(panics), g.job(passes)}, nil)
	require.NoError(t, err)
	require.Len(t, sum.Results, 2)
	res := sum.Results[0]
	assert.Equal(t, report.Failed, res.Outcome)
	require.Len(t, res.Failures, 1)
	assert.Contains(t, res.Failures[0].Message, "check panicked")
	assert.Contains(t, res.Failures[0].Message, "boom")
	assert.Equal(t, report.Passed, sum.Results[1].Outcome)
}
