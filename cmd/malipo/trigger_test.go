package main

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// planTrigger chooses, for every event type, the first test value of the document whose outcome
// produces it (a payment for payment events, a mobile then a bank payout for payout events), and for
// a failed one with --reason, the first with that failure_reason.
func TestPlanTriggerChoosesByOutcome(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	tv, err := spec.TestValues()
	require.NoError(t, err)
	payouts := []openapi.TestValueKind{openapi.TestValueMobilePayouts, openapi.TestValueBankPayouts}

	for _, et := range api.EventTypeValues() {
		plan, err := planTrigger(tv, et, "")
		require.NoError(t, err, et)
		switch et {
		case api.EventTypePaymentProcessing, api.EventTypePaymentSuccess:
			want, _ := tv.Find(string(api.PaymentStatusSuccess), "", openapi.TestValuePayments)
			assert.Equal(t, triggerPlan{payment: true, phone: want.Input, outcome: "success", descriptor: "payment from customer " + want.Input,
				expect: []api.EventType{api.EventTypePaymentProcessing, api.EventTypePaymentSuccess}}, plan, et)
		case api.EventTypePaymentFailed:
			want, _ := tv.Find(string(api.PaymentStatusFailed), "", openapi.TestValuePayments)
			assert.Equal(t, want.Input, plan.phone, et)
			assert.Equal(t, []api.EventType{api.EventTypePaymentProcessing, api.EventTypePaymentFailed}, plan.expect)
			assert.Equal(t, "failed ("+want.FailureReason+")", plan.outcome)
		case api.EventTypePayoutSuccess, api.EventTypePayoutFailed:
			want, ok := tv.Find(string(et)[len("payout."):], "", payouts...)
			require.True(t, ok, et)
			assert.False(t, plan.payment)
			assert.Equal(t, []api.EventType{et}, plan.expect)
			if want.Kind == openapi.TestValueMobilePayouts {
				assert.Equal(t, want.Input, plan.phone, et)
				assert.Empty(t, plan.account, et)
			} else {
				assert.Equal(t, want.Input, plan.account, et)
			}
		default:
			// An event type no test value produces is an error that names it (the document has none yet).
		}
	}

	for _, r := range api.FailureReasonValues() {
		for _, et := range []api.EventType{api.EventTypePaymentFailed, api.EventTypePayoutFailed} {
			kinds := payouts
			if et == api.EventTypePaymentFailed {
				kinds = []openapi.TestValueKind{openapi.TestValuePayments}
			}
			var want *openapi.TestValue // the first with that reason, mobile payouts before bank ones
			for _, v := range tv.Entries(kinds...) {
				if v.Status == "failed" && v.FailureReason == string(r) {
					want = &v
					break
				}
			}
			plan, err := planTrigger(tv, et, string(r))
			if want == nil {
				assert.ErrorContains(t, err, "use one of: ", "%s --reason %s", et, r)
				continue
			}
			require.NoError(t, err, "%s --reason %s", et, r)
			assert.Equal(t, "failed ("+want.FailureReason+")", plan.outcome)
			input := plan.phone
			if want.Kind == openapi.TestValueBankPayouts {
				input = plan.account
			}
			assert.Equal(t, want.Input, input, "%s --reason %s", et, r)
			assert.Contains(t, plan.descriptor, want.Input)
		}
	}
}

// Without a test value that pays out successfully, payout.success pays out to the merchant's own
// wallet, which the document says succeeds.
func TestPlanTriggerPaysTheOwnWalletWhenNoValueSucceeds(t *testing.T) {
	plan, err := planTrigger(openapi.TestValues{}, api.EventTypePayoutSuccess, "")
	require.NoError(t, err)
	assert.Equal(t, triggerPlan{expect: []api.EventType{api.EventTypePayoutSuccess}, outcome: "success",
		descriptor: "mobile payout to the merchant's own wallet"}, plan)
}

// The errors say what to type instead: the reasons the document has for that event type, and none
// when it has none.
func TestPlanTriggerErrors(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	tv, err := spec.TestValues()
	require.NoError(t, err)

	_, err = planTrigger(tv, api.EventTypePayoutSuccess, string(api.FailureReasonValues()[0]))
	assert.EqualError(t, err, "--reason applies to payment.failed and payout.failed only")

	_, err = planTrigger(tv, api.EventTypePayoutFailed, "bad_luck")
	require.Error(t, err)
	var reasons []string
	for _, v := range tv.Entries(openapi.TestValueMobilePayouts, openapi.TestValueBankPayouts) {
		if v.Status == string(api.PayoutStatusFailed) && !slices.Contains(reasons, v.FailureReason) {
			reasons = append(reasons, v.FailureReason)
		}
	}
	require.NotEmpty(t, reasons)
	assert.Contains(t, err.Error(), "no test value of the document makes a payout.failed with reason bad_luck; use one of: "+reasons[0]+", ")
	for _, r := range reasons {
		assert.Contains(t, err.Error(), r)
	}

	_, err = planTrigger(openapi.TestValues{}, api.EventTypePaymentFailed, "bad_luck")
	assert.EqualError(t, err, "no test value of the document makes a payment.failed", "no empty list of reasons to choose from")
	_, err = planTrigger(openapi.TestValues{}, api.EventTypePaymentSuccess, "")
	assert.EqualError(t, err, "no test value of the document makes a payment.success")
}
