# A signing secret made by Terraform and stored nowhere Terraform keeps things (Terraform 1.11 or
# later). It is made anew at every plan and apply: secret_wo_version says when the endpoint gets a new
# one, so bump it to rotate. To give the same secret to the receiver, write it into a secret manager
# in the same apply, through that provider's write-only argument.
ephemeral "malipo_webhook_secret" "payouts" {
  bytes = 32 # 24 to 64
}

resource "malipo_webhook_endpoint" "payouts" {
  url               = "https://example.com/webhooks/malipo"
  events            = ["payout.success", "payout.failed"]
  secret_wo         = ephemeral.malipo_webhook_secret.payouts.result
  secret_wo_version = 1
}
