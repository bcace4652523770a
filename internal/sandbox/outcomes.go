package sandbox

import (
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// outcome is how the simulated network ends a payment or payout. Payments and payouts share their
// final statuses (success, failed), so one type serves both; the test below holds them equal.
type outcome struct {
	status        api.PaymentStatus // a final one: success or failed
	failureReason api.FailureReason
}

var succeeded = outcome{status: api.PaymentStatusSuccess}

// outcomes indexes the contract's x-malipo-test-values. The sandbox never hard-codes a number: every
// outcome comes from the document, and any value the document does not list succeeds.
type outcomes struct {
	payments map[string]outcome // by customer phone_number
	mobile   map[string]outcome // by momo_phone_number
	bank     map[string]outcome // by account_number
}

func newOutcomes(tv openapi.TestValues) outcomes {
	o := outcomes{payments: map[string]outcome{}, mobile: map[string]outcome{}, bank: map[string]outcome{}}
	for _, v := range tv.Payments {
		o.payments[v.PhoneNumber] = outcome{api.PaymentStatus(v.Status), api.FailureReason(v.FailureReason)}
	}
	for _, v := range tv.Payouts.MobileNumber {
		o.mobile[v.MomoPhoneNumber] = outcome{api.PaymentStatus(v.Status), api.FailureReason(v.FailureReason)}
	}
	for _, v := range tv.Payouts.Bank {
		o.bank[v.AccountNumber] = outcome{api.PaymentStatus(v.Status), api.FailureReason(v.FailureReason)}
	}
	return o
}

func (o outcomes) payment(phone string) outcome { return lookupOutcome(o.payments, phone) }

// payout picks a payout's outcome by its destination; a mobile payout without a number (the
// merchant's own wallet) succeeds, as the test values' description says.
func (o outcomes) payout(p *Payout) outcome {
	switch {
	case p.TransferTo == api.TransferToBank:
		return lookupOutcome(o.bank, deref(p.AccountNumber))
	case p.MomoPhoneNumber != "":
		return lookupOutcome(o.mobile, p.MomoPhoneNumber)
	default:
		return succeeded
	}
}

func lookupOutcome(m map[string]outcome, key string) outcome {
	if out, ok := m[key]; ok && out.status.Final() {
		return out
	}
	return succeeded
}
