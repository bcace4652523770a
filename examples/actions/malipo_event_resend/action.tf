# Deliver an event again, to one endpoint, after its receiver was down longer than the retries lasted
# (Terraform 1.14 or later):
#   terraform apply -invoke=action.malipo_event_resend.missed
action "malipo_event_resend" "missed" {
  config {
    event_id    = "evt_8e2f4a6c1b3d5f70"
    endpoint_id = malipo_webhook_endpoint.payouts.id
  }
}
