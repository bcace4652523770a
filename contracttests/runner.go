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
	"github.com/malipo/terraform-provider-malipo/openapi/api"
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
	// CheckTimeout bounds each check (default 60 s).
	CheckTimeout time.Duration
	// EventuallyTimeout bounds waits for asynchronous outcomes: settlement, deliveries (default 20 s).
	EventuallyTimeout time.Duration
	// SettleTime is how long checks wait to see that something does NOT happen (default 300 ms).
	SettleTime time.Duration
	// WebhookStall is how long the receiver stalls to make the target time out (default 15 s); it must
	// exceed the target's delivery time-out.
	WebhookStall time.Duration
	// RequireExtensions fails, instead of skipping, extension checks on a target without them.
	RequireExtensions bool
	// Run selects checks by id; nil runs all.
	Run *regexp.Regexp
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
	if c.CheckTimeout <= 0 {
		c.CheckTimeout = 60 * time.Second
	}
	if c.EventuallyTimeout <= 0 {
		c.EventuallyTimeout = 20 * time.Second
	}
	if c.SettleTime <= 0 {
		c.SettleTime = 300 * time.Millisecond
	}
	if c.WebhookStall <= 0 {
		c.WebhookStall = 15 * time.Second
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

// Summary is the whole run: every result and the spec coverage.
type Summary struct {
	Target   string        `json:"target"`
	Results  []Result      `json:"results"`
	Passed   int           `json:"passed"`
	Failed   int           `json:"failed"`
	Skipped  int           `json:"skipped"`
	Duration time.Duration `json:"duration_ns"`
	Coverage Coverage      `json:"coverage"`
}

// OK reports whether no check failed.
func (s *Summary) OK() bool { return s.Failed == 0 }

// ErrUnreachable is returned when the target cannot be reached at all.
var ErrUnreachable = errors.New("target unreachable")

type suite struct {
	cfg        Config
	spec       *openapi.Spec
	client     *http.Client
	receiver   *Receiver
	coverage   *coverageRecorder
	extensions bool
	ref        refCache
	// errorStatuses is the spec's error table (code → HTTP status); ExpectError checks itself against it.
	errorStatuses map[int]int
	inputs        Inputs
	skipped       skippedCovers // what the skipped checks cover (see document.go)
	// evidence records every exchange and delivery for the failed checks' reports and the Observers.
	evidence *recorder
}

// Run runs the selected checks against the target and reports to every reporter. It returns an error
// only when the run could not happen (bad configuration, unreachable target); failed checks are in the
// Summary.
func Run(ctx context.Context, cfg Config, checks []*Check, reporters ...Reporter) (*Summary, error) {
	cfg.defaults()
	spec := cfg.Spec
	if spec == nil {
		var err error
		if spec, err = openapi.Default(); err != nil {
			return nil, fmt.Errorf("load the contract: %w", err)
		}
	}
	if cfg.BaseURL == "" {
		return nil, errors.New("no target base URL: pass --target URL")
	}
	receiver, err := NewReceiver(spec, cfg.WebhookListen, cfg.WebhookURL)
	if err != nil {
		return nil, err
	}
	defer func() { _ = receiver.Close() }()
	s, err := newSuite(cfg, spec, receiver)
	if err != nil {
		return nil, err
	}
	s.startEvidence(reporters)
	if err := s.probe(ctx); err != nil {
		return nil, err
	}
	selected := selectChecks(checks, cfg.Run)
	for _, r := range reporters {
		r.Start(selected)
	}
	sum := s.runSelected(ctx, selected, reporters)
	var errs []error
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

// selectChecks returns the checks whose id matches run (all when run is nil), in their order.
func selectChecks(checks []*Check, run *regexp.Regexp) []*Check {
	var selected []*Check
	for _, c := range checks {
		if run == nil || run.MatchString(c.ID) {
			selected = append(selected, c)
		}
	}
	return selected
}

// runSelected runs the checks, the final ones after all others have ended, reports each result as it
// comes, and sums the run up with its results sorted by id.
func (s *suite) runSelected(ctx context.Context, selected []*Check, reporters []Reporter) *Summary {
	start := time.Now()
	sum := &Summary{Target: s.cfg.BaseURL}
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
	sum.count()
	sum.Duration = time.Since(start)
	sum.Coverage = s.coverage.summary(s.receiver.TypesSeen())
	return sum
}

// count tallies the results by outcome.
func (s *Summary) count() {
	for _, r := range s.Results {
		switch r.Outcome {
		case Passed:
			s.Passed++
		case Failed:
			s.Failed++
		case Skipped:
			s.Skipped++
		}
	}
}

// extensionProbe is the request whose 404 means the target lacks the webhook-endpoint extension.
var extensionProbe = api.OpListWebhookEndpoints().Method + " " + api.OpListWebhookEndpoints().Path

// probe checks that the target answers at all and whether it has the webhook-endpoint extension.
func (s *suite) probe(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, api.OpListWebhookEndpoints().Method, s.cfg.BaseURL+api.OpListWebhookEndpoints().URL(), nil)
	if err != nil {
		return fmt.Errorf("target %q: %w", s.cfg.BaseURL, err)
	}
	req.Header.Set(api.HeaderPublicKey, s.cfg.Keys.Public)
	req.Header.Set(api.HeaderSecretKey, s.cfg.Keys.Secret)
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s: %w; check --target and that the service is running", ErrUnreachable, s.cfg.BaseURL, err)
	}
	_ = resp.Body.Close()
	s.extensions = resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusNotImplemented
	return nil
}

func (s *suite) runAll(ctx context.Context, checks []*Check, report func(Result)) {
	sem := make(chan struct{}, s.cfg.Concurrency)
	var wg sync.WaitGroup
	for _, c := range checks {
		wg.Add(1)
		sem <- struct{}{}
		go func(c *Check) {
			defer wg.Done()
			defer func() { <-sem }()
			report(s.runOne(ctx, c))
		}(c)
	}
	wg.Wait()
}

func (s *suite) runOne(ctx context.Context, c *Check) Result {
	res := Result{Check: c, ID: c.ID, Category: c.Category}
	switch {
	case c.Extension && !s.extensions && !s.cfg.RequireExtensions:
		res.Outcome, res.SkipReason = Skipped, "the target does not implement the webhook-endpoint extension ("+extensionProbe+" answered 404)"
		return res
	case c.Extension && !s.extensions:
		res.Outcome = Failed
		res.Failures = []Failure{{Message: "the webhook-endpoint extension is required (--require-extensions) but " + extensionProbe + " answered 404"}}
		return res
	case c.NeedsSecondMerchant && s.cfg.OtherMerchant == nil:
		res.Outcome, res.SkipReason = Skipped, "needs a second merchant's keys (--other-public-key, --other-secret-key)"
		return res
	default:
		if reason := s.missingCover(c); reason != "" {
			res.Outcome, res.SkipReason = Skipped, reason
			return res
		}
	}
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
		res.Outcome = Failed
	case t.skipReason != "":
		res.Outcome, res.SkipReason = Skipped, t.skipReason
	default:
		res.Outcome = Passed
	}
	t.attachEvidence(&res)
	return res
}
