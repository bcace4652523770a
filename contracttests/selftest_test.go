package contracttests_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
	"github.com/malipo/terraform-provider-malipo/report"
)

// faultRule says, for one fault, which checks guard the rule it breaks.
type faultRule struct {
	// caught matches the check that guards the rule: it must fail.
	caught string
	// scope matches every check allowed to fail: the checks that assert the broken rule, including
	// those that assert it on the way to something else (every check that creates an object expects
	// 201). A failure outside the scope means the fault broke a second rule, or a check failed for a
	// reason that is not the fault.
	scope string
}

// Endings of derived negative check ids, by what refuses the request: schema rules (only schema
// validation refuses them), Go types (decoding refuses them too), and the media type and reference
// data. checkEnding joins some into a pattern for the part of the id after the operation.
const (
	schemaRules = `other-kind|above-maximum|at-exclusive-minimum|below-minimum|duplicate-items|empty-object|item-not-in-enum|missing|not-in-enum|not-multiple|pattern|too-few-items|too-long|too-short|unknown-field|unusable-webhook-url`
	typeRules   = `not-integer|wrong-type`
	otherRules  = `wrong-content-type|unknown-bank|unknown-country|bank-of-other-country`
)

func checkEnding(rules ...string) string { return `(.+\.)?(` + strings.Join(rules, "|") + `)$` }

// Each fault breaks one rule of the contract; the suite must fail on the check that guards that rule,
// and on no check outside the rule. A fault the suite does not catch is a blind spot of the suite.
var faultChecks = map[faults.Fault]faultRule{
	faults.DropRequiredResponseField: {`^state\.payout\.mobile\.success\.`,
		`^(auth\.isolation\.payout|extensions\.webhook-endpoints|extensions\.events\.attempts-oldest-first$|idempotency\.(processPayout|reference)|state\.payout|webhooks\.retry-after-|sequences\.|generated\.processPayout\.)`}, // every check that reads a payout
	faults.WrongSuccessStatus: {`^idempotency\.processPayout\.replay$`,
		`^(auth\.isolation|extensions|idempotency|positive|state|webhooks|sequences|generated)\.|^negative\.(completePayment|rotateWebhookEndpointSecret|updateWebhookEndpoint|resendEvent)\.` + checkEnding(schemaRules, typeRules, `malformed-json|wrong-content-type`)}, // every check that creates what it uses
	// Invalid creates it accepts leave webhook endpoints behind, which the cap's check then finds, and
	// which the endpoint list and a payout.success event's attempts (to every subscribed endpoint) show.
	faults.AcceptInvalidInput:  {`^negative\.processPayout\.bank\.amount\.below-minimum$`, `^negative\.\w+\.` + checkEnding(schemaRules) + `|^extensions\.webhook-endpoints\.(crud|limit|oldest-first)$|^extensions\.events\.attempts-oldest-first$|^idempotency\.\w+\.key-after-validation-error$|^generated\.[\w.]+\.invalid$|^negative\.processPayout\.over-100-fields$`},
	faults.AuthNotEnforced:     {`^auth\.processPayout\.no-keys$`, `^auth\.\w+\.(no-|wrong-|keys-swapped)`},
	faults.SecretKeyNotChecked: {`^auth\.processPayout\.wrong-secret-key$`, `^auth\.\w+\.wrong-secret-key$`},
	faults.ErrorNotEnvelope: {`^negative\.unknown-path$`, // every check that provokes an error
		`^(auth|negative|scenarios|generated)\.|^idempotency\.(reference\.|\w+\.(conflict|key-after-validation-error)$)|^reference\.banks\.(missing|unknown)-country$|^state\.payment\.complete-(twice|without-phone)$|^extensions\.webhook-endpoints\.(crud|not-found|weak-secret|limit)$|^extensions\.events\.(not-found|resend-to-endpoint)$|^positive\.rate-limit-fields$`},
	faults.ErrorMissingFieldPointer: {`^negative\.processPayout\.bank\.bank_id\.missing$`,
		`^(negative\.\w+\.` + checkEnding(schemaRules, typeRules, otherRules) + `)|^generated\.|^idempotency\.(reference\.|\w+\.key-after-validation-error$)|^reference\.banks\.(missing|unknown)-country$|^state\.payment\.complete-without-phone$|^extensions\.webhook-endpoints\.weak-secret$|^negative\.processPayout\.over-100-fields$`}, // every check that expects a field named
	faults.BadSignature:               {`^webhooks\.signatures$`, `^(state|webhooks|sequences|extensions\.(webhook-endpoints|events))\.`}, // every check that verifies a delivery
	faults.NoWebhookRetry:             {`^webhooks\.retry-after-500$`, `^webhooks\.retry-after-|^extensions\.events\.attempts-oldest-first$`},
	faults.UnstableWebhookID:          {`^webhooks\.retry-after-500$`, `^webhooks\.retry-after-`},
	faults.IdempotencyIgnored:         {`^idempotency\.processPayout\.replay$`, `^idempotency\.\w+\.(replay|conflict|concurrent)$`},
	faults.IdempotencyConflictIgnored: {`^idempotency\.processPayout\.conflict$`, `^idempotency\.\w+\.conflict$`},
	faults.FinalStateChanges:          {`^state\.payout\.mobile\.success\.`, `^(state\.payout|sequences)\.`},
	faults.CrossMerchantVisible:       {`^auth\.isolation\.payout$`, `^auth\.isolation\.`},
	faults.MissingWebhookEvent:        {`^state\.payment\.success\.`, `^(state\.payment\.|sequences\.|webhooks\.all-types-observed$)`},
	faults.WrongFailureReason:         {`^state\.payout\.mobile\.account_not_found\.`, `^(state\.(payment|payout)|sequences)\.`},
	faults.WebhookToDisabledEndpoint:  {`^extensions\.webhook-endpoints\.delivery$`, `^extensions\.webhook-endpoints\.delivery$`},
	faults.NoRotationDualSignature:    {`^extensions\.webhook-endpoints\.rotate-secret$`, `^extensions\.webhook-endpoints\.rotate-(supplied-)?secret$`},
	// Every check that sends an Idempotency-Key may lose its first response: whether Go's transport
	// retries the request on its own depends on whether the dropped connection was a reused one.
	faults.LoseFirstCreateResponse:      {`^idempotency\.processPayout\.replay$`, `^idempotency\.\w+\.(replay|conflict|concurrent|key-after-validation-error)$`},
	faults.DuplicateReferenceAccepted:   {`^idempotency\.reference\.payout-duplicate$`, `^idempotency\.reference\.`},
	faults.CompleteNotPendingAccepted:   {`^state\.payment\.complete-twice$`, `^state\.payment\.complete-twice$`},
	faults.UnknownReferenceDataAccepted: {`^negative\.processPayout\.unknown-bank$`, `^negative\.processPayout\.(unknown-|bank-of-other-country$)`},
	faults.RateLimitWithoutRetryAfter:   {`^scenarios\.processPayout\.rate-limited$`, `^scenarios\.\w+\.rate-limited$`},
	faults.RateLimitFieldsOnSuccessOnly: {`^positive\.rate-limit-fields$`, `^positive\.rate-limit-fields$`},
	faults.FieldErrorsStopAtFirst:       {`^negative\.processPayout\.over-100-fields$`, `^negative\.processPayout\.over-100-fields$`},
	faults.ReplayHeaderMissing:          {`^idempotency\.processPayout\.replay$`, `^idempotency\.\w+\.replay$`},
	faults.ValidationErrorUsesKey:       {`^idempotency\.processPayout\.key-after-validation-error$`, `^idempotency\.\w+\.key-after-validation-error$`},
	faults.SecretInEndpointRead:         {`^extensions\.webhook-endpoints\.crud$`, `^extensions\.webhook-endpoints\.crud$`},
	faults.StaleWebhookTimestamp:        {`^state\.payout\.mobile\.success\.`, `^(state|webhooks|sequences|extensions\.(webhook-endpoints|events))\.`},
	faults.RotationKeepsOlderSecrets:    {`^extensions\.webhook-endpoints\.rotate-twice$`, `^extensions\.webhook-endpoints\.rotate-twice$`},
	faults.WebhookURLNotParsed:          {`^negative\.processPayout\.unusable-webhook-url$`, `\.unusable-webhook-url$`},
	faults.SuppliedSecretIgnored:        {`^extensions\.webhook-endpoints\.supplied-secret$`, `^extensions\.webhook-endpoints\.(rotate-)?supplied-secret$`},
	faults.ResendNewWebhookID:           {`^extensions\.events\.resend$`, `^extensions\.events\.resend(-to-endpoint)?$`},
	faults.LimitAsValidationError:       {`^extensions\.webhook-endpoints\.limit$`, `^extensions\.webhook-endpoints\.limit$`},
	faults.AttemptsNewestFirst:          {`^extensions\.events\.attempts-oldest-first$`, `^extensions\.events\.attempts-oldest-first$`},
	faults.EndpointsNewestFirst:         {`^extensions\.webhook-endpoints\.oldest-first$`, `^extensions\.webhook-endpoints\.oldest-first$`},
	// Every check that reads the order of the event log's pages: list (by created_at), pagination (pages
	// of one event against one page) and newest-first.
	faults.EventsOldestFirst: {`^extensions\.events\.newest-first$`, `^extensions\.events\.(list|pagination|newest-first)$`},
	// Every check that follows next_cursor over pages of fewer events than the object or window has.
	faults.CursorRepeatsLastEvent: {`^extensions\.events\.cursor$`, `^extensions\.events\.(pagination|cursor)$`},
	// The faults only generated inputs reveal: their scope is the generated checks alone, so that this
	// test proves no check built from the document's examples fails under them
	// (TestOnlyGeneratedChecksMayFailTheInputFaults).
	faults.NonASCIICrash:                {`^generated\.initializePayment\.valid$`, `^generated\.`},
	faults.LargeAmountRefused:           {`^generated\.processPayout\.bank\.valid$`, `^generated\.`},
	faults.LongTextTruncated:            {`^generated\.initializePayment\.valid$`, `^generated\.`},
	faults.CentsRounded:                 {`^generated\.initializePayment\.valid$`, `^generated\.`},
	faults.PatternCharRefused:           {`^generated\.initializePayment\.valid$`, `^generated\.`},
	faults.WebhookFieldLostForOneStatus: {`^generated\.processPayout\.(bank|mobile_number)\.valid$`, `^generated\.`},
	faults.WeakSecretAccepted: {`^extensions\.webhook-endpoints\.weak-secret$`,
		`^(extensions\.webhook-endpoints\.weak-secret|negative\.(createWebhookEndpoint|rotateWebhookEndpointSecret)\.secret\.[a-z-]+|generated\.(createWebhookEndpoint|rotateWebhookEndpointSecret)\.invalid)$`}, // every check that sends a bad secret
}

// faultRuns bounds how many faulty suite runs go at once. A run mostly waits (settlement, deliveries,
// settle windows: 9 s of CPU in 45 s of wall for all of them when run two at a time), so running them
// side by side, independent of go test's -parallel (GOMAXPROCS by default), takes the self-test from
// the sum of the slowest pairs to little more than the slowest run.
const faultRuns = 10

// TestSuiteCatchesEveryFault runs the whole suite against a sandbox with one fault, for every fault:
// the rule's check fails, and no check outside the rule does.
func TestSuiteCatchesEveryFault(t *testing.T) {
	spec := firstRetryWithin(t, 1)
	checks, err := contracttests.AllFor(spec)
	require.NoError(t, err)
	all := faults.All()
	require.Len(t, faultChecks, len(all), "every fault of internal/faults, and only those, names the checks that guard its rule")

	type run struct {
		failed []string
		// why holds each failed check's first failure, for a check that failed outside the scope.
		why map[string]string
		err error
	}
	runs := make([]run, len(all))
	var wg sync.WaitGroup
	slots := make(chan struct{}, faultRuns)
	for i, fi := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			runs[i].failed, runs[i].why, runs[i].err = failedChecks(fi.Fault, spec, checks)
		}()
	}
	wg.Wait()

	for i, fi := range all {
		t.Run(string(fi.Fault), func(t *testing.T) {
			rule, ok := faultChecks[fi.Fault]
			require.True(t, ok, "fault %s has no expected check: add it to faultChecks", fi.Fault)
			caught, scope := regexp.MustCompile(rule.caught), regexp.MustCompile(rule.scope)
			require.True(t, scope.MatchString(firstMatch(checks, caught)), "the scope of %s must include its caught check", fi.Fault)
			require.NotEmpty(t, outside(checks, scope), "the scope of %s covers every check, so it could not show a second broken rule", fi.Fault)
			require.NoError(t, runs[i].err, "running the suite against a sandbox with %s", fi.Fault)
			failed := runs[i].failed
			assert.True(t, slices.ContainsFunc(failed, caught.MatchString), "fault %q (%s) was not caught by a check matching %s; failed: %s",
				fi.Fault, fi.Description, rule.caught, strings.Join(failed, ", "))
			var beyond []string
			for _, id := range failed {
				if !scope.MatchString(id) {
					beyond = append(beyond, id)
					t.Logf("%s failed outside the scope: %s", id, runs[i].why[id])
				}
			}
			assert.Empty(t, beyond, "fault %q broke more than its rule: these checks outside %s failed", fi.Fault, rule.scope)
			t.Logf("%s: %d checks failed, e.g. %s", fi.Fault, len(failed), strings.Join(first(failed, 5), ", "))
			if os.Getenv("SELFTEST_VERBOSE") != "" {
				t.Logf("all failed: %s", strings.Join(failed, " "))
			}
		})
	}
}

// firstRetryWithin returns the document with its bound on the first webhook retry set to seconds.
// The self-test's runs wait 3 s, and a missing retry is a finding only past the document's bound (60 s
// in malipo.yaml; before it, the retry checks say "not observable"): the faulty sandboxes are held
// to a 1 s bound, which their 20 ms schedule keeps, so that no-webhook-retry is caught inside the wait.
func firstRetryWithin(t *testing.T, seconds int) *openapi.Spec {
	t.Helper()
	return openapitest.Variant(t, func(d *docedit.Doc) error {
		return d.Set("/tags/6/"+openapi.FirstRetryExtension, strconv.Itoa(seconds))
	})
}

// failedChecks runs the suite from spec against an embedded sandbox with fault and returns the failed
// checks.
func failedChecks(fault faults.Fault, spec *openapi.Spec, checks []*contracttests.Check) (failed []string, why map[string]string, err error) {
	faulty, err := faults.Options(fault)
	if err != nil {
		return nil, nil, err
	}
	// Ten faulty runs side by side keep both cores busy, and a delivery attempt can then outlast the
	// embedded 300 ms time-out for no fault of the sandbox's; with the no-webhook-retry fault such an
	// attempt is never retried, and a state check outside that fault's rule would fail. A 1 s time-out
	// (and a receiver stall past it, whose retry still lands well inside the 3 s wait below) keeps every
	// verdict about the fault alone. All three are raceSlowdown times longer under the race detector.
	faulty = append(faulty, sandbox.WithWebhookTimeout(raceSlowdown*time.Second), sandbox.WithHTTPClient(loopbackOnlyClient()))
	cfg, stop, err := contracttests.StartEmbeddedWith(faulty...)
	if err != nil {
		return nil, nil, err
	}
	cfg.WebhookStall = raceSlowdown * 1500 * time.Millisecond
	defer func() { err = errors.Join(err, stop()) }()
	// The embedded timings are milliseconds: a check still waiting after 3 s has caught the fault.
	cfg.EventuallyTimeout = raceSlowdown * 3 * time.Second
	cfg.Spec = spec
	if !slices.Contains(inputFaults, fault) {
		// The generated checks cost most of a run's CPU (a body's create, read-backs and events, each
		// validated), and 33 of these runs are about other rules: there they only have to stay inside
		// the fault's scope, which their boundary cases show. The input faults, which only they catch,
		// get the default budget, the one a user's run has.
		cfg.Generated = scopeRunsGenerated
	}
	sum, err := contracttests.Run(context.Background(), cfg, checks)
	if err != nil {
		return nil, nil, err
	}
	why = map[string]string{}
	for _, r := range sum.Results {
		if r.Outcome == report.Failed {
			failed = append(failed, r.ID)
			if len(r.Failures) > 0 {
				why[r.ID] = r.Failures[0].Message
			}
		}
	}
	return failed, why, nil
}

// loopbackOnlyClient is the faulty sandboxes' webhook client: it delivers to loopback addresses only
// and refuses any other host at once, without a DNS lookup. A fault that lets unusable webhook URLs
// in (accept-invalid-input) has the sandbox deliver to hosts such as merchant.example.org; tests talk
// only to loopback, and a lookup that hangs until the delivery time-out would hold a delivery slot per
// attempt, delaying the deliveries of unrelated checks past their wait (seen: state checks failing
// "no delivery" under that fault alone).
func loopbackOnlyClient() *http.Client {
	dialer := &net.Dialer{}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("the self-test delivers to loopback only, not to %s", host)
		}
		return dialer.DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func firstMatch(checks []*contracttests.Check, re *regexp.Regexp) string {
	for _, c := range checks {
		if re.MatchString(c.ID) {
			return c.ID
		}
	}
	return ""
}

func outside(checks []*contracttests.Check, re *regexp.Regexp) []string {
	var out []string
	for _, c := range checks {
		if !re.MatchString(c.ID) {
			out = append(out, c.ID)
		}
	}
	return out
}

func first(s []string, n int) []string {
	if len(s) < n {
		return s
	}
	return s[:n]
}

// scopeRunsGenerated is the generated checks' budget in the self-test's runs of the faults they do not
// guard.
const scopeRunsGenerated = 8

// inputFaults are the faults of internal/faults that only generated inputs reveal: a narration in
// another script, a large amount, a long text, cents, a pattern-valid character, one event type's
// payload.
var inputFaults = []faults.Fault{faults.NonASCIICrash, faults.LargeAmountRefused, faults.LongTextTruncated,
	faults.CentsRounded, faults.PatternCharRefused, faults.WebhookFieldLostForOneStatus}

// The example-only suite catches none of the input faults: their scope in faultChecks holds no check
// but the generated ones, and TestSuiteCatchesEveryFault fails when a check outside a fault's scope
// fails; while the generated check named there must fail.
func TestOnlyGeneratedChecksMayFailTheInputFaults(t *testing.T) {
	checks, err := contracttests.All()
	require.NoError(t, err)
	for _, f := range inputFaults {
		rule, ok := faultChecks[f]
		require.True(t, ok, "%s has no entry in faultChecks", f)
		scope := regexp.MustCompile(rule.scope)
		for _, c := range checks {
			if !strings.HasPrefix(c.ID, "generated.") {
				assert.False(t, scope.MatchString(c.ID), "the scope of %s admits %s, a check that sends the document's examples", f, c.ID)
			}
		}
		assert.True(t, strings.HasPrefix(firstMatch(checks, regexp.MustCompile(rule.caught)), "generated."), "%s must be caught by a generated check", f)
	}
}
