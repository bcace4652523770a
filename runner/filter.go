package runner

import (
	"fmt"
	"regexp"
)

// Filter selects checks by id, as --run and --skip do.
type Filter struct {
	// Run keeps the checks whose id it matches; nil keeps all.
	Run *regexp.Regexp
	// Skip leaves out, of the checks Run keeps, those whose id it matches; nil leaves out none. It
	// exists because RE2 has no negative look-ahead: Run alone cannot say "all but these".
	Skip *regexp.Regexp
}

// Keeps reports whether the check with this id is selected.
func (f Filter) Keeps(id string) bool {
	return (f.Run == nil || f.Run.MatchString(id)) && (f.Skip == nil || !f.Skip.MatchString(id))
}

// Empty returns nil when the filter keeps at least one of ids, else an ErrNoChecks naming the
// filter that emptied the run: --run when it matches no id, else --skip, which then left out every
// check --run selected.
func (f Filter) Empty(ids []string) error {
	byRun, kept := 0, 0
	for _, id := range ids {
		if f.Run == nil || f.Run.MatchString(id) {
			byRun++
		}
		if f.Keeps(id) {
			kept++
		}
	}
	switch {
	case kept > 0:
		return nil
	case byRun == 0 && f.Run == nil:
		return fmt.Errorf("%w: there are no checks to run", ErrNoChecks)
	case byRun == 0:
		return fmt.Errorf("%w: --run '%s' matches none of the %d checks' ids; list them with --list (and try the expression with --list --run)",
			ErrNoChecks, f.Run.String(), len(ids))
	case f.Run == nil:
		return fmt.Errorf("%w: --skip '%s' matches every one of the %d checks' ids, so none is left to run; narrow it (try it with --list --skip)",
			ErrNoChecks, f.Skip.String(), byRun)
	default:
		return fmt.Errorf("%w: --skip '%s' matches all %d checks --run '%s' selects, so none is left to run; narrow --skip or widen --run (try them with --list)",
			ErrNoChecks, f.Skip.String(), byRun, f.Run.String())
	}
}
