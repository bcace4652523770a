# A signing secret of your own, write-only (Terraform 1.11 or later, OpenTofu 1.11 or later): the provider sends it to the API
# and Terraform stores it nowhere, in no plan and no state. Make one with
#   echo "whsec_$(openssl rand -base64 32)"
# keep it in your secret manager, and pass it through an ephemeral variable (TF_VAR_payouts_webhook_secret,
# or -var on both plan and apply) or through an ephemeral resource that reads the secret manager.
variable "payouts_webhook_secret" {
  type      = string
  ephemeral = true
  sensitive = true
}

resource "malipo_webhook_endpoint" "payouts" {
  url         = "https://merchant.example.org/hooks/payouts"
  events      = ["payout.success", "payout.failed"]
  description = "Finance team payout notifications"

  secret_wo = var.payouts_webhook_secret
  # Terraform cannot see a change of secret_wo: change this number with it, and the new secret is sent
  # (the old one keeps verifying deliveries for secret_grace_period_seconds: 1 hour here; 0 after a leak).
  secret_wo_version           = 1
  secret_grace_period_seconds = 3600
}

# Or a secret the API generates, which the provider keeps in state as the sensitive `secret`.
resource "malipo_webhook_endpoint" "ledger" {
  url    = "https://merchant.example.org/hooks/ledger"
  events = ["payout.success"]

  # false pauses deliveries without losing the endpoint; true (the default) delivers.
  enabled = true

  # Any change of this value rotates the signing secret in place, e.g. monthly:
  # secret_rotation = time_rotating.monthly.id
  secret_rotation = "2026-11"
}

# The generated secret verifies deliveries (Standard Webhooks). Hand it to the receiver, e.g. through
# a secret store; it is sensitive and never shown in plans.
output "ledger_webhook_secret" {
  value     = malipo_webhook_endpoint.ledger.secret
  sensitive = true
}
