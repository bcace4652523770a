package harness

import (
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Inputs are the test values the hand-written checks send, chosen by outcome from the document's
// x-malipo-test-values, so that no check restates a number the document owns. A value the document
// does not give is empty; checks read them through CheckInputs.
type Inputs struct {
	// ApprovingPhone is a customer phone_number whose payment succeeds.
	ApprovingPhone string
	// CreditedWallet is a momo_phone_number a payout succeeds to.
	CreditedWallet string
	// FailingWallet is a momo_phone_number a payout fails to.
	FailingWallet string
	// CreditedAccount is a bank account_number a payout succeeds to.
	CreditedAccount string
}

// CheckInputs are the test values as one check reads them: each method skips the check, naming the
// kind of test value, when the document has none of that kind, since a document that does not say
// which number succeeds gives the suite nothing to expect.
type CheckInputs struct {
	t      *T
	values Inputs
}

// ApprovingPhone is a customer phone_number whose payment succeeds.
func (i CheckInputs) ApprovingPhone() string {
	return i.need(i.values.ApprovingPhone, "a payment that succeeds (payments, status success)")
}

// CreditedWallet is a momo_phone_number a payout succeeds to.
func (i CheckInputs) CreditedWallet() string {
	return i.need(i.values.CreditedWallet, "a mobile payout that succeeds (payouts.mobile_number, status success)")
}

// FailingWallet is a momo_phone_number a payout fails to.
func (i CheckInputs) FailingWallet() string {
	return i.need(i.values.FailingWallet, "a mobile payout that fails (payouts.mobile_number, status failed)")
}

// CreditedAccount is a bank account_number a payout succeeds to.
func (i CheckInputs) CreditedAccount() string {
	return i.need(i.values.CreditedAccount, "a bank payout that succeeds (payouts.bank, status success)")
}

func (i CheckInputs) need(value, what string) string {
	if value == "" {
		i.t.Skip("the document has no x-malipo-test-values entry for " + what + ", which this check needs")
	}
	return value
}

// inputsFrom picks the first test value of each kind with the outcome the checks need. A document
// without x-malipo-test-values gives none (the checks that need one skip); one whose test values do
// not decode is an error.
func inputsFrom(spec *openapi.Spec) (Inputs, error) {
	tv, err := spec.TestValuesOrNone()
	if err != nil {
		return Inputs{}, err
	}
	success, failed := string(api.PaymentStatusSuccess), string(api.PaymentStatusFailed)
	first := func(status string, kind openapi.TestValueKind) string {
		v, _ := tv.Find(status, "", kind)
		return v.Input // "" when the document has none: the check that needs it skips
	}
	return Inputs{
		ApprovingPhone:  first(success, openapi.TestValuePayments),
		CreditedWallet:  first(success, openapi.TestValueMobilePayouts),
		FailingWallet:   first(failed, openapi.TestValueMobilePayouts),
		CreditedAccount: first(success, openapi.TestValueBankPayouts),
	}, nil
}

// Inputs returns the test values the check sends (see CheckInputs).
func (t *T) Inputs() CheckInputs { return CheckInputs{t: t, values: t.suite.inputs} }
