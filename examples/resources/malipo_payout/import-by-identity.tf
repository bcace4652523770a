# Import one payout by its resource identity (Terraform 1.12 or later, OpenTofu 1.12 or later): the
# identity names the payout by payout_id, as the import by string id does.
import {
  to       = malipo_payout.supplier_invoice_88
  identity = { payout_id = "po_5d1e7b3c2a9f8e40" }
}
