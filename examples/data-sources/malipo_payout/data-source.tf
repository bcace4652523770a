# Any payout of the merchant, also one made outside Terraform.
data "malipo_payout" "invoice_88" {
  payout_id = "po_5d1e7b3c2a9f8e40"
}

output "invoice_88_status" {
  value = data.malipo_payout.invoice_88.status
}
