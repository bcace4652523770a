package runner

import (
	"errors"
	"fmt"

	"github.com/malipo/terraform-provider-malipo/report"
)

// A run has one of four verdicts, and CI must be able to tell them apart: the target conforms, the
// target breaks the contract, the run could not judge the target (wrong keys, a target that does not
// answer, a report that cannot be written, --run and --skip filters that leave nothing), or somebody
// stopped it. Problems of the third kind are found before any check runs where they can be, and are
// never reported as conformance failures.

// Errors a grader's run returns when it could not judge the target; they are told apart with errors.Is.
var (
	// ErrSetup: the run could not start as configured — the target does not answer or refuses a key
	// (the message names which), a report file cannot be written, or no check is selected.
	ErrSetup = errors.New("setup error")
	// ErrUnreachable: the target does not answer at all, before the run (with ErrSetup) or during it
	// (the run is aborted; the Summary says after which check).
	ErrUnreachable = errors.New("target unreachable")
	// ErrNoChecks: the --run and --skip filters leave no check to run. It is an ErrSetup.
	ErrNoChecks = fmt.Errorf("%w: no check selected", ErrSetup)
	// ErrInterrupted: the caller's context ended (Ctrl-C) before the run was done.
	ErrInterrupted = errors.New("run interrupted")
)

// Exit statuses of `malipo conform` and `malipo webhooks test`, as ExitCode chooses them.
const (
	// ExitConformant: every selected check passed or was skipped.
	ExitConformant = 0
	// ExitNonConformant: at least one check failed: the target breaks the contract.
	ExitNonConformant = 1
	// ExitSetup: usage, setup or connection problem: the run could not judge the target.
	ExitSetup = 2
	// ExitInterrupted: the run was interrupted (128 + SIGINT, as shells report a Ctrl-C).
	ExitInterrupted = 130
)

// ExitCode maps what a grader's Run returned to the exit status: ExitInterrupted when ctx ended, ExitSetup for
// any other error (setup, connection, a report that could not be written: the run's verdict cannot
// be relied on), ExitNonConformant when a check failed, ExitConformant otherwise.
func ExitCode(sum *report.Summary, err error) int {
	switch {
	case errors.Is(err, ErrInterrupted):
		return ExitInterrupted
	case err != nil, sum == nil:
		return ExitSetup
	case sum.Failed > 0:
		return ExitNonConformant
	case sum.Aborted != "":
		return ExitSetup
	default:
		return ExitConformant
	}
}
