# terraform test (or tofu test) against a malipo sandbox, as a user of the module would write it. The
# provider reads MALIPO_BASE_URL, MALIPO_PUBLIC_KEY and MALIPO_SECRET_KEY (the sandbox's keys are in
# its banner). The sandbox's test values decide outcomes: account 0000000001 and wallet 260960000001
# succeed. Each run destroys what it applied, but payouts cannot be reversed: the sandbox keeps them,
# so run against a fresh sandbox, or change batch_id (a reference is unique per merchant).
#
# What terraform test cannot express: a payout that fails (a failing test value) is an apply error
# naming its failure_reason, not a failed condition, so no run can expect it with expect_failures; the
# provider's acceptance tests check that case. expect_failures fits what the module itself checks.

variables {
  batch_id = "batch-2026-11"
  payouts = {
    supplier = {
      amount         = 2500
      country_id     = "ctry_zm"
      transfer_to    = "bank"
      bank_id        = "bank_zm_zanaco"
      account_number = "0000000001"
      narration      = "Supplier invoice 88"
    }
    agent = {
      amount            = 120
      country_id        = "ctry_zm"
      transfer_to       = "mobile_number"
      momo_phone_number = "260960000001"
    }
  }
}

run "a_fraction_fails_the_plan" {
  command = plan

  variables {
    payouts = {
      bad = { amount = 10.5, country_id = "ctry_zm", transfer_to = "mobile_number" }
    }
  }

  expect_failures = [var.payouts]
}

run "pays_the_batch" {
  assert {
    condition     = length(output.ids) == 2 && alltrue([for id in values(output.ids) : startswith(id, "po_")])
    error_message = "Every payout of the batch has an id."
  }

  assert {
    condition     = alltrue([for s in values(output.statuses) : s == "success"])
    error_message = "Every payout of the batch succeeded: ${jsonencode(output.statuses)}."
  }

  assert {
    condition     = output.references["supplier"] == "batch-2026-11-supplier"
    error_message = "The reference is the batch id and the key."
  }
}

# A second plan of the same batch keeps the payouts: a replacement (a new payout) would leave their
# status unknown in the plan, and an unknown condition fails the run.
run "re_apply_sends_nothing" {
  command = plan

  assert {
    condition     = alltrue([for p in malipo_payout.this : p.status == "success"])
    error_message = "A second plan of the same batch keeps the same payouts."
  }
}
