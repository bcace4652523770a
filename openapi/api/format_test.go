package api_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// An object's optional members print as their values, or <nil>, never as addresses, in every form a
// developer prints a value with; a member that redacts itself still does.
func TestOptionalMembersPrintAsValues(t *testing.T) {
	account, grace := "0000000001", int64(3600)
	p := api.Payout{PayoutID: "po_1", AccountNumber: &account, TransferTo: api.TransferToBank}
	plus := fmt.Sprintf("%+v", p)
	assert.Contains(t, plus, "AccountNumber:0000000001")
	assert.Contains(t, plus, "PayoutID:po_1")
	assert.NotContains(t, plus, "0x")
	assert.Contains(t, fmt.Sprintf("%v", p), " 0000000001 ")
	assert.Contains(t, fmt.Sprintf("%#v", p), "api.Payout{PayoutID:po_1 ")
	assert.Contains(t, fmt.Sprintf("%+v", api.Payout{}), "AccountNumber:<nil>")
	assert.Contains(t, fmt.Sprintf("%+v", &p), "AccountNumber:0000000001", "a pointer to the object too")

	const secret = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA=="
	r := api.RotateSecretRequest{GracePeriodSeconds: &grace, Secret: api.SecretString(secret)}
	for _, form := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(form, r)
		assert.Contains(t, out, "3600", form)
		assert.NotContains(t, out, secret, form)
	}
}
