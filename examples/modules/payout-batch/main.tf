# A batch of payouts: a map of payouts in, their ids and statuses out. Each payout's idempotency key and
# reference come from the batch id and its key in the map, so that an apply interrupted halfway and run
# again never pays twice, and each payout can be reconciled by its reference (data.malipo_transaction).
terraform {
  required_version = ">= 1.6" # for terraform test (1.6 or later; OpenTofu 1.6 or later too)
  required_providers {
    malipo = {
      source = "malipo/malipo"
    }
  }
}

variable "batch_id" {
  description = "Names the batch: each payout's idempotency key and reference are \"<batch_id>-<key>\". Change it to send the batch again as new payouts."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9][A-Za-z0-9_.:-]{0,40}$", var.batch_id))
    error_message = "batch_id must be 1 to 41 letters, digits and _ . : -, starting with a letter or digit: it is part of each payout's reference."
  }
}

variable "payouts" {
  description = "The payouts, by a key of your own (an invoice number, a supplier's name)."
  type = map(object({
    amount            = number
    country_id        = string
    transfer_to       = string
    bank_id           = optional(string)
    account_number    = optional(string)
    momo_phone_number = optional(string)
    narration         = optional(string)
  }))

  validation {
    condition     = alltrue([for p in values(var.payouts) : p.amount == floor(p.amount) && p.amount >= 1])
    error_message = "Every amount must be a whole number of at least 1 (major units of the country's currency)."
  }
}

variable "wait_for_final_status" {
  description = "Whether apply waits until each payout is success or failed."
  type        = bool
  default     = true
}

resource "malipo_payout" "this" {
  for_each = var.payouts

  amount            = each.value.amount
  country_id        = each.value.country_id
  transfer_to       = each.value.transfer_to
  bank_id           = each.value.bank_id
  account_number    = each.value.account_number
  momo_phone_number = each.value.momo_phone_number
  narration         = each.value.narration

  reference             = "${var.batch_id}-${each.key}"
  idempotency_key       = "${var.batch_id}-${each.key}"
  wait_for_final_status = var.wait_for_final_status
}

output "ids" {
  description = "Each payout's id, by its key."
  value       = { for k, p in malipo_payout.this : k => p.payout_id }
}

output "statuses" {
  description = "Each payout's status (processing, success or failed), by its key."
  value       = { for k, p in malipo_payout.this : k => p.status }
}

output "references" {
  description = "Each payout's reference, by its key: what data.malipo_transaction looks it up by."
  value       = { for k, p in malipo_payout.this : k => p.reference }
}
