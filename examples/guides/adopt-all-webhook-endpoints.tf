# Adopt every webhook endpoint that exists, in one plan and apply (Terraform 1.7 or later, OpenTofu 1.7
# or later: import blocks with for_each). Each endpoint becomes malipo_webhook_endpoint.adopted["<its id>"].
data "malipo_webhook_endpoints" "all" {}

locals {
  existing_endpoints = { for e in data.malipo_webhook_endpoints.all.endpoints : e.id => e }
}

import {
  for_each = local.existing_endpoints
  to       = malipo_webhook_endpoint.adopted[each.key]
  id       = each.value.id
}

# The settings are the endpoints' own, so the import changes nothing. An imported endpoint's secret is
# unknown to Terraform (secret is null): add secret_rotation to rotate it on the next apply.
resource "malipo_webhook_endpoint" "adopted" {
  for_each = local.existing_endpoints

  url         = each.value.url
  events      = each.value.events
  description = each.value.description
  enabled     = each.value.enabled
}
