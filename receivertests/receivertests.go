// Package receivertests grades a merchant's webhook receiver (`malipo webhooks test`): the other half
// of every integration, which `malipo conform` (the sender's half) does not reach.
//
// It sends the receiver a battery of deliveries built from the document's `webhooks` (each event
// type's example event, with a fresh id, validated against its schema), some signed correctly and
// some deliberately broken, and grades each answer: a correctly signed delivery must be acknowledged
// (2xx) within the document's delivery time-out, also during a secret rotation, on a redelivery,
// when its bytes are spelled in a way a decode and re-encode changes (rawbody.go), and for every body
// the event's schema allows (generate.go, from a seed); an unsigned, forged, tampered, stale or badly
// formed one must be refused (any non-2xx), for every event type (attacks.go), since a receiver can
// verify in some handlers only; and a burst of deliveries, an unknown field and an unknown event type
// must not break it. Its checks run on package
// runner and report through package report, as the contract suite's do, so that both graders share
// their reporters (text, JSON, JUnit, HTML, HAR), their handling of panics, deadlines and interruptions,
// and their exit codes; each failure names the rule it breaks and what to fix.
package receivertests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/valuegen"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// Tool is the name of the grader in reports (report.Summary.Tool).
const Tool = "malipo webhooks test"

// The categories of the receiver checks.
const (
	// CategoryAccepts: correctly signed deliveries must be acknowledged.
	CategoryAccepts report.Category = "receiver-accepts"
	// CategoryRejects: deliveries that do not verify must be refused.
	CategoryRejects report.Category = "receiver-rejects"
	// CategoryRobustness: load and additive changes must not break the receiver.
	CategoryRobustness report.Category = "receiver-robustness"
)

// DefaultBurst is how many deliveries the burst check sends at once when Config.Burst is zero.
const DefaultBurst = 20

// Config says which receiver to grade and how.
type Config struct {
	// URL is the receiver's full URL, as the merchant registers it as a webhook_url or endpoint.
	URL string
	// Secret is the secret the receiver verifies with: the endpoint's whsec_ secret, or the merchant
	// secret key for deliveries to a payment's or payout's own webhook_url (webhook.ParseSecret).
	Secret webhook.Secret
	// Spec is the document the deliveries are built from; nil means the embedded one.
	Spec *openapi.Spec
	// EventTypes limits the event types sent; empty means every type the document declares.
	EventTypes []string
	// Timeout is how long the receiver has to answer each delivery; zero means the document's
	// (x-malipo-delivery-timeout-seconds).
	Timeout time.Duration
	// Burst is how many deliveries the burst check sends at once; zero means DefaultBurst.
	Burst int
	// Run selects checks by id; nil runs all.
	Run *regexp.Regexp
	// Skip leaves out, of the checks Run selects, those whose id it matches; nil leaves out none.
	Skip *regexp.Regexp
	// Concurrency is how many checks run at once (default 4), and how many deliveries a check that
	// sends many (the raw bodies, the generated payloads) sends at once; the burst check runs alone,
	// last. In all, no more deliveries are in flight than the larger of Concurrency and Burst: what
	// the burst check asks the receiver to take at once.
	Concurrency int
	// Now is the grader's clock, for the timestamps it signs; nil means time.Now.
	Now func() time.Time
	// HTTPClient sends the deliveries; nil means a client of its own. Its Timeout should be zero:
	// each delivery is bounded by Timeout.
	HTTPClient *http.Client
	// Seed draws the generated payloads (receiver.accepts.generated/*): the same seed and document
	// send the same bodies, ids and times aside. Zero means a seed drawn at random; every failure of a
	// generated check names the seed it used.
	Seed uint64
	// Rerun is the command line that grades the same receiver again (without the secret, which the
	// command reads from the environment), the seed included; the reports print it, with --run, under
	// each failure. Empty: none is printed.
	Rerun []string
}

// grader is one run.
type grader struct {
	cfg      Config
	spec     *openapi.Spec
	types    []string
	payloads payloads
	client   *http.Client
	// tolerance is the replay window the timestamp checks step outside of.
	tolerance time.Duration
	// observers receive every delivery as it ends (the HAR recording).
	observers *report.Observers
	// inflight bounds the deliveries in flight across checks (Config.Concurrency).
	inflight chan struct{}
	// seed draws the generated payloads (Config.Seed, or one drawn at random).
	seed uint64
	// fields are, per selected event type, what the document says of each field of its body.
	fields map[string][]*valuegen.Field
}

// check is one receiver check: what it proves, the rule it enforces, and how it runs.
type check struct {
	id       string
	category report.Category
	doc      string
	covers   []string
	// rule names where the rule is written: a section of Standard Webhooks or a place in the document.
	rule string
	// alone runs the check after every other, by itself (the burst, whose timing others would skew).
	alone bool
	run   func(c *checkRun)
}

// Where the rules are written, as failures cite them.
const (
	swSpec          = "Standard Webhooks (standardwebhooks.com, spec/standard-webhooks.md)"
	ruleAuthentic   = swSpec + ", \"Verifying webhook authenticity\" and \"Signature scheme\": sign {webhook-id}.{webhook-timestamp}.{body}, compare in constant time"
	ruleRotation    = swSpec + ", \"Webhook headers\": webhook-signature is a space-delimited list during a rotation; try each until one matches"
	ruleSeveral     = "openapi/malipo.yaml " + signatureParameter + ": \"" + severalListQuote + "\" … \"" + severalAcceptQuote + "\" (so not when none does); " + swSpec + ", \"Verifying webhook authenticity\""
	ruleVersions    = swSpec + ", \"Signature scheme\": a signature is <version>,<base64>; verify the versions you know (v1) and ignore the others"
	ruleTolerance   = swSpec + ", \"Verifying signatures\": reject a webhook-timestamp outside the tolerance (replays); openapi/malipo.yaml info.description, \"Verifying webhooks\": five minutes"
	ruleIdempotency = swSpec + ", \"Verifying signatures\": use webhook-id as an idempotency key; openapi/malipo.yaml webhooks.*.parameters.webhook-id: delivery is at least once"
	ruleTimeout     = "openapi/malipo.yaml tags[Events] " + openapi.DeliveryTimeoutExtension + "; " + swSpec + ", \"Delivery success and failure\": only a 2xx acknowledges"
	ruleAdditive    = "openapi/malipo.yaml tags[Events]: events change only by addition (new fields, new event types)"
	ruleRawBody     = "openapi/malipo.yaml webhooks.*.parameters.webhook-signature: the HMAC is of \"{webhook-id}.{webhook-timestamp}.{body}\", the body as sent; " + swSpec + ", \"Signature scheme\""
	ruleSchema      = "openapi/malipo.yaml webhooks.*.requestBody: every body the event's schema allows (each enum value, optional fields absent or present, any text, amounts up to the maximum) and " + ruleAdditive
)

// The document's words on a webhook-signature that lists several signatures, in the description of
// every webhook's webhook-signature parameter (TestSeveralSignaturesRuleQuotesTheDocument finds them
// there): ruleSeveral quotes them.
const (
	signatureParameter = "webhooks.*.parameters.webhook-signature"
	severalListQuote   = "Standard Webhooks signatures, space-separated"
	severalAcceptQuote = "After a rotation there is one signature per valid secret; accept the delivery when any of them verifies."
)

// checks returns the battery for the selected event types, in a stable order.
func (g *grader) checks() []*check {
	var out []*check
	for _, t := range g.types {
		out = append(out, &check{id: "receiver.accepts." + t, category: CategoryAccepts, covers: []string{t}, rule: ruleTimeout,
			doc: "a correctly signed " + t + " delivery (the document's example event) is acknowledged with a 2xx within the time-out",
			run: func(c *checkRun) { c.expectAccepted(c.signed(t), "a correctly signed "+t+" delivery") }})
	}
	first := g.types[0]
	out = append(out,
		&check{id: "receiver.accepts.dual-signature", category: CategoryAccepts, covers: []string{first}, rule: ruleRotation,
			doc: "a delivery signed during a rotation is acknowledged wherever the valid signature is in the list: after one by a secret the receiver does not hold, before it (the order a service that signs with the new secret first sends), and between two",
			run: func(c *checkRun) {
				other, _ := webhook.NewSecret()
				another, _ := webhook.NewSecret()
				held := c.g.cfg.Secret
				for _, order := range []struct {
					what    string
					secrets []webhook.Secret
				}{
					{"a delivery with two signatures, the second valid,", []webhook.Secret{other, held}},
					{"a delivery with two signatures, the first valid,", []webhook.Secret{held, other}},
					{"a delivery with three signatures, the second valid,", []webhook.Secret{other, held, another}},
				} {
					c.expectAccepted(newDelivery(c.g.payloads.event(first, c.now()), c.now(), order.secrets...), order.what)
				}
			}},
		&check{id: "receiver.accepts.redelivery", category: CategoryAccepts, covers: []string{first}, rule: ruleIdempotency,
			doc: "a redelivery of an event already acknowledged (same webhook-id, fresh timestamp and signature, as a retry) is acknowledged again",
			run: (*checkRun).redelivery},
	)
	out = append(out, g.rawBodyChecks()...)
	out = append(out, g.generatedChecks()...)
	out = append(out, g.rejectChecks()...)
	out = append(out,
		&check{id: "receiver.robustness.burst", category: CategoryRobustness, covers: g.types, rule: ruleTimeout, alone: true,
			doc: fmt.Sprintf("a burst of %d correctly signed deliveries at once (distinct events) is acknowledged, each within the time-out", g.burst()),
			run: (*checkRun).burstCheck},
		&check{id: "receiver.robustness.unknown-field", category: CategoryRobustness, covers: []string{first}, rule: ruleAdditive,
			doc: "a correctly signed " + first + " delivery with fields the document does not declare (in the event, its data and its object) is acknowledged",
			run: (*checkRun).unknownField},
		&check{id: "receiver.robustness.unknown-event-type", category: CategoryRobustness, rule: ruleAdditive,
			doc: "a correctly signed delivery of an event type the document does not declare (yet) is acknowledged (2xx) in time",
			run: (*checkRun).unknownType},
	)
	return out
}

func (g *grader) burst() int {
	if g.cfg.Burst > 0 {
		return g.cfg.Burst
	}
	return DefaultBurst
}

// List returns the checks a run with cfg would make (for --list), without contacting the receiver.
func List(cfg Config) ([]runner.Check, error) {
	g, err := newGrader(cfg)
	if err != nil {
		return nil, err
	}
	var out []runner.Check
	for _, c := range g.checks() {
		out = append(out, g.job(c))
	}
	return out, nil
}

// newGrader checks the configuration and reads from the document what the checks send.
func newGrader(cfg Config) (*grader, error) {
	if cfg.Spec == nil {
		spec, err := openapi.Default()
		if err != nil {
			return nil, fmt.Errorf("load the contract: %w", err)
		}
		cfg.Spec = spec
	}
	if cfg.Timeout <= 0 {
		d, err := cfg.Spec.WebhookDeliveryTimeout()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", runner.ErrSetup, err)
		}
		cfg.Timeout = d
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	known := cfg.Spec.EventTypes()
	types := known
	if len(cfg.EventTypes) > 0 {
		types = nil
		for _, t := range cfg.EventTypes {
			if !slices.Contains(known, t) {
				return nil, fmt.Errorf("%w: event type %q is not declared under the document's webhooks; choose among %s",
					runner.ErrSetup, t, strings.Join(known, ", "))
			}
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("%w: the document declares no webhooks, so there is nothing to send", runner.ErrSetup)
	}
	p, err := loadPayloads(cfg.Spec, types)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", runner.ErrSetup, err)
	}
	client := cfg.HTTPClient
	if client == nil {
		// No redirects: Standard Webhooks counts a 3xx as a failed delivery, and following one would
		// grade another URL than the one given.
		client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	fields := map[string][]*valuegen.Field{}
	for _, t := range types {
		if fields[t], err = eventFields(cfg.Spec, t); err != nil {
			return nil, fmt.Errorf("%w: %w", runner.ErrSetup, err)
		}
	}
	seed := cfg.Seed
	for seed == 0 {
		seed = rand.Uint64()
	}
	g := &grader{cfg: cfg, spec: cfg.Spec, types: types, payloads: p, client: client, tolerance: webhook.DefaultTolerance,
		seed: seed, fields: fields}
	g.inflight = make(chan struct{}, max(cfg.Concurrency, g.burst()))
	return g, nil
}

// Run grades the receiver at cfg.URL and reports to every reporter, as contracttests.Run does: a
// configuration the grader cannot use, --run and --skip filters that select nothing, a report that
// cannot be written, or a receiver that does not answer at all end it before any check, with a nil
// Summary and an error wrapping runner.ErrSetup (and runner.ErrUnreachable); an interrupted run
// returns its partial Summary with runner.ErrInterrupted. runner.ExitCode maps the pair to the exit
// status.
func Run(ctx context.Context, cfg Config, reporters ...report.Reporter) (*report.Summary, error) {
	if cfg.URL == "" {
		return nil, fmt.Errorf("%w: no receiver URL: pass --url URL", runner.ErrSetup)
	}
	if cfg.Secret.Reveal() == "" {
		return nil, fmt.Errorf("%w: no secret: pass --secret whsec_… (an endpoint's) or --secret-key sk_… (the merchant key that signs webhook_url deliveries)", runner.ErrSetup)
	}
	g, err := newGrader(cfg)
	if err != nil {
		return nil, err
	}
	all := g.checks()
	filter := runner.Filter{Run: cfg.Run, Skip: cfg.Skip}
	var selected []runner.Check
	ids := make([]string, len(all))
	for i, c := range all {
		ids[i] = c.id
		if filter.Keeps(c.id) {
			selected = append(selected, g.job(c))
		}
	}
	if err := filter.Empty(ids); err != nil {
		return nil, err
	}
	if err := runner.Prepare(reporters); err != nil {
		return nil, err
	}
	if err := g.preflight(ctx); err != nil {
		return nil, err
	}
	g.observers = report.ObserversOf(reporters)
	return runner.Run(ctx, runner.Options{
		Concurrency: cfg.Concurrency,
		// A check sends at most a few deliveries one after the other (the burst sends its own at once),
		// each bounded by the time-out.
		CheckTimeout: max(30*time.Second, 4*cfg.Timeout),
		Summary: report.Summary{Tool: Tool, Target: report.MaskUserinfo(cfg.URL), Rerun: report.MaskedArgs(cfg.Rerun), Seed: g.seed,
			ReplayNote: "Each curl command sends the delivery again with the headers it had, signature included; " +
				"a receiver refuses a replay made more than the tolerance (five minutes) later, which is the point of the timestamp."},
		Done: func(*report.Summary) { g.client.CloseIdleConnections() },
	}, selected, reporters)
}

// job is the check as the runner runs it: on a checkRun of its own, whose deliveries become the
// evidence of a check that failed.
func (g *grader) job(c *check) runner.Check {
	var about string // the event type whose webhook states the rule: the first the check covers
	if covers := slices.Concat(c.covers, g.types); len(covers) > 0 {
		about = covers[0]
	}
	cites := g.cite(c.rule, about)
	return runner.Check{ID: c.id, Category: c.category, Doc: c.doc, Alone: c.alone, Rule: cites,
		Run: func(ctx context.Context, rec *runner.Recorder) {
			cr := &checkRun{ctx: ctx, g: g, check: c, rec: rec, cites: g.placed(cites)}
			rec.OnResult(cr.attachEvidence)
			rec.OnResult(cr.placeRule)
			c.run(cr)
		}}
}

// preflight makes sure the receiver answers at all, so that a wrong URL or a receiver that is not
// running is a setup error naming the URL rather than every check failing. Any HTTP answer will do
// (a GET of a webhook URL is often 404 or 405).
func (g *grader) preflight(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, g.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(pctx, http.MethodGet, g.cfg.URL, nil)
	if err != nil {
		return fmt.Errorf("%w: --url %s: %w", runner.ErrSetup, g.cfg.URL, err)
	}
	resp, err := g.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", runner.ErrInterrupted, context.Cause(ctx))
		}
		return fmt.Errorf("%w: %w: the receiver at %s does not answer (%w); start it, or check --url", runner.ErrSetup,
			runner.ErrUnreachable, g.cfg.URL, err)
	}
	_ = resp.Body.Close()
	return nil
}
