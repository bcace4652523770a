package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// An outcome holds a payment's final status and is also given to payouts, which is sound only while
// both have the same final statuses.
func TestPaymentsAndPayoutsShareTheirFinalStatuses(t *testing.T) {
	var payment, payout []string
	for _, s := range api.PaymentStatusValues() {
		if s.Final() {
			payment = append(payment, string(s))
		}
	}
	for _, s := range api.PayoutStatusValues() {
		if s.Final() {
			payout = append(payout, string(s))
		}
	}
	assert.NotEmpty(t, payment)
	assert.ElementsMatch(t, payment, payout)
}
