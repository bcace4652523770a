package contracttests

import (
	"fmt"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Inputs are the test values the hand-written checks send, chosen by outcome from the document's
// x-malipo-test-values, so that no check restates a number the document owns.
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

// inputsFrom picks the first test value of each kind with the outcome the checks need.
func inputsFrom(spec *openapi.Spec) (Inputs, error) {
	tv, err := spec.TestValues()
	if err != nil {
		return Inputs{}, err
	}
	var in Inputs
	success, failed := string(api.PaymentStatusSuccess), string(api.PaymentStatusFailed)
	for _, v := range tv.Payments {
		if v.Status == success && in.ApprovingPhone == "" {
			in.ApprovingPhone = v.PhoneNumber
		}
	}
	for _, v := range tv.Payouts.MobileNumber {
		switch {
		case v.Status == success && in.CreditedWallet == "":
			in.CreditedWallet = v.MomoPhoneNumber
		case v.Status == failed && in.FailingWallet == "":
			in.FailingWallet = v.MomoPhoneNumber
		}
	}
	for _, v := range tv.Payouts.Bank {
		if v.Status == success && in.CreditedAccount == "" {
			in.CreditedAccount = v.AccountNumber
		}
	}
	if in.ApprovingPhone == "" || in.CreditedWallet == "" || in.FailingWallet == "" || in.CreditedAccount == "" {
		return in, fmt.Errorf("x-malipo-test-values must have a succeeding payment phone, a succeeding and a failing payout wallet, and a succeeding bank account; it gives %+v", in)
	}
	return in, nil
}

// Inputs returns the test values the checks send (see Inputs).
func (t *T) Inputs() Inputs { return t.suite.inputs }
