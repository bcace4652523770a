package contracttests

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/contracttests/evidence"
	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
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
	// Concurrency is how many checks act at once (default 8): a check that only waits for the target
	// (T.Eventually's pauses, WaitDeliveries, Settle, a 429's Retry-After) holds no place meanwhile.
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
	// Seed draws the generated inputs and the stateful sequences (`--seed`): the same seed, document
	// and checks send the same requests, but for the values the document requires to be unique
	// (merchant references), which carry a part of their own per run. Zero draws one at random; the
	// run's seed is in its Summary, every report and every generated check's failure.
	Seed uint64
	// Generated is how many generated requests each generated check sends (`--generated`): the
	// boundary cases first, then random draws; shrinking a failure sends more. Zero means
	// DefaultGenerated; a negative value turns the generated checks off (they are skipped).
	Generated int
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
	if c.Seed == 0 {
		c.Seed = drawSeed()
	}
	if c.Generated == 0 {
		c.Generated = DefaultGenerated
	}
}

type suite struct {
	cfg      Config
	spec     *openapi.Spec
	client   *http.Client
	receiver *webhooksink.Receiver
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
	evidence *evidence.Recorder

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
// check (runner.ErrNoChecks), a report file that cannot be written (runner.ErrSetup), a target that
// does not answer (runner.ErrSetup and runner.ErrUnreachable) or refuses a key (runner.ErrSetup,
// naming the key) end it with a nil Summary. A run that stops early — ctx ends
// (runner.ErrInterrupted), or the target stops answering mid-run (runner.ErrUnreachable) — returns the
// partial Summary with the error, after every reporter's Finish has had it. Failed checks are in the
// Summary, not the error. runner.ExitCode maps the pair to the CLI's exit status.
func Run(ctx context.Context, cfg Config, checks []*Check, reporters ...report.Reporter) (*report.Summary, error) {
	cfg.defaults()
	if cfg.BaseURL == "" {
		return nil, fmt.Errorf("%w: no target base URL: pass --target URL", runner.ErrSetup)
	}
	filter := runner.Filter{Run: cfg.Run, Skip: cfg.Skip}
	selected := Select(checks, cfg.Run, cfg.Skip)
	if len(selected) == 0 {
		return nil, filter.Empty(checkIDs(checks))
	}
	if err := runner.Prepare(reporters); err != nil {
		return nil, err
	}
	spec := cfg.Spec
	if spec == nil {
		var err error
		if spec, err = openapi.Default(); err != nil {
			return nil, fmt.Errorf("load the contract: %w", err)
		}
	}
	receiver, err := webhooksink.NewReceiver(spec, cfg.WebhookListen, cfg.WebhookURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %w; choose another --webhook-listen address", runner.ErrSetup, err)
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
	run, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	s.run, s.stop = run, stop
	jobs := make([]runner.Check, len(selected))
	for i, c := range selected {
		jobs[i] = s.job(c)
	}
	return runner.Run(run, runner.Options{
		Concurrency:  cfg.Concurrency,
		CheckTimeout: cfg.CheckTimeout,
		Summary:      report.Summary{Target: report.MaskUserinfo(cfg.BaseURL), Rerun: report.MaskedArgs(cfg.Rerun), Seed: cfg.Seed},
		Done: func(sum *report.Summary) {
			sum.Coverage = s.coverage.summary(s.receiver.TypesSeen())
			// The run sends nothing more. Pooled connections would keep the target's graceful shutdown
			// waiting: it counts a connection that never carried a request (Go's Transport dials spares)
			// as busy for five seconds, which made the embedded sandbox's stop linger for its whole 2 s
			// deadline.
			s.client.CloseIdleConnections()
		},
	}, jobs, reporters)
}

// checkIDs returns the checks' ids, in their order.
func checkIDs(checks []*Check) []string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = c.ID
	}
	return out
}

// newSuite reads from the contract what the checks judge by: the error table and the test values.
func newSuite(cfg Config, spec *openapi.Spec, receiver *webhooksink.Receiver) (*suite, error) {
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
	filter := runner.Filter{Run: run, Skip: skip}
	var selected []*Check
	for _, c := range checks {
		if filter.Keeps(c.ID) {
			selected = append(selected, c)
		}
	}
	return selected
}

// job is the check as the runner runs it: what the target or the document lacks skips it first; then
// it runs on a T of its own, whose evidence goes into its result.
func (s *suite) job(c *Check) runner.Check {
	return runner.Check{ID: c.ID, Category: c.Category, Doc: c.Doc, Rule: c.Rule, Final: c.Final,
		Run: func(ctx context.Context, rec *runner.Recorder) {
			rec.OnResult(s.citeRule)
			if reason, fail := s.unmet(c); fail {
				rec.Fail(report.Failure{Message: reason})
				return
			} else if reason != "" {
				rec.Skip(reason)
			}
			s.ran.note(c)
			t := &T{ctx: ctx, check: c, suite: s, rec: rec}
			rec.OnResult(t.attachEvidence)
			defer t.runCleanups()
			c.Run(t)
		}}
}

// citeRule gives a result the reports show the rule of (one that did not pass or skip) the document's
// words at its rule's pointer, where the rule quotes none, and the file and line the pointer is at (for
// CI annotations): the reports print words and places, they do not read the document.
func (s *suite) citeRule(res *report.Result) {
	if res.Outcome == report.Passed || res.Outcome == report.Skipped {
		return
	}
	if res.Rule.Quote == "" {
		res.Rule.Says = s.spec.Words(res.Rule.Pointer)
	}
	res.Rule.At = s.place(res.Rule.Pointer, res.Rule.Quote)
}

// place is where the run's document writes pointer: the file it was read from (openapi.Spec.Path) and
// the line, that of quote's first words when the rule quotes a sentence of the text there; the zero
// Place when the pointer does not resolve.
func (s *suite) place(pointer, quote string) report.Place {
	line := s.spec.QuoteLine(pointer, quote)
	if line == 0 {
		return report.Place{}
	}
	return report.Place{File: s.spec.Path(), Line: line}
}

// unmet says why the check cannot run against this target: a skip reason, or (fail) the failure of a
// required extension the target lacks; "" when it can run.
func (s *suite) unmet(c *Check) (reason string, fail bool) {
	// What the document lacks comes first: a check of an operation the document does not have is
	// skipped for that reason, whatever the target answered to the extension probe.
	if reason := s.missingCover(c); reason != "" {
		return reason, false
	}
	var ext, probe string
	if c.Extension {
		ext, probe = s.absentExtension(c)
	}
	switch {
	case ext != "" && !s.cfg.RequireExtensions:
		return "the target does not implement the " + ext + " extension (" + probe + " answered 404)", false
	case ext != "":
		return "the " + ext + " extension is required (--require-extensions) but " + probe + " answered 404", true
	case c.NeedsSecondMerchant && s.cfg.OtherMerchant == nil:
		return "needs a second merchant's keys (--other-public-key, --other-secret-key)", false
	}
	return "", false
}
