# The Malipo Terraform walkthrough: reference data, a webhook endpoint and three payouts against a
# local `malipo sandbox`. Run it with `make walkthrough` (see README.md), or by hand with the steps
# in this directory's README.md.
#
# The provider reads its settings from the environment: MALIPO_BASE_URL, MALIPO_PUBLIC_KEY and
# MALIPO_SECRET_KEY (the sandbox's keys are printed when it starts).

terraform {
  required_providers {
    malipo = {
      source = "malipo/malipo"
    }
  }
}

provider "malipo" {
  retry {
    attempts     = 3
    min_delay_ms = 100
    max_delay_ms = 2000
  }
}

variable "webhook_url" {
  description = "Where the webhook endpoint sends payout events. Nothing listens here by default, so the sandbox logs failed deliveries and retries them."
  type        = string
  default     = "http://127.0.0.1:9/malipo-hooks"
}

# 1. Reference data: the country and bank ids payouts take.
data "malipo_countries" "all" {}

locals {
  zambia = one([for c in data.malipo_countries.all.countries : c if c.country_code == "ZM"])
}

data "malipo_banks" "zambia" {
  country = local.zambia.country_code
}

# 2. A webhook endpoint for payout events, signed with its own secret.
resource "malipo_webhook_endpoint" "payouts" {
  url         = var.webhook_url
  events      = ["payout.success", "payout.failed"]
  description = "Walkthrough: payout notifications"
}

# 3. Payouts. The sandbox's test values decide the outcome: account 0000000001 and wallet
#    260960000001 succeed (see `malipo sandbox` start-up banner for the failing ones).
resource "malipo_payout" "supplier" {
  amount          = 2500
  country_id      = local.zambia.id
  transfer_to     = "bank"
  bank_id         = one([for b in data.malipo_banks.zambia.banks : b.id if b.name == "Zambia National Commercial Bank"])
  account_number  = "0000000001"
  narration       = "Supplier invoice 88"
  idempotency_key = "walkthrough-supplier-invoice-88"

  # The endpoint exists before money moves, so its first events are delivered.
  depends_on = [malipo_webhook_endpoint.payouts]
}

resource "malipo_payout" "agent" {
  amount            = 120
  country_id        = local.zambia.id
  transfer_to       = "mobile_number"
  momo_phone_number = "260960000001"
  narration         = "Agent commission"

  depends_on = [malipo_webhook_endpoint.payouts]
}

resource "malipo_payout" "own_wallet" {
  amount                = 75
  country_id            = local.zambia.id
  transfer_to           = "mobile_number"
  wait_for_final_status = false # refresh updates the status later

  depends_on = [malipo_webhook_endpoint.payouts]
}

# 4. Status checks through data sources.
data "malipo_payout" "supplier" {
  payout_id = malipo_payout.supplier.payout_id
}

data "malipo_transaction" "agent" {
  reference = malipo_payout.agent.payout_id
}

output "zambia" {
  value = local.zambia
}

output "zambian_bank_ids" {
  value = { for b in data.malipo_banks.zambia.banks : b.name => b.id }
}

output "payouts" {
  value = {
    for name, p in {
      supplier   = malipo_payout.supplier
      agent      = malipo_payout.agent
      own_wallet = malipo_payout.own_wallet
    } : name => { payout_id = p.payout_id, status = p.status, amount = p.amount }
  }
}

output "supplier_currency" {
  value = data.malipo_payout.supplier.currency
}

output "agent_transaction_status" {
  value = data.malipo_transaction.agent.status
}

output "webhook_endpoint_id" {
  value = malipo_webhook_endpoint.payouts.id
}

output "webhook_secret" {
  value     = malipo_webhook_endpoint.payouts.secret
  sensitive = true
}
