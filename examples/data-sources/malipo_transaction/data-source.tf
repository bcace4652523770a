# The status of a payment (by paymentReference or merchant reference) or a payout (by payout_id).
data "malipo_transaction" "order_1042" {
  reference = "order-1042"
}

output "order_1042_paid" {
  value = data.malipo_transaction.order_1042.status == "success"
}
