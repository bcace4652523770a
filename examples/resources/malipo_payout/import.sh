# Import a payout by payout id. Its idempotency key cannot be read back; setting idempotency_key in
# the configuration afterwards only records it (no new payout).
terraform import malipo_payout.supplier_invoice_88 po_5d1e7b3c2a9f8e40
