package contracttests_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
)

// Each fault breaks one rule of the contract; the suite must fail on the check that guards that rule.
// A fault the suite does not catch is a blind spot of the suite.
var faultChecks = map[sandbox.Fault]string{
	sandbox.FaultDropRequiredResponseField:    `^state\.payout\.mobile\.success\.`,
	sandbox.FaultWrongSuccessStatus:           `^idempotency\.processPayout\.replay$`,
	sandbox.FaultAcceptInvalidInput:           `^negative\.processPayout\.bank\.amount\.below-minimum$`,
	sandbox.FaultAuthNotEnforced:              `^auth\.processPayout\.no-keys$`,
	sandbox.FaultSecretKeyNotChecked:          `^auth\.processPayout\.wrong-secret-key$`,
	sandbox.FaultErrorNotEnvelope:             `^negative\.unknown-path$`,
	sandbox.FaultErrorMissingFieldPointer:     `^negative\.processPayout\.bank\.bank_id\.missing$`,
	sandbox.FaultBadSignature:                 `^state\.payout\.bank\.success\.`,
	sandbox.FaultNoWebhookRetry:               `^webhooks\.retry-after-500$`,
	sandbox.FaultUnstableWebhookID:            `^webhooks\.retry-after-500$`,
	sandbox.FaultIdempotencyIgnored:           `^idempotency\.processPayout\.replay$`,
	sandbox.FaultIdempotencyConflictIgnored:   `^idempotency\.processPayout\.conflict$`,
	sandbox.FaultFinalStateChanges:            `^state\.payout\.mobile\.success\.`,
	sandbox.FaultCrossMerchantVisible:         `^auth\.isolation\.payout$`,
	sandbox.FaultMissingWebhookEvent:          `^state\.payment\.success\.`,
	sandbox.FaultWrongFailureReason:           `^state\.payout\.mobile\.account_not_found\.`,
	sandbox.FaultWebhookToDisabledEndpoint:    `^extensions\.webhook-endpoints\.delivery$`,
	sandbox.FaultNoRotationDualSignature:      `^extensions\.webhook-endpoints\.rotate-secret$`,
	sandbox.FaultLoseFirstCreateResponse:      `^idempotency\.processPayout\.replay$`,
	sandbox.FaultDuplicateReferenceAccepted:   `^idempotency\.reference\.payout-duplicate$`,
	sandbox.FaultCompleteNotPendingAccepted:   `^state\.payment\.complete-twice$`,
	sandbox.FaultUnknownReferenceDataAccepted: `^negative\.processPayout\.unknown-bank$`,
	sandbox.FaultReplayHeaderMissing:          `^idempotency\.processPayout\.replay$`,
	sandbox.FaultSecretInEndpointRead:         `^extensions\.webhook-endpoints\.crud$`,
	sandbox.FaultStaleWebhookTimestamp:        `^state\.payout\.mobile\.success\.`,
	sandbox.FaultRotationKeepsOlderSecrets:    `^extensions\.webhook-endpoints\.rotate-twice$`,
	sandbox.FaultWebhookURLNotParsed:          `^negative\.processPayout\.unusable-webhook-url$`,
}

func TestSuiteCatchesEveryFault(t *testing.T) {
	checks, err := contracttests.All()
	require.NoError(t, err)
	faults := sandbox.Faults()
	require.GreaterOrEqual(t, len(faults), 15)
	for _, fi := range faults {
		t.Run(string(fi.Fault), func(t *testing.T) {
			t.Parallel()
			pattern, ok := faultChecks[fi.Fault]
			require.True(t, ok, "fault %s has no expected check: add it to faultChecks", fi.Fault)
			want := regexp.MustCompile(pattern)
			cfg, stop, err := contracttests.StartEmbeddedWith(sandbox.WithFault(fi.Fault))
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, stop()) })
			// The embedded timings are milliseconds: a check still waiting after 3 s has caught the fault.
			cfg.EventuallyTimeout = 3 * time.Second
			sum, err := contracttests.Run(context.Background(), cfg, checks)
			require.NoError(t, err)
			var failed []string
			caught := false
			for _, r := range sum.Results {
				if r.Outcome == contracttests.Failed {
					failed = append(failed, r.ID)
					caught = caught || want.MatchString(r.ID)
				}
			}
			assert.True(t, caught, "fault %q (%s) was not caught by a check matching %s; failed: %s",
				fi.Fault, fi.Description, pattern, strings.Join(failed, ", "))
			t.Logf("%s: %d checks failed, e.g. %s", fi.Fault, len(failed), strings.Join(first(failed, 5), ", "))
			if os.Getenv("SELFTEST_VERBOSE") != "" {
				t.Logf("all failed: %s", strings.Join(failed, " "))
			}
		})
	}
}

func first(s []string, n int) []string {
	if len(s) < n {
		return s
	}
	return s[:n]
}
