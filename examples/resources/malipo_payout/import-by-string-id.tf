# Import one payout by payout id (Terraform 1.5 or later, OpenTofu 1.5 or later), next to its resource
# block (resource.tf). Its idempotency key cannot be read back: a configured idempotency_key is only
# recorded, and no new payout is sent. Every other input, reference included, is read back, so the
# configuration must match the payout or the plan shows a replacement (a NEW payout).
import {
  to = malipo_payout.supplier_invoice_88
  id = "po_5d1e7b3c2a9f8e40"
}
