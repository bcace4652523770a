resource "malipo_webhook_endpoint" "payouts" {
  url         = "https://merchant.example.org/hooks/payouts"
  events      = ["payout.success", "payout.failed"]
  description = "Finance team payout notifications"

  # Any change of this value rotates the signing secret in place, e.g. monthly:
  # secret_rotation = time_rotating.monthly.id
  secret_rotation = "2026-11"
}

# The secret verifies deliveries (Standard Webhooks). Hand it to the receiver, e.g. through a secret
# store; it is sensitive and never shown in plans.
output "payouts_webhook_secret" {
  value     = malipo_webhook_endpoint.payouts.secret
  sensitive = true
}
