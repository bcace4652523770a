package contracttests_test

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/internal/variance"
	"github.com/malipo/terraform-provider-malipo/report"
)

// The variance test is the self-test's twin: the self-test proves the suite fails an implementation
// that breaks a rule; this proves it passes every implementation that makes the choices the document
// leaves open differently from the sandbox (package internal/variance: id formats, timings, event
// order and repetition, retries, headers, JSON text, date-times, extensions present or not).

// varianceSeeds is how many seeds the test draws when MALIPO_VARY_SEEDS does not name them.
const varianceSeeds = 24

// variantRunsGenerated is the generated checks' budget against each variant.
const variantRunsGenerated = 14

// varianceRuns bounds the suite runs that go at once. Like the self-test's, a run mostly waits
// (settlement, retries, settle windows), so more runs than cores keep the total near the slowest run.
const varianceRuns = 12

// seedsToRun returns the seeds of MALIPO_VARY_SEEDS (`3,7`: to rerun the seeds a failure named), or
// 1 to varianceSeeds.
func seedsToRun(t *testing.T) (seeds []int64, chosen bool) {
	if env := strings.TrimSpace(os.Getenv("MALIPO_VARY_SEEDS")); env != "" {
		for _, s := range strings.Split(env, ",") {
			seed, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			require.NoError(t, err, "MALIPO_VARY_SEEDS=%s: give seeds as integers separated by commas, e.g. 3,7", env)
			seeds = append(seeds, seed)
		}
		return seeds, true
	}
	for seed := int64(1); seed <= varianceSeeds; seed++ {
		seeds = append(seeds, seed)
	}
	return seeds, false
}

// varianceRun is the outcome of the suite against one variant.
type varianceRun struct {
	variant variance.Variant
	failed  []report.Result
	// skipped counts the skipped checks by reason.
	skipped map[string]int
	took    time.Duration
	err     error
}

// TestSuiteAcceptsEveryAllowedVariant runs the whole suite, as `malipo conform` runs it against the
// embedded target, against a sandbox varied by each seed, and expects no check to fail: a failure is a
// check that asserts something the document does not say (or a variant that does something the
// document does not allow; the dimension's citation says which). Rerun one seed with
// MALIPO_VARY_SEEDS=SEED.
func TestSuiteAcceptsEveryAllowedVariant(t *testing.T) {
	checks, err := contracttests.All()
	require.NoError(t, err)
	seeds, chosen := seedsToRun(t)
	variants := make([]variance.Variant, len(seeds))
	for i, seed := range seeds {
		variants[i] = variance.Draw(seed)
	}
	if !chosen {
		// The seeds must show each extension both present and absent, or a check that passes only with
		// (or only without) it would go unnoticed.
		require.True(t, slices.ContainsFunc(variants, func(v variance.Variant) bool { return v.WebhookEndpoints && v.EventLog }))
		require.True(t, slices.ContainsFunc(variants, func(v variance.Variant) bool { return !v.WebhookEndpoints && !v.EventLog }))
	}

	cases := make([]varianceCase, len(variants))
	for i, v := range variants {
		cases[i] = varianceCase{variant: v}
	}
	start := time.Now()
	runs := runVariants(cases, checks)
	t.Logf("%d variants in %s (at most %d at once)", len(runs), time.Since(start).Round(time.Millisecond), varianceRuns)

	for _, run := range runs {
		t.Run(fmt.Sprintf("seed=%d", run.variant.Seed), func(t *testing.T) {
			require.NoError(t, run.err, "running the suite against %s", run.variant)
			if len(run.failed) > 0 {
				var report strings.Builder
				for _, r := range run.failed {
					fmt.Fprintf(&report, "  check %s:\n", r.ID)
					for _, f := range r.Failures {
						fmt.Fprintf(&report, "      %s", f.Message)
						if f.Exchange != "" {
							fmt.Fprintf(&report, " [%s]", f.Exchange)
						}
						report.WriteString("\n")
					}
				}
				t.Errorf("seed %d: %d checks failed against an allowed variant (the document allows what it does; a check asserts more):\n%s%s",
					run.variant.Seed, len(run.failed), report.String(), run.variant)
			}
			t.Logf("seed %d: %d checks failed, %s, in %s", run.variant.Seed, len(run.failed), skips(run.skipped), run.took.Round(time.Millisecond))
		})
	}
}

// skips says how many checks were skipped, and why.
func skips(byReason map[string]int) string {
	if len(byReason) == 0 {
		return "none skipped"
	}
	reasons := make([]string, 0, len(byReason))
	for reason, n := range byReason {
		reasons = append(reasons, fmt.Sprintf("%d: %s", n, reason))
	}
	slices.Sort(reasons)
	return "skipped " + strings.Join(reasons, "; ")
}

// varianceCase is one run of the suite: a variant, and extra options for its sandbox (a disallowed
// change, for the test that shows this test can fail).
type varianceCase struct {
	variant variance.Variant
	extra   []sandbox.Option
	// wait is the run's EventuallyTimeout; zero keeps the embedded target's.
	wait time.Duration
	// run selects checks, as --run does; nil runs them all.
	run *regexp.Regexp
}

// runVariants runs the suite against each case, varianceRuns at a time, the slowest settlement first:
// a run's length follows its delays (the suite's settle windows are multiples of the slowest outcome),
// so the longest runs overlap the others instead of starting last.
func runVariants(cases []varianceCase, checks []*contracttests.Check) []varianceRun {
	runs := make([]varianceRun, len(cases))
	slowest := func(c varianceCase) time.Duration { return c.variant.Slowest() }
	order := make([]int, len(cases))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(slowest(cases[b]) - slowest(cases[a])) })
	var wg sync.WaitGroup
	slots := make(chan struct{}, varianceRuns)
	for _, i := range order {
		c := cases[i]
		slots <- struct{}{} // started in order: the goroutines would race for the slots
		wg.Go(func() {
			defer func() { <-slots }()
			start := time.Now()
			runs[i] = runVariant(c, checks)
			runs[i].took = time.Since(start)
		})
	}
	wg.Wait()
	return runs
}

// slowTargetWait is the --wait a run against a target whose slowest settlement is slowest needs for
// settle windows of their full length (contracttests' settleFactor times the slowest outcome): what
// docs/conform.md ("Waiting, slow targets and rate limits") tells users of slow targets to pass.
func slowTargetWait(slowest time.Duration) time.Duration { return 3*slowest + 5*time.Second }

// runVariant runs the suite against one variant sandbox.
func runVariant(c varianceCase, checks []*contracttests.Check) (run varianceRun) {
	run.variant = c.variant
	opts := append(c.variant.Options(), c.extra...)
	// As in the self-test, runs side by side keep both cores busy, so an attempt can outlast the
	// embedded 300 ms time-out through no choice of the variant's; 1 s (and a receiver stall past it)
	// keeps every verdict about the variant; raceSlowdown times longer under the race detector.
	opts = append(opts, sandbox.WithWebhookTimeout(raceSlowdown*time.Second), sandbox.WithHTTPClient(loopbackOnlyClient()))
	cfg, stop, err := contracttests.StartEmbeddedWith(opts...)
	if err != nil {
		run.err = err
		return run
	}
	defer func() { run.err = errors.Join(run.err, stop()) }()
	cfg.WebhookStall = raceSlowdown * 1500 * time.Millisecond
	// Each variant's run draws a new seed; its generated checks send their boundary cases (a dozen
	// bodies hold every case of the largest body) rather than the default budget's random tail, which
	// would double the test's CPU across the 24 variants for draws the boundaries already span.
	cfg.Generated = variantRunsGenerated
	// A slow variant settles in tens of seconds; the run waits as a user would tell it to (--wait):
	// three times the slowest settlement, so that the settle windows are as long as the fast runs'.
	cfg.EventuallyTimeout = max(cfg.EventuallyTimeout, slowTargetWait(c.variant.Slowest()))
	if c.wait > 0 {
		cfg.EventuallyTimeout = c.wait
	}
	cfg.Run = c.run
	sum, err := contracttests.Run(context.Background(), cfg, checks)
	if err != nil {
		run.err = err
		return run
	}
	for _, r := range sum.Results {
		switch r.Outcome {
		case report.Failed:
			run.failed = append(run.failed, r)
		case report.Skipped:
			if run.skipped == nil {
				run.skipped = map[string]int{}
			}
			run.skipped[r.SkipReason]++
		}
	}
	return run
}

// TestVarianceTestCanFail shows that the harness above notices a variant the document does not allow:
// ids outside ObjectId's pattern, and a missing event (a payment's payment.processing never sent),
// each on top of an allowed variant. Were the suite blind to variants, or the harness to failures,
// these would pass too.
func TestVarianceTestCanFail(t *testing.T) {
	checks, err := contracttests.All()
	require.NoError(t, err)
	base := variance.Draw(1)
	// Quick settlement and no rate limit, so that a check still waiting after 2 s has caught the change.
	base.Timings = sandbox.Timings{PromptDelay: 50 * time.Millisecond, PayoutDelay: 50 * time.Millisecond}
	base.RateLimitEvery = 0
	outside := base
	outside.IDs.Payout = variance.IDOutsidePattern
	missing, err := faults.Options(faults.MissingWebhookEvent)
	require.NoError(t, err)
	// The state checks are where both must show: each drives payouts or payments to their end and reads
	// every delivery.
	state := regexp.MustCompile(`^state\.`)
	runs := runVariants([]varianceCase{{variant: outside, wait: 2 * time.Second, run: state}, {variant: base, extra: missing, wait: 2 * time.Second, run: state}}, checks)
	for i, want := range []*regexp.Regexp{regexp.MustCompile(`^state\.payout\.`), regexp.MustCompile(`^state\.payment\.`)} {
		require.NoError(t, runs[i].err)
		var failed []string
		for _, r := range runs[i].failed {
			failed = append(failed, r.ID)
		}
		assert.True(t, slices.ContainsFunc(failed, want.MatchString), "a disallowed variant (%d) went unnoticed: no check matching %s failed; failed: %v", i, want, failed)
		t.Logf("disallowed variant %d: %d checks failed, e.g. %s", i, len(failed), strings.Join(failed[:min(5, len(failed))], ", "))
	}
}
