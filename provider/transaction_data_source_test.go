package provider

import (
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

// malipo_transaction reports a payout's final status by payout id and a payment's by merchant
// reference.
func TestAccTransactionDataSource(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	payment, err := sb.client(t).InitializePayment(t.Context(), client.PaymentInitRequest{Currency: "ZMW", Country: "ZM",
		Narration: "Order 1042", Amount: 150.5, Reference: "order-1042", WebhookURL: "http://127.0.0.1:9/hooks"})
	require.NoError(t, err)

	config := sb.providerConfig() + `
resource "malipo_payout" "test" {
  amount                = 700
  country_id            = "ctry_zm"
  transfer_to           = "bank"
  bank_id               = "bank_zm_zanaco"
  account_number        = "` + tv.bankFailed.AccountNumber + `"
  wait_for_final_status = false
}

data "malipo_transaction" "payout" {
  reference = malipo_payout.test.payout_id
}

data "malipo_transaction" "payment" {
  reference = "order-1042"
}`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      sb.providerConfig() + `data "malipo_transaction" "x" { reference = "-bad" }`,
				ExpectError: regexp.MustCompile(`Attribute reference must start with a letter or digit`),
			},
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.malipo_transaction.payout", tfjsonpath.New("type"), knownvalue.StringExact("payout")),
					statecheck.ExpectKnownValue("data.malipo_transaction.payout", tfjsonpath.New("amount"), knownvalue.Float64Exact(700)),
					statecheck.ExpectKnownValue("data.malipo_transaction.payout", tfjsonpath.New("currency"), knownvalue.StringExact("ZMW")),
					statecheck.CompareValuePairs("data.malipo_transaction.payout", tfjsonpath.New("id"),
						payoutAddr, tfjsonpath.New("payout_id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue("data.malipo_transaction.payment", tfjsonpath.New("type"), knownvalue.StringExact("payment")),
					statecheck.ExpectKnownValue("data.malipo_transaction.payment", tfjsonpath.New("id"), knownvalue.StringExact(payment.PaymentReference)),
					statecheck.ExpectKnownValue("data.malipo_transaction.payment", tfjsonpath.New("merchant_reference"), knownvalue.StringExact("order-1042")),
					statecheck.ExpectKnownValue("data.malipo_transaction.payment", tfjsonpath.New("status"), knownvalue.StringExact("pending")),
					statecheck.ExpectKnownValue("data.malipo_transaction.payment", tfjsonpath.New("final"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("data.malipo_transaction.payment", tfjsonpath.New("amount"), knownvalue.Float64Exact(150.5)),
					statecheck.ExpectKnownValue("data.malipo_transaction.payment", tfjsonpath.New("failure_reason"), knownvalue.Null()),
				},
			},
			{
				// Once the payout has settled, a refresh of the data source shows its final status.
				PreConfig: func() { waitForPayouts(t, sb) },
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.malipo_transaction.payout", tfjsonpath.New("status"), knownvalue.StringExact("failed")),
					statecheck.ExpectKnownValue("data.malipo_transaction.payout", tfjsonpath.New("final"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("data.malipo_transaction.payout", tfjsonpath.New("failure_reason"), knownvalue.StringExact(tv.bankFailed.FailureReason)),
				},
			},
		},
	})
}
