package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// malipo_payout (data) reads a payout made outside Terraform, and one made by the resource; an unknown
// id is an error that says so.
func TestAccPayoutDataSource(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	outside, err := sb.client(t).ProcessPayout(t.Context(), client.BankPayout{Amount: 4200, CountryID: "ctry_zm",
		BankID: "bank_zm_zanaco", AccountNumber: tv.bankOK.AccountNumber, Narration: "Made outside Terraform"})
	require.NoError(t, err)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      sb.providerConfig() + `data "malipo_payout" "x" { payout_id = "po_does_not_exist" }`,
				ExpectError: regexp.MustCompile(`(?s)Unable to Read Payout.*No\s+payout\s+of\s+this\s+merchant\s+has\s+this\s+id`),
			},
			{
				Config: sb.providerConfig() + fmt.Sprintf(`
data "malipo_payout" "outside" {
  payout_id = %q
}

resource "malipo_payout" "test" {
  amount            = 90
  country_id        = "ctry_zm"
  transfer_to       = "mobile_number"
  momo_phone_number = %q
}

data "malipo_payout" "managed" {
  payout_id = malipo_payout.test.payout_id
}`, outside.PayoutID, tv.mobileOK.MomoPhoneNumber),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.malipo_payout.outside", tfjsonpath.New("amount"), knownvalue.Int64Exact(4200)),
					statecheck.ExpectKnownValue("data.malipo_payout.outside", tfjsonpath.New("currency"), knownvalue.StringExact("ZMW")),
					statecheck.ExpectKnownValue("data.malipo_payout.outside", tfjsonpath.New("transfer_to"), knownvalue.StringExact("bank")),
					statecheck.ExpectKnownValue("data.malipo_payout.outside", tfjsonpath.New("bank_id"), knownvalue.StringExact("bank_zm_zanaco")),
					statecheck.ExpectKnownValue("data.malipo_payout.outside", tfjsonpath.New("narration"), knownvalue.StringExact("Made outside Terraform")),
					statecheck.ExpectKnownValue("data.malipo_payout.outside", tfjsonpath.New("momo_phone_number"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.malipo_payout.outside", tfjsonpath.New("updated_at"), knownvalue.StringRegexp(timestampPattern)),
					statecheck.ExpectKnownValue("data.malipo_payout.managed", tfjsonpath.New("status"), knownvalue.StringExact("success")),
					statecheck.CompareValuePairs("data.malipo_payout.managed", tfjsonpath.New("payout_id"),
						payoutAddr, tfjsonpath.New("payout_id"), compare.ValuesSame()),
					statecheck.CompareValuePairs("data.malipo_payout.managed", tfjsonpath.New("amount"),
						payoutAddr, tfjsonpath.New("amount"), compare.ValuesSame()),
					statecheck.CompareValuePairs("data.malipo_payout.managed", tfjsonpath.New("momo_phone_number"),
						payoutAddr, tfjsonpath.New("momo_phone_number"), compare.ValuesSame()),
				},
			},
		},
	})
}
