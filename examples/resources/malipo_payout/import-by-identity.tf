# Import one payout by its resource identity (Terraform 1.12 or later; OpenTofu has no import by
# identity yet): the identity names the payout by payout_id.
import {
  to       = malipo_payout.supplier_invoice_88
  identity = { payout_id = "po_5d1e7b3c2a9f8e40" }
}
