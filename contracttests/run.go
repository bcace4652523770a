// Package contracttests is the Malipo conformance suite: it checks any implementation of the v1 API,
// given a base URL and keys, against openapi/malipo.yaml — request and response shapes, status codes,
// errors, auth, idempotency, state machines and webhook behaviour (delivered, schema-valid, signed,
// retried).
//
// Checks are data (Check), each naming, where it is defined, the words of the document it enforces
// (Rule). The mechanical ones are derived from the document (negative cases from request schemas, the
// auth matrix from security requirements, lifecycles from the test values); the generated ones send
// request bodies and parameters drawn from the schemas at their boundaries and at random from the run's
// seed, shrinking a failing one; the stateful sequences walk chains of operations and judge each state
// the document allows; the behavioural ones are written by hand. The checks are package checks' (the
// stateful sequences package sequences'), and all act through T, package harness's. This package runs
// them: Run checks the run can mean something (preflight), then hands the checks to package runner,
// which runs them and reports through package report's reporters (text, JSON, JUnit, HTML, HAR).
package contracttests

import (
	"context"
	"fmt"
	"regexp"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// The names callers of the suite use, from package harness.
type (
	// Check is one conformance check (Check).
	Check = harness.Check
	// Rule is where the document states what a check enforces (Rule).
	Rule = harness.Rule
	// T is what a check works with (T).
	T = harness.T
	// Config says what to check and how (Config).
	Config = harness.Config
	// Keys is one merchant's key pair (Keys).
	Keys = harness.Keys
)

// DefaultGenerated is how many generated requests a generated check sends when the run does not say
// (harness.DefaultGenerated).
const DefaultGenerated = harness.DefaultGenerated

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
	cfg.Defaults()
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
	shared, err := harness.NewSuite(cfg, spec, receiver)
	if err != nil {
		return nil, err
	}
	s := &session{Suite: shared, cfg: cfg, spec: spec}
	s.StartEvidence(reporters)
	if err := s.preflight(ctx); err != nil {
		return nil, err
	}
	run, stop := s.Start(ctx)
	defer stop()
	jobs := make([]runner.Check, len(selected))
	for i, c := range selected {
		jobs[i] = s.job(c)
	}
	return runner.Run(run, runner.Options{
		Concurrency:  cfg.Concurrency,
		CheckTimeout: cfg.CheckTimeout,
		Summary:      report.Summary{Target: report.MaskUserinfo(cfg.BaseURL), Rerun: report.MaskedArgs(cfg.Rerun), Seed: cfg.Seed},
		Done: func(sum *report.Summary) {
			sum.Coverage = s.Coverage()
			// The run sends nothing more. Pooled connections would keep the target's graceful shutdown
			// waiting: it counts a connection that never carried a request (Go's Transport dials spares)
			// as busy for five seconds, which made the embedded sandbox's stop linger for its whole 2 s
			// deadline.
			s.CloseIdleConnections()
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

// session is one run as the orchestration sees it: the state its checks share (Suite), and what the
// preflight found out about the target, which decides whether each check can run (unmet).
type session struct {
	*harness.Suite
	cfg  Config
	spec *openapi.Spec
	// absentExtensions maps each extension the target lacks to the request (method and path, in the
	// run's document) whose 404 told; extensionOfTag maps the document's extension tags to their
	// extension (preflight.go).
	absentExtensions map[string]string
	extensionOfTag   map[string]string
	// scenarios is true when the target plays the sandbox's scenario header (probeScenarios).
	scenarios bool
}

// job is the check as the runner runs it: what the target or the document lacks skips it first; then
// it runs on a T of its own, whose evidence goes into its result.
func (s *session) job(c *Check) runner.Check {
	return runner.Check{ID: c.ID, Category: c.Category, Doc: c.Doc, Rule: c.Rule, Final: c.Final,
		Run: func(ctx context.Context, rec *runner.Recorder) {
			rec.OnResult(s.citeRule)
			if reason, fail := s.unmet(c); fail {
				rec.Fail(report.Failure{Message: reason})
				return
			} else if reason != "" {
				rec.Skip(reason)
			}
			s.RunCheck(ctx, c, rec)
		}}
}

// citeRule gives a result the reports show the rule of (one that did not pass or skip) the document's
// words at its rule's pointer, where the rule quotes none, and the file and line the pointer is at (for
// CI annotations): the reports print words and places, they do not read the document.
func (s *session) citeRule(res *report.Result) {
	if res.Outcome == report.Passed || res.Outcome == report.Skipped {
		return
	}
	if res.Rule.Quote == "" {
		res.Rule.Says = s.spec.Words(res.Rule.Pointer)
	}
	res.Rule.At = s.Place(res.Rule.Pointer, res.Rule.Quote)
}

// unmet says why the check cannot run against this target: a skip reason, or (fail) the failure of a
// required extension the target lacks; "" when it can run.
func (s *session) unmet(c *Check) (reason string, fail bool) {
	// What the document lacks comes first: a check of an operation the document does not have is
	// skipped for that reason, whatever the target answered to the extension probe.
	if reason := s.MissingCover(c); reason != "" {
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
