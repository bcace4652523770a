package contracttests

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// Config says what to check and how.
type Config struct {
	// BaseURL of the implementation under test, without a trailing slash.
	BaseURL string
	// Keys are the test keys of the merchant the suite acts as.
	Keys Keys
	// OtherMerchant, when set, enables cross-merchant isolation checks.
	OtherMerchant *Keys
	// HTTPClient sends the suite's requests; nil means a client with a 30 s time-out.
	HTTPClient *http.Client
	// WebhookListen is the receiver's listen address (default 127.0.0.1:0).
	WebhookListen string
	// WebhookURL is the receiver's base URL as the target reaches it (default: from WebhookListen).
	WebhookURL string
	// Concurrency is how many checks run at once (default 8).
	Concurrency int
	// CheckTimeout bounds each check (default: 60 s, or four times EventuallyTimeout plus WebhookStall
	// when that is longer).
	CheckTimeout time.Duration
	// EventuallyTimeout bounds waits for asynchronous outcomes: settlement, deliveries (default 20 s).
	// It also caps the settle windows.
	EventuallyTimeout time.Duration
	// SettleTime, when set, is the fixed time checks wait to see that something does NOT happen (a
	// final state changes, a disabled endpoint gets a delivery). Zero, the default, follows the target:
	// each window is a multiple of the slowest time-to-outcome the run has observed (see settleWindow).
	SettleTime time.Duration
	// WebhookStall is how long the receiver stalls to make the target time out (default 15 s); it must
	// exceed the target's delivery time-out.
	WebhookStall time.Duration
	// RequireExtensions fails, instead of skipping, extension checks on a target without them.
	RequireExtensions bool
	// Run selects checks by id; nil runs all.
	Run *regexp.Regexp
	// Skip leaves out, of the checks Run selects, those whose id it matches; nil leaves out none. It
	// exists because RE2 has no negative look-ahead: Run alone cannot say "all but these".
	Skip *regexp.Regexp
	// Rerun is the command line that runs the suite again against the same target, without a selection
	// and without a key (`malipo conform --target URL`): under each failure the reports print it with
	// `--run '^id$'` (Summary.RerunCommand). Empty: they print none, since a library caller's run has
	// no command line to repeat.
	Rerun []string
	// Spec is the document the run checks against (`--spec FILE`, see LoadSpec); nil means the embedded
	// one. Pass the checks AllFor derives from the same document.
	Spec *openapi.Spec
}

func (c *Config) defaults() {
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if c.WebhookListen == "" {
		c.WebhookListen = "127.0.0.1:0"
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	if c.EventuallyTimeout <= 0 {
		c.EventuallyTimeout = 20 * time.Second
	}
	if c.WebhookStall <= 0 {
		c.WebhookStall = 15 * time.Second
	}
	if c.CheckTimeout <= 0 {
		// A check waits for at most a few outcomes in a row (settlement, deliveries, a settle window),
		// each up to EventuallyTimeout, and a retry check stalls one attempt first: a longer --wait,
		// which a slow target or a late retry asks for, must not be cut short by the check's own bound.
		c.CheckTimeout = max(60*time.Second, 4*c.EventuallyTimeout+c.WebhookStall)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
}

// Reporter receives the run's events; reporters only format.
type Reporter interface {
	// Start is called once with the checks that will run.
	Start(checks []*Check)
	// CheckDone is called as each check ends (from one goroutine at a time).
	CheckDone(r Result)
	// Finish is called once with the whole run.
	Finish(s *Summary) error
}

// Summary is the whole run: every result and the spec coverage. A run that stopped early (the
// caller's context ended, or the target stopped answering) has a Summary too, so that reports can be
// written: Aborted says why, Interrupted and NotRun count the checks that have no verdict.
type Summary struct {
	// Tool names the run in the reports' titles; empty means "malipo conform". Another grader that
	// reports through these reporters (`malipo webhooks test`) sets its own.
	Tool string `json:"tool,omitempty"`
	// ReplayNote says, above the failures of the HTML report, how the curl commands replay the
	// exchanges; empty means the suite's (they read the keys from the environment).
	ReplayNote string   `json:"replay_note,omitempty"`
	Target     string   `json:"target"`
	Results    []Result `json:"results"`
	Passed     int      `json:"passed"`
	Failed     int      `json:"failed"`
	Skipped    int      `json:"skipped"`
	// Interrupted counts the checks that were running when the run stopped early.
	Interrupted int `json:"interrupted"`
	// NotRun counts the selected checks that had not started when the run stopped early; they have
	// no Result.
	NotRun int `json:"not_run"`
	// Aborted says why the run stopped before every selected check had run; empty when it did not.
	Aborted  string        `json:"aborted,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Coverage Coverage      `json:"coverage"`
	// Rerun is Config.Rerun: the command line that reaches the same target; RerunCommand adds the
	// selection of one check.
	Rerun []string `json:"rerun,omitempty"`
	// Spec is the document the run checked against, from which the reports read the words of each
	// rule; nil means the embedded one.
	Spec *openapi.Spec `json:"-"`
}

// DefaultTool is the name of the runs of this package, in the reports' titles (Summary.Tool).
const DefaultTool = "malipo conform"

// ToolName returns Tool, or DefaultTool when it is empty.
func (s *Summary) ToolName() string {
	if s.Tool == "" {
		return DefaultTool
	}
	return s.Tool
}

// HasCoverage reports whether the run has coverage to show: a run of this suite has; another
// grader's (one that sends no API request) has none, and the reports leave the section out.
func (s *Summary) HasCoverage() bool {
	return s.Coverage.StatusCodesDefined > 0 || len(s.Coverage.WebhookTypes) > 0 || len(s.Coverage.Operations) > 0
}

// OK reports whether the run finished and no check failed: an aborted run proves nothing either way.
func (s *Summary) OK() bool { return s.Failed == 0 && s.Aborted == "" }

type suite struct {
	cfg      Config
	spec     *openapi.Spec
	client   *http.Client
	receiver *Receiver
	coverage *coverageRecorder
	// absentExtensions maps each extension the target lacks to the request (method and path, in the
	// run's document) whose 404 told; extensionOfTag maps the document's extension tags to their
	// extension (preflight.go).
	absentExtensions map[string]string
	extensionOfTag   map[string]string
	// scenarios is true when the target plays the sandbox's scenario header (probeScenarios).
	scenarios bool
	ref       refCache
	// errorStatuses is the spec's error table (code → HTTP status); ExpectError checks itself against it.
	errorStatuses map[int]int
	inputs        Inputs
	skipped       coverSet // what the skipped checks cover (see document.go)
	ran           coverSet // what the checks that started cover
	// evidence records every exchange and delivery for the failed checks' reports and the Observers.
	evidence *recorder

	// run is the context of the checks: it ends, with a cause, when the caller's context ends or the
	// target stops answering (stop). A failure recorded after that is a consequence of the stop, not a
	// verdict on the target (T.fail).
	run  context.Context
	stop context.CancelCauseFunc
	// liveness serialises the probes that tell a dead target from a failed request (confirmAlive).
	liveness sync.Mutex
	// pace is the target's observed speed, which sizes the settle windows.
	pace pace
}

// Run runs the selected checks against the target and reports to every reporter.
//
// Before any check it makes sure the run can mean something: --run and --skip filters that leave no
// check (ErrNoChecks), a report file that cannot be written (ErrSetup), a target that does not answer
// (ErrSetup and ErrUnreachable) or refuses a key (ErrSetup, naming the key) end it with a nil
// Summary. A run that stops early — ctx ends (ErrInterrupted), or the target stops answering
// mid-run (ErrUnreachable) — returns the partial Summary with the error, after every reporter's
// Finish has had it. Failed checks are in the Summary, not the error. ExitCode maps the pair to the
// CLI's exit status.
func Run(ctx context.Context, cfg Config, checks []*Check, reporters ...Reporter) (*Summary, error) {
	cfg.defaults()
	if cfg.BaseURL == "" {
		return nil, fmt.Errorf("%w: no target base URL: pass --target URL", ErrSetup)
	}
	selected := Select(checks, cfg.Run, cfg.Skip)
	if len(selected) == 0 {
		return nil, noChecksError(checks, cfg.Run, cfg.Skip)
	}
	if err := prepareReporters(reporters); err != nil {
		return nil, err
	}
	spec := cfg.Spec
	if spec == nil {
		var err error
		if spec, err = openapi.Default(); err != nil {
			return nil, fmt.Errorf("load the contract: %w", err)
		}
	}
	receiver, err := NewReceiver(spec, cfg.WebhookListen, cfg.WebhookURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %w; choose another --webhook-listen address", ErrSetup, err)
	}
	defer func() { _ = receiver.Close() }()
	s, err := newSuite(cfg, spec, receiver)
	if err != nil {
		return nil, err
	}
	s.startEvidence(reporters)
	if err := s.preflight(ctx); err != nil {
		return nil, err
	}
	for _, r := range reporters {
		r.Start(selected)
	}
	run, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	s.run, s.stop = run, stop
	sum := s.runSelected(run, selected, reporters)
	// The run sends nothing more. Pooled connections would keep the target's graceful shutdown waiting:
	// it counts a connection that never carried a request (Go's Transport dials spares) as busy for five
	// seconds, which made the embedded sandbox's stop linger for its whole 2 s deadline.
	s.client.CloseIdleConnections()
	errs := []error{s.stoppedEarly(sum, len(selected))}
	for _, r := range reporters {
		errs = append(errs, r.Finish(sum))
	}
	return sum, errors.Join(errs...)
}

// newSuite reads from the contract what the checks judge by: the error table and the test values.
func newSuite(cfg Config, spec *openapi.Spec, receiver *Receiver) (*suite, error) {
	statuses, err := spec.ErrorStatuses()
	if err != nil {
		return nil, fmt.Errorf("load the contract's error table: %w", err)
	}
	inputs, err := inputsFrom(spec)
	if err != nil {
		return nil, fmt.Errorf("choose test values from the contract: %w", err)
	}
	return &suite{cfg: cfg, spec: spec, client: cfg.HTTPClient, receiver: receiver, coverage: newCoverage(spec),
		errorStatuses: statuses, inputs: inputs}, nil
}

// Select returns the checks whose id matches run (all when run is nil) and not skip (none when skip is
// nil), in their order: the checks a run with Config.Run and Config.Skip runs, and `--list` lists.
func Select(checks []*Check, run, skip *regexp.Regexp) []*Check {
	var selected []*Check
	for _, c := range checks {
		if (run == nil || run.MatchString(c.ID)) && (skip == nil || !skip.MatchString(c.ID)) {
			selected = append(selected, c)
		}
	}
	return selected
}

// runSelected runs the checks, the final ones after all others have ended, reports each result as it
// comes, and sums the run up with its results sorted by id. When ctx ends it starts no further check.
func (s *suite) runSelected(ctx context.Context, selected []*Check, reporters []Reporter) *Summary {
	start := time.Now()
	sum := &Summary{Target: s.cfg.BaseURL, Rerun: s.cfg.Rerun, Spec: s.spec}
	var mu sync.Mutex
	report := func(res Result) {
		mu.Lock()
		defer mu.Unlock()
		sum.Results = append(sum.Results, res)
		for _, r := range reporters {
			r.CheckDone(res)
		}
	}
	var regular, final []*Check
	for _, c := range selected {
		if c.Final {
			final = append(final, c)
		} else {
			regular = append(regular, c)
		}
	}
	s.runAll(ctx, regular, report)
	s.runAll(ctx, final, report)

	sort.SliceStable(sum.Results, func(i, j int) bool { return sum.Results[i].ID < sum.Results[j].ID })
	sum.Count()
	sum.Duration = time.Since(start)
	sum.Coverage = s.coverage.summary(s.receiver.TypesSeen())
	return sum
}

// stoppedEarly returns nil when the run was not stopped before its checks were done; otherwise it
// says in the Summary why and how far the run got, and returns the error Run returns: the cause
// when the target stopped answering (it wraps ErrUnreachable), ErrInterrupted when ctx ended.
func (s *suite) stoppedEarly(sum *Summary, selected int) error {
	sum.NotRun = selected - len(sum.Results)
	if s.run.Err() == nil || (sum.Interrupted == 0 && sum.NotRun == 0) {
		return nil
	}
	progress := fmt.Sprintf("%d of %d checks finished, %d interrupted, %d not run",
		sum.Passed+sum.Failed+sum.Skipped, selected, sum.Interrupted, sum.NotRun)
	var err error
	if cause := context.Cause(s.run); errors.Is(cause, ErrUnreachable) {
		err = fmt.Errorf("%w (%s)", cause, progress)
	} else {
		err = fmt.Errorf("%w: %w (%s)", ErrInterrupted, cause, progress)
	}
	sum.Aborted = err.Error()
	return err
}

// Count tallies Results by outcome into Passed, Failed, Skipped and Interrupted. A grader that fills a
// Summary of its own (receivertests) calls it once its results are in.
func (s *Summary) Count() {
	for _, r := range s.Results {
		switch r.Outcome {
		case Passed:
			s.Passed++
		case Failed:
			s.Failed++
		case Skipped:
			s.Skipped++
		case Interrupted:
			s.Interrupted++
		}
	}
}

// runAll runs the checks, Concurrency at a time, and starts none once ctx has ended.
func (s *suite) runAll(ctx context.Context, checks []*Check, report func(Result)) {
	sem := make(chan struct{}, s.cfg.Concurrency)
	var wg sync.WaitGroup
	for _, c := range checks {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			report(s.runOne(ctx, c))
		})
	}
	wg.Wait()
}

func (s *suite) runOne(ctx context.Context, c *Check) Result {
	res := Result{Check: c, ID: c.ID, Category: c.Category, Rule: c.Rule}
	// What the document lacks comes first: a check of an operation the document does not have is
	// skipped for that reason, whatever the target answered to the extension probe.
	if reason := s.missingCover(c); reason != "" {
		res.Outcome, res.SkipReason = Skipped, reason
		return res
	}
	var ext, probe string
	if c.Extension {
		ext, probe = s.absentExtension(c)
	}
	switch {
	case ext != "" && !s.cfg.RequireExtensions:
		res.Outcome, res.SkipReason = Skipped, "the target does not implement the "+ext+" extension ("+probe+" answered 404)"
		return res
	case ext != "":
		res.Outcome = Failed
		res.Failures = []Failure{{Message: "the " + ext + " extension is required (--require-extensions) but " + probe + " answered 404"}}
		return res
	case c.NeedsSecondMerchant && s.cfg.OtherMerchant == nil:
		res.Outcome, res.SkipReason = Skipped, "needs a second merchant's keys (--other-public-key, --other-secret-key)"
		return res
	}
	s.ran.note(c)
	cctx, cancel := context.WithTimeout(ctx, s.cfg.CheckTimeout)
	defer cancel()
	t := &T{ctx: cctx, check: c, suite: s}
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer t.runCleanups()
		defer func() {
			if p := recover(); p != nil {
				t.fail(Failure{Message: fmt.Sprintf("check panicked: %v", p)})
			}
		}()
		c.Run(t)
	}()
	<-done
	res.Duration = time.Since(start)
	t.mu.Lock()
	defer t.mu.Unlock()
	res.Failures = t.failures
	switch {
	case len(t.failures) > 0:
		// Recorded before the run stopped (T.fail): evidence against the target whatever came after.
		res.Outcome = Failed
	case t.cut:
		res.Outcome, res.Interruption = Interrupted, "the run stopped while this check ran: "+context.Cause(s.run).Error()
	case t.skipReason != "":
		res.Outcome, res.SkipReason = Skipped, t.skipReason
	default:
		res.Outcome = Passed
	}
	t.attachEvidence(&res)
	return res
}
