# After a leak: rotate the endpoint's secret now, to a new secret of your own, and end the leaked one at
# once (Terraform 1.14 or later):
#   terraform apply -invoke=action.malipo_webhook_endpoint_rotate_secret.leak -var new_payouts_secret=...
# then put the new secret in secret_wo with a new secret_wo_version, so that the endpoint's resource
# block describes it again.
variable "new_payouts_secret" {
  type      = string
  ephemeral = true
  sensitive = true
}

action "malipo_webhook_endpoint_rotate_secret" "leak" {
  config {
    endpoint_id          = malipo_webhook_endpoint.payouts.id
    secret_wo            = var.new_payouts_secret
    grace_period_seconds = 0
  }
}
