package harness

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
	// HTTPClient sends the suite's requests; nil means a client with a 30 s time-out that keeps its
	// connections to the target open for the checks in flight (pooledTransport).
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
	// Spec is the document the run checks against (`--spec FILE`, see contracttests.LoadSpec); nil
	// means the embedded one. Pass the checks contracttests.AllFor derives from the same document.
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

// Defaults fills in what the run does not say, as Config's fields describe, and draws the seed when
// there is none.
func (c *Config) Defaults() {
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 30 * time.Second, Transport: pooledTransport(c.Concurrency)}
	}
	if c.WebhookListen == "" {
		c.WebhookListen = "127.0.0.1:0"
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

// pooledTransport is net/http's default transport keeping up to four idle connections to the target
// per check in flight (a check sends up to a few requests at once). With the default of two a host, a run
// at the default concurrency against the embedded sandbox opened about 780 connections, one for most of
// its requests and each a TLS handshake against an HTTPS target; with this pool, about 50.
func pooledTransport(concurrency int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 4 * concurrency
	return t
}

// Suite is the state one run's checks share: the configuration and document, the HTTP client and
// webhook receiver, what the preflight found out about the target, the coverage and evidence
// recorded, and the target's observed pace. The run (package contracttests) makes one, asks the
// preflight's questions through it (Get), and runs each check on it (RunCheck).
type Suite struct {
	cfg      Config
	spec     *openapi.Spec
	client   *http.Client
	receiver *webhooksink.Receiver
	coverage *coverageRecorder
	// absentExtensions maps each extension the target lacks to the request (method and path, in the
	// run's document) whose 404 told (Found).
	absentExtensions map[string]string
	// scenarios is true when the target plays the sandbox's scenario header (Found).
	scenarios bool
	ref       refCache
	// errorStatuses is the spec's error table (code → HTTP status); ExpectError checks itself against it.
	errorStatuses map[int]int
	inputs        Inputs
	skipped       coverSet // what the skipped checks cover (see document.go)
	ran           coverSet // what the checks that started cover
	// evidence records every exchange and delivery for the failed checks' reports and the Observers.
	evidence *evidence.Recorder

	// run is the context of the checks (Start): it ends, with a cause, when the caller's context ends
	// or the target stops answering (stop). A failure recorded after that is a consequence of the stop,
	// not a verdict on the target (T.Fail).
	run  context.Context
	stop context.CancelCauseFunc
	// liveness serialises the probes that tell a dead target from a failed request (confirmAlive).
	liveness sync.Mutex
	// pace is the target's observed speed, which sizes the settle windows.
	pace pace
}

// NewSuite reads from the contract what the checks judge by: the error table and the test values. cfg
// has its defaults already (Config.Defaults); the run's checks send through cfg.HTTPClient and get
// their deliveries on receiver.
func NewSuite(cfg Config, spec *openapi.Spec, receiver *webhooksink.Receiver) (*Suite, error) {
	statuses, err := spec.ErrorStatuses()
	if err != nil {
		return nil, fmt.Errorf("load the contract's error table: %w", err)
	}
	inputs, err := inputsFrom(spec)
	if err != nil {
		return nil, fmt.Errorf("choose test values from the contract: %w", err)
	}
	return &Suite{cfg: cfg, spec: spec, client: cfg.HTTPClient, receiver: receiver, coverage: newCoverage(spec),
		errorStatuses: statuses, inputs: inputs}, nil
}

// Found records what the preflight found out about the target before any check: whether it plays the
// sandbox's scenario header (T.PlaysScenarios), and each extension of the contract it lacks, mapped
// to the request (method and path, in the run's document) whose 404 told (T.LacksExtension).
func (s *Suite) Found(scenarios bool, absentExtensions map[string]string) {
	s.scenarios, s.absentExtensions = scenarios, absentExtensions
}

// Start begins the checks: it returns the context they run in, which ends, with a cause, when ctx ends
// or the target stops answering (confirmAlive), and the function that ends it.
func (s *Suite) Start(ctx context.Context) (run context.Context, stop func()) {
	s.run, s.stop = context.WithCancelCause(ctx)
	return s.run, func() { s.stop(nil) }
}

// Coverage is what the run's exchanges and deliveries covered of the document: each operation's
// documented statuses seen, the undocumented ones, and the webhook types received.
func (s *Suite) Coverage() report.Coverage { return s.coverage.summary(s.receiver.TypesSeen()) }

// CloseIdleConnections closes the client's pooled connections once the run sends nothing more.
func (s *Suite) CloseIdleConnections() { s.client.CloseIdleConnections() }

// RunCheck runs c on a T of its own, whose evidence goes into its result, and notes what it covers
// as covered by a check that ran.
func (s *Suite) RunCheck(ctx context.Context, c *Check, rec *runner.Recorder) {
	s.ran.note(c)
	t := &T{ctx: ctx, check: c, suite: s, rec: rec}
	rec.OnResult(t.attachEvidence)
	defer t.runCleanups()
	c.Run(t)
}

// Place is where the run's document writes pointer: the file it was read from (openapi.Spec.Path) and
// the line, that of quote's first words when the rule quotes a sentence of the text there; the zero
// Place when the pointer does not resolve.
func (s *Suite) Place(pointer, quote string) report.Place {
	line := s.spec.QuoteLine(pointer, quote)
	if line == 0 {
		return report.Place{}
	}
	return report.Place{File: s.spec.Path(), Line: line}
}
