package runner_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// A run's exit code: 0 when every check passed, 1 when one failed, 2 when its verdict cannot be relied
// on (setup refused, nothing selected, the target went down, a report not written), 130 when it was
// interrupted, even if a report then failed too.
func TestExitCode(t *testing.T) {
	werr := func(err error) error { return errors.Join(errors.New("write JUnit report: disk full"), err) }
	for _, tc := range []struct {
		name string
		sum  *report.Summary
		err  error
		want int
	}{
		{"every check passed", &report.Summary{Passed: 3, Skipped: 1}, nil, 0},
		{"a check failed", &report.Summary{Passed: 3, Failed: 1}, nil, 1},
		{"preflight refused a key", nil, errors.Join(runner.ErrSetup), 2},
		{"no check selected", nil, runner.ErrNoChecks, 2},
		{"target went down mid-run", &report.Summary{Failed: 1, Interrupted: 2, Aborted: "x"}, runner.ErrUnreachable, 2},
		{"a report could not be written", &report.Summary{Failed: 1}, werr(nil), 2},
		{"interrupted", &report.Summary{Failed: 1, Interrupted: 2, Aborted: "x"}, runner.ErrInterrupted, 130},
		{"interrupted and a report failed", &report.Summary{Interrupted: 2, Aborted: "x"}, werr(runner.ErrInterrupted), 130},
		{"interrupted before any check", nil, runner.ErrInterrupted, 130},
	} {
		assert.Equal(t, tc.want, runner.ExitCode(tc.sum, tc.err), tc.name)
	}
}
