package contracttests

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// A run has one of four verdicts, and CI must be able to tell them apart: the target conforms, the
// target breaks the contract, the run could not judge the target (wrong keys, a target that does not
// answer, a report that cannot be written, --run and --skip filters that leave nothing), or somebody
// stopped it. Problems of the third kind are found before any check runs where they can be, and are
// never reported as conformance failures.

// Errors Run returns when it could not judge the target; they are told apart with errors.Is.
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

// Exit statuses of `malipo conform`, as ExitCode chooses them.
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

// ExitCode maps what Run returned to the exit status: ExitInterrupted when ctx ended, ExitSetup for
// any other error (setup, connection, a report that could not be written: the run's verdict cannot
// be relied on), ExitNonConformant when a check failed, ExitConformant otherwise.
func ExitCode(sum *Summary, err error) int {
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

// noChecksError is the error of a run whose --run and --skip leave none of the checks, naming the
// filter that emptied it: --run when it matches no id, else --skip, which then left out every check
// --run selected.
func noChecksError(checks []*Check, run, skip *regexp.Regexp) error {
	byRun := len(Select(checks, run, nil))
	switch {
	case byRun == 0 && run == nil:
		return fmt.Errorf("%w: there are no checks to run", ErrNoChecks)
	case byRun == 0:
		return fmt.Errorf("%w: --run '%s' matches none of the %d checks' ids; list them with --list (and try the expression with --list --run)",
			ErrNoChecks, run.String(), len(checks))
	case run == nil:
		return fmt.Errorf("%w: --skip '%s' matches every one of the %d checks' ids, so none is left to run; narrow it (try it with --list --skip)",
			ErrNoChecks, skip.String(), byRun)
	default:
		return fmt.Errorf("%w: --skip '%s' matches all %d checks --run '%s' selects, so none is left to run; narrow --skip or widen --run (try them with --list)",
			ErrNoChecks, skip.String(), byRun, run.String())
	}
}

// Preparer is implemented by reporters that write files: Run calls Prepare before the target is even
// contacted, so that a report that could not be written fails the run at once, not after it.
type Preparer interface {
	Prepare() error
}

// prepareReporters calls Prepare on the reporters that have it.
func prepareReporters(reporters []Reporter) error {
	for _, r := range reporters {
		if p, ok := r.(Preparer); ok {
			if err := p.Prepare(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Prepare checks that the JSON report can be written (CheckReportPath).
func (r JSONReporter) Prepare() error { return CheckReportPath(r.Path) }

// Prepare checks that the JUnit report can be written (CheckReportPath).
func (r JUnitReporter) Prepare() error { return CheckReportPath(r.Path) }

// CheckReportPath reports, as an ErrSetup, why a report could not be written to path: its directory
// is missing or not a directory, path is a directory, or the file cannot be created or opened for
// writing there. It leaves no trace: an existing file is not changed, a probe file is removed.
func CheckReportPath(path string) error {
	if path == "" {
		return fmt.Errorf("%w: empty report path: give a file name", ErrSetup)
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: cannot write the report %s: directory %s does not exist; create it (mkdir -p %s) or choose another path",
			ErrSetup, path, dir, dir)
	case err != nil:
		return fmt.Errorf("%w: cannot write the report %s: %w; choose another path", ErrSetup, path, err)
	case !info.IsDir():
		return fmt.Errorf("%w: cannot write the report %s: %s is not a directory; choose another path", ErrSetup, path, dir)
	}
	if info, err := os.Stat(path); err == nil {
		if info.IsDir() {
			return fmt.Errorf("%w: cannot write the report %s: it is a directory; give a file name", ErrSetup, path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("%w: cannot write the report %s: %w; make it writable or choose another path", ErrSetup, path, err)
		}
		return f.Close()
	}
	probe, err := os.CreateTemp(dir, ".malipo-report-*")
	if err != nil {
		return fmt.Errorf("%w: cannot write the report %s: %w; make %s writable or choose another path", ErrSetup, path, err, dir)
	}
	name := probe.Name()
	return errors.Join(probe.Close(), os.Remove(name))
}
