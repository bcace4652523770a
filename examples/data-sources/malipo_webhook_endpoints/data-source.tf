# Every endpoint of the merchant, oldest first.
data "malipo_webhook_endpoints" "all" {}

# The endpoints of one receiving service that get payout failures and are not paused.
data "malipo_webhook_endpoints" "payout_failures" {
  url_prefix = "https://payments.example.org/"
  event      = "payout.failed"
  enabled    = true
}

output "paused_endpoint_urls" {
  value = [for e in data.malipo_webhook_endpoints.all.endpoints : e.url if !e.enabled]
}

output "payout_failure_endpoint_ids" {
  value = data.malipo_webhook_endpoints.payout_failures.endpoints[*].id
}
