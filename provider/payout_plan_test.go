package provider

import (
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
