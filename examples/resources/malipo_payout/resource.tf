# A bank payout. Every attribute forces replacement: a changed payout is a NEW payout.
resource "malipo_payout" "supplier_invoice_88" {
  amount         = 2500
  country_id     = "ctry_zm"
  transfer_to    = "bank"
  bank_id        = "bank_zm_zanaco"
  account_number = "0000000001"
  narration      = "Supplier invoice 88"

  # Your own reference, unique among the merchant's payouts: reconcile with it (data.malipo_transaction
  # finds the payout by it) and import reads it back.
  reference = "inv-88"

  # This payout's own status changes go here too, signed with the merchant's secret key.
  webhook_url = "https://merchant.example.org/hooks/payouts"

  # Your own key makes even a re-run after an interrupted apply safe: the service replays the first
  # payout instead of paying twice. Leave it out and the provider generates one. A key belongs to one
  # payout: change it together with any other attribute, or the plan fails.
  idempotency_key = "supplier-invoice-88"

  timeouts = {
    create = "5m" # how long apply waits for `success` or `failed`
  }
}

# A mobile-money payout to a wallet.
resource "malipo_payout" "agent_commission" {
  amount            = 120
  country_id        = "ctry_zm"
  transfer_to       = "mobile_number"
  momo_phone_number = "260960000001"
}

# A payout to the merchant's own wallet: leave momo_phone_number out. Do not wait for the final
# status; refresh updates it.
resource "malipo_payout" "float_top_up" {
  amount                = 75
  country_id            = "ctry_zm"
  transfer_to           = "mobile_number"
  wait_for_final_status = false
}
