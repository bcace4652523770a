# After a leak: rotate the endpoint's secret now, to a new secret of your own, and end the leaked one at
# once (Terraform 1.14 or later). The new secret comes from the environment, never the configuration:
#   export MALIPO_NEW_WEBHOOK_SECRET="whsec_$(openssl rand -base64 32)"   # give it to the receiver too
#   terraform apply -invoke=action.malipo_webhook_endpoint_rotate_secret.leak
# then put the new secret in secret_wo with a new secret_wo_version, so that the endpoint's resource
# block describes it again.
action "malipo_webhook_endpoint_rotate_secret" "leak" {
  config {
    endpoint_id          = malipo_webhook_endpoint.payouts.id
    grace_period_seconds = 0
    # secret_env = "MALIPO_NEW_WEBHOOK_SECRET" (the default)
  }
}
