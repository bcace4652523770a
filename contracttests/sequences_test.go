package contracttests_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
	"github.com/malipo/terraform-provider-malipo/report"
)

// TestSequencesPassForEverySeed runs the stateful sequences against the embedded sandbox under several
// seeds, each a different interleaving and different test values: the sandbox conforms whichever
// order the steps come in.
func TestSequencesPassForEverySeed(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		start := time.Now()
		results := runConfigured(t, nil, `^sequences\.`, func(cfg *contracttests.Config) { cfg.Seed = seed })
		t.Logf("seed %d: %d checks in %s", seed, len(results), time.Since(start).Round(time.Millisecond))
		assert.Len(t, results, 2)
		for id, r := range results {
			assert.Equal(t, report.Passed, r.Outcome, "seed %d: %s: %v", seed, id, outcomes(results)[id])
		}
	}
}

// linksPointer is where the document declares the links of an operation's response.
func linksPointer(op api.Operation, code string) string {
	return opPointer(op) + "/responses/" + code + "/links"
}

// TestSequencesFollowTheDocumentsLinks shows that the sequences are the document's links: without the
// link from a payment's initialization to its completion the checks cannot drive a payment and skip
// naming what is missing, and a link whose expression reads what the response does not hold is
// followed as written and fails naming the link and the expression.
func TestSequencesFollowTheDocumentsLinks(t *testing.T) {
	t.Run("a link removed", func(t *testing.T) {
		spec := openapitest.Variant(t, func(d *docedit.Doc) error {
			return d.Remove(linksPointer(api.OpInitializePayment(), "201") + "/CompletePayment")
		})
		results := runWith(t, spec, `^sequences\.`)
		require.Len(t, results, 2)
		for id, r := range results {
			assert.Equal(t, report.Skipped, r.Outcome, "%s: %v", id, outcomes(results)[id])
			assert.Contains(t, r.SkipReason, "do not reach completePayment", id)
			assert.Contains(t, r.SkipReason, "initializePayment → getTransactionStatus(via GetPaymentStatus)", id)
		}
	})
	t.Run("a link's expression changed", func(t *testing.T) {
		spec := openapitest.Variant(t, func(d *docedit.Doc) error {
			return d.Set(linksPointer(api.OpInitializePayment(), "201")+"/CompletePayment/parameters/payment_reference", "'$response.body#/data/no_such_member'")
		})
		r := runConfigured(t, spec, `^sequences\.payments-payouts$`, func(cfg *contracttests.Config) { cfg.Seed = 11 })["sequences.payments-payouts"]
		require.Equal(t, report.Failed, r.Outcome, "%v", r.Failures)
		assert.Contains(t, r.Failures[0].Message, `the link CompletePayment to completePayment cannot be followed`)
		assert.Contains(t, r.Failures[0].Message, `the response body has no value at "/data/no_such_member"`)
		assert.Contains(t, r.Failures[0].SpecLocation, "/responses/201/links/CompletePayment")
		last := r.Failures[len(r.Failures)-1].Message
		assert.Contains(t, last, `to reproduce: --seed 11 --run '^sequences\.payments-payouts$'`, "the failure names the seed")
		assert.Regexp(t, `the interleaving \(stopped at step \d+ of \d+\): 1 (payment|payout)#\d \w+, 2 `, last, "and the interleaving")
	})
}

// TestSequencesCatchBrokenRules runs the object sequences against sandboxes that break, one at a time,
// a rule the sequences check: each fails them, with the words that say which rule.
func TestSequencesCatchBrokenRules(t *testing.T) {
	// A lost acknowledgement makes the sandbox send the event again; with unstable-webhook-id the
	// repeat carries a new webhook-id, which makes it a second event for one status change.
	loseFirstAck := sandbox.WithHooks(sandbox.Hooks{Outgoing: func(o *sandbox.Outgoing) {
		if o.Number == 1 && !o.Resend {
			o.AckLost = true
		}
	}})
	for _, tc := range []struct {
		fault faults.Fault
		extra []sandbox.Option
		want  string
	}{
		{faults.FinalStateChanges, nil, "final state changed"},
		{faults.MissingWebhookEvent, nil, "pending→processing"},
		{faults.WrongFailureReason, nil, "the test value promises"},
		{faults.BadSignature, nil, "signature does not verify"},
		{faults.UnstableWebhookID, []sandbox.Option{loseFirstAck}, "one event per status change, repeated deliveries keep their webhook-id"},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel() // each waits up to the 3 s below (raceSlowdown times that under the race detector) for what never comes
			opts, err := faults.Options(tc.fault)
			require.NoError(t, err)
			r := runConfigured(t, nil, `^sequences\.payments-payouts$`, func(cfg *contracttests.Config) {
				cfg.Seed = 7
				cfg.EventuallyTimeout = raceSlowdown * 3 * time.Second
			}, append(opts, tc.extra...)...)["sequences.payments-payouts"]
			require.Equal(t, report.Failed, r.Outcome, "%s must fail the sequences", tc.fault)
			var messages []string
			for _, f := range r.Failures {
				messages = append(messages, f.Message)
			}
			assert.Contains(t, strings.Join(messages, "\n"), tc.want)
		})
	}
}
