# reconcile.tfquery.hcl: the payouts that failed since November (Terraform 1.14 or later). Each result
# is named by its reference (or payout id), amount and status; -generate-config-out writes a resource
# block with the payout's inputs and an import block by identity, so that importing sends nothing.
list "malipo_payout" "failed" {
  provider         = malipo
  include_resource = true

  config {
    status        = "failed"
    created_after = "2026-11-01T00:00:00Z"
  }
}
