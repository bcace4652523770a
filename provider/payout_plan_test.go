package provider

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Mistakes caught at plan time, in plain words.

// wrapped matches msg as Terraform prints it: the CLI wraps a diagnostic's detail at its own width, so
// every run of spaces in msg may be a line break. {line} stands for a line number of the configuration
// file the test harness writes, {payout} for a payout id the sandbox makes up.
func wrapped(msg string) *regexp.Regexp {
	words := strings.Fields(msg)
	for i, w := range words {
		w = regexp.QuoteMeta(w)
		w = strings.ReplaceAll(w, regexp.QuoteMeta("{line}"), `[0-9]+`)
		words[i] = strings.ReplaceAll(w, regexp.QuoteMeta("{payout}"), `[A-Za-z0-9_]+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(words, `\s+`))
}

func TestPayoutAmountProblem(t *testing.T) {
	tests := []struct {
		value   string
		summary string
		fix     string
	}{
		{"10.5", "Payout Amount Is Not a Whole Number", "amount = 10.5, but the Malipo API takes a payout's amount as a whole number of major units of the destination country's currency (2500 pays 2,500 ZMW to Zambia): a fraction of a unit cannot be paid out. Set amount to 10 or 11."},
		{"0.25", "Payout Amount Is Not a Whole Number", "Set amount to 1."},
		{"-3.5", "Payout Amount Is Not a Whole Number", "Set amount to 1."},
		{"9007199254740990.5", "Payout Amount Is Not a Whole Number", "Set amount to 9007199254740990 or 9007199254740991."},
		{"0", "Payout Amount Too Small", "amount = 0, but a payout's amount must be at least 1"},
		{"-7", "Payout Amount Too Small", "Set amount to 1 or more."},
		{"9007199254740992", "Payout Amount Too Large", "must be at most 9007199254740991"},
		{"1", "", ""},
		{"9007199254740991", "", ""},
	}
	for _, tt := range tests {
		f, _, err := big.ParseFloat(tt.value, 10, 512, big.ToNearestEven)
		require.NoError(t, err)
		summary, detail := payoutAmountProblem(f)
		assert.Equal(t, tt.summary, summary, tt.value)
		assert.Contains(t, detail, tt.fix, tt.value)
	}
}

// amount = 10.5 fails the plan with an error that names the attribute, the value and the fix, not the
// framework's "Value %!s(*big.Float=10.5) is not an integer"; nothing is sent.
func TestAccPayoutResource_fractionalAmount(t *testing.T) {
	sb := startSandbox(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(0),
		Steps: []resource.TestStep{
			{
				Config: sb.providerConfig() + `
resource "malipo_payout" "test" {
  amount      = 10.5
  country_id  = "ctry_zm"
  transfer_to = "mobile_number"
}`,
				PlanOnly: true,
				ExpectError: wrapped(`Error: Payout Amount Is Not a Whole Number with malipo_payout.test, on terraform_plugin_test.tf line {line}, ` +
					`in resource "malipo_payout" "test": {line}: amount = 10.5 ` +
					`amount = 10.5, but the Malipo API takes a payout's amount as a whole number of major units of the destination ` +
					`country's currency (2500 pays 2,500 ZMW to Zambia): a fraction of a unit cannot be paid out. Set amount to 10 or 11.`),
			},
		},
	})
}

// Changing amount or account_number of a payout whose idempotency_key stays the same fails at plan,
// saying why and what to do, and sends nothing (the old payout stays in state, the sandbox holds only
// it). The fix the message gives, a new key, plans a replacement and applies.
func TestAccPayoutResource_replacementNeedsNewKey(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	config := func(amount int, account, key string) string {
		return sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount          = %d
  country_id      = "ctry_zm"
  transfer_to     = "bank"
  bank_id         = "bank_zm_zanaco"
  account_number  = %q
  idempotency_key = %q
}`, amount, account, key)
	}
	// The message names the payout being replaced, whose id the sandbox makes up: {payout} stands for it.
	refused := func(changed string) *regexp.Regexp {
		return wrapped(fmt.Sprintf(`Error: Replacing a Payout Needs a New Idempotency Key `+
			`with malipo_payout.test, on terraform_plugin_test.tf line {line}, in resource "malipo_payout" "test": `+
			`{line}: idempotency_key = "invoice-2026-0077" `+
			`Changing %s forces replacement of payout {payout}, which sends a new payout, but idempotency_key is still `+
			`"invoice-2026-0077", the key payout {payout} was sent with. The Malipo API keeps a key for the payout it first `+
			`sent: it would refuse a different payout under it (%s) or, for the same one, replay the old payout instead `+
			`of sending a new one, and by then the old payout would already be gone from Terraform state. Nothing has `+
			`been sent. To send a new payout, change idempotency_key (for example to "invoice-2026-0077-2") or remove it `+
			`to have one generated. To keep payout {payout}, undo the change to %s.`,
			changed, api.CodeIdempotencyKeyReused, changed))
	}
	onePayout := func() {
		require.Len(t, sb.srv.Payouts(sandbox.DefaultPublicKey), 1, "a refused plan sent nothing")
	}
	original := statecheck.CompareValue(compare.ValuesSame())
	replaced := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(2),
		Steps: []resource.TestStep{
			{
				Config: config(640, tv.bankOK.AccountNumber, "invoice-2026-0077"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
					original.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
					replaced.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
			{
				Config:      config(650, tv.bankOK.AccountNumber, "invoice-2026-0077"),
				ExpectError: refused("amount"),
			},
			{
				PreConfig:   onePayout,
				Config:      config(640, tv.bankFailed.AccountNumber, "invoice-2026-0077"),
				ExpectError: refused("account_number"),
			},
			{
				// Nothing changed: the original payout is still the one in state.
				PreConfig: onePayout,
				Config:    config(640, tv.bankOK.AccountNumber, "invoice-2026-0077"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					original.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
			{
				// The fix the message gives: a new key sends the new payout.
				PreConfig: onePayout,
				Config:    config(650, tv.bankOK.AccountNumber, "invoice-2026-0077-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(payoutAddr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("amount"), knownvalue.Int64Exact(650)),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("idempotency_key"), knownvalue.StringExact("invoice-2026-0077-2")),
					replaced.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
		},
	})
}

// A failed payout sent with an idempotency_key of the merchant's own says to apply again with a new key:
// the tainted payout is planned as a create, so the plan cannot see that the key was used, and the API
// refuses a changed payout under it. With the new key the next apply sends the payout.
func TestAccPayoutResource_failedWithOwnKeyNeedsNewKey(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	config := func(account, key string) string {
		return sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount          = 500
  country_id      = "ctry_zm"
  transfer_to     = "bank"
  bank_id         = "bank_zm_zanaco"
  account_number  = %q
  idempotency_key = %q
}`, account, key)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(2),
		Steps: []resource.TestStep{
			{
				Config: config(tv.bankFailed.AccountNumber, "invoice-2026-0099"),
				ExpectError: wrapped(`Error: Payout Failed with malipo_payout.test, on terraform_plugin_test.tf line {line}, in resource ` +
					`"malipo_payout" "test": {line}: resource "malipo_payout" "test" { Payout {payout} failed with reason ` + tv.bankFailed.FailureReason +
					`; no money moved. Fix the cause (for example the destination account or wallet, or the merchant's ` +
					`balance) and apply again with a new idempotency_key (for example "invoice-2026-0099-2"): the failed ` +
					`payout is tainted and will be replaced by a new one, but the Malipo API keeps "invoice-2026-0099" for ` +
					`the failed payout and would replay its failure, or refuse a changed payout, under it.`),
			},
			{
				// What the message warns of: the account fixed, the key kept.
				Config:      config(tv.bankOK.AccountNumber, "invoice-2026-0099"),
				ExpectError: regexp.MustCompile(`Payout Conflicts With an Earlier Request`),
			},
			{
				Config: config(tv.bankOK.AccountNumber, "invoice-2026-0099-2"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
				},
			},
		},
	})
}
