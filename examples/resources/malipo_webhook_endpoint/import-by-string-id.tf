# Import one webhook endpoint by id (Terraform 1.5 or later, OpenTofu 1.5 or later), next to its
# resource block (resource.tf). The API never returns the secret again: after the import `secret` is
# null, and the configured secret_wo_version sends secret_wo on this first apply (the plan shows it).
# To adopt every existing endpoint at once, see the guide "Adopting existing webhook endpoints".
import {
  to = malipo_webhook_endpoint.payouts
  id = "we_4c1f9a2b7d3e8f60"
}
