package harness

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The checks' inputs are the first test value of each kind with the outcome they need; a document
// without test values gives none (the checks that need one skip) and one whose test values do not
// decode is an error naming the extension.
func TestInputsAreTheFirstOfEachOutcome(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	tv, err := spec.TestValues()
	require.NoError(t, err)
	first := func(status string, entries []openapi.TestValue) string {
		for _, v := range entries {
			if v.Status == status {
				return v.Input
			}
		}
		return ""
	}
	in, err := inputsFrom(spec)
	require.NoError(t, err)
	assert.Equal(t, Inputs{
		ApprovingPhone:  first("success", tv.Entries(openapi.TestValuePayments)),
		CreditedWallet:  first("success", tv.Entries(openapi.TestValueMobilePayouts)),
		FailingWallet:   first("failed", tv.Entries(openapi.TestValueMobilePayouts)),
		CreditedAccount: first("success", tv.Entries(openapi.TestValueBankPayouts)),
	}, in)
	for name, v := range map[string]string{"ApprovingPhone": in.ApprovingPhone, "CreditedWallet": in.CreditedWallet,
		"FailingWallet": in.FailingWallet, "CreditedAccount": in.CreditedAccount} {
		assert.NotEmpty(t, v, "the embedded document gives %s", name)
	}

	without := strings.Replace(string(openapi.YAML()), "\nx-malipo-test-values:", "\nx-not-test-values:", 1)
	spec, err = openapi.Load([]byte(without))
	require.NoError(t, err)
	in, err = inputsFrom(spec)
	require.NoError(t, err)
	assert.Equal(t, Inputs{}, in)

	broken := strings.Replace(string(openapi.YAML()), "\n  payments:\n", "\n  payments: 7\n  ignored:\n", 1)
	spec, err = openapi.Load([]byte(broken))
	require.NoError(t, err)
	_, err = inputsFrom(spec)
	assert.ErrorContains(t, err, "x-malipo-test-values does not decode")
}
