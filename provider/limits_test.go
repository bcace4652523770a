package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
)

// The limits and patterns the provider validates at plan time are the document's, so that a plan
// fails exactly where the service would.
func TestValidationConstantsMatchTheSpec(t *testing.T) {
	doc := openapitest.Embedded(t)
	component := func(name string) schemaFacts {
		return factsAt(t, doc, "/components/schemas/"+name)
	}
	property := func(schema, prop string) schemaFacts {
		return factsAt(t, doc, "/components/schemas/"+schema+"/properties/"+prop)
	}
	checkString := func(name string, s schemaFacts, pattern *regexp.Regexp, minLen, maxLen int64) {
		t.Helper()
		if pattern != nil {
			assert.Equal(t, s.Pattern, pattern.String(), "%s pattern", name)
		} else {
			assert.Empty(t, s.Pattern, "%s has a pattern the provider does not check", name)
		}
		if minLen > 0 {
			require.NotNil(t, s.MinLength, "%s minLength", name)
			assert.Equal(t, minLen, *s.MinLength, "%s minLength", name)
		}
		if maxLen > 0 {
			require.NotNil(t, s.MaxLength, "%s maxLength", name)
			assert.Equal(t, maxLen, *s.MaxLength, "%s maxLength", name)
		}
	}

	checkString("ObjectId", component("ObjectId"), objectIDPattern, 1, objectIDMaxLength)
	checkString("ObjectReference", component("ObjectReference"), objectIDPattern, 1, objectIDMaxLength)
	checkString("WebhookURL", component("WebhookURL"), webhookURLPattern, webhookURLMinLength, webhookURLMaxLength)
	checkString("PhoneNumber", component("PhoneNumber"), phoneNumberPattern, 0, 0)
	checkString("CountryCode", component("CountryCode"), countryCodePattern, 0, 0)
	checkString("AnyEventType", component("AnyEventType"), eventTypePattern, 0, eventTypeMaxLength)
	checkString("Narration", component("Narration"), nil, 1, narrationMaxLength)
	checkString("BankPayoutRequest.account_number", property("BankPayoutRequest", "account_number"),
		accountNumberPattern, accountNumberMinLength, accountNumberMaxLength)
	checkString("WebhookEndpointCreateRequest.description", property("WebhookEndpointCreateRequest", "description"),
		nil, 0, descriptionMaxLength)

	checkString("MerchantReference", component("MerchantReference"), merchantReferencePattern, 1, merchantReferenceMaxLen)
	grace := property("RotateSecretRequest", "grace_period_seconds")
	require.NotNil(t, grace.Minimum)
	require.NotNil(t, grace.Maximum)
	assert.InDelta(t, 0, *grace.Minimum, 0)
	assert.InDelta(t, float64(gracePeriodMaxSeconds), *grace.Maximum, 0)
	require.NotNil(t, grace.Default)
	assert.Equal(t, fmt.Sprint(gracePeriodDefault), fmt.Sprint(grace.Default))

	amount := component("PayoutAmount")
	require.NotNil(t, amount.Minimum)
	assert.InDelta(t, float64(payoutAmountMinimum), *amount.Minimum, 0)
	require.NotNil(t, amount.Maximum)
	assert.InDelta(t, float64(payoutAmountMaximum), *amount.Maximum, 0)
	assert.Equal(t, "integer", amount.Type, "the provider checks that amount is a whole number")

	key := factsAt(t, doc, "/components/parameters/IdempotencyKey/schema")
	require.NotNil(t, key.MaxLength)
	assert.Equal(t, int64(idempotencyKeyMaxLen), *key.MaxLength)

	// The request schemas say which fields each kind has; the provider's conditional validators must agree.
	bankProps := openapitest.Keys(doc.At(t, "/components/schemas/BankPayoutRequest/properties"))
	mobileProps := openapitest.Keys(doc.At(t, "/components/schemas/MobileMoneyPayoutRequest/properties"))
	assert.Subset(t, component("BankPayoutRequest").Required, []string{"bank_id", "account_number"})
	assert.NotContains(t, bankProps, "momo_phone_number")
	assert.NotContains(t, mobileProps, "bank_id")
	assert.NotContains(t, mobileProps, "account_number")
	assert.NotContains(t, component("MobileMoneyPayoutRequest").Required, "momo_phone_number")
}

// schemaFacts are the keywords of a schema that the provider's plan-time validation restates.
type schemaFacts struct {
	Type      string   `yaml:"type"`
	Pattern   string   `yaml:"pattern"`
	MinLength *int64   `yaml:"minLength"`
	MaxLength *int64   `yaml:"maxLength"`
	Minimum   *float64 `yaml:"minimum"`
	Maximum   *float64 `yaml:"maximum"`
	Default   any      `yaml:"default"`
	Required  []string `yaml:"required"`
}

// factsAt decodes the schema at pointer (a reference followed) into schemaFacts.
func factsAt(t *testing.T, doc *openapitest.Doc, pointer string) schemaFacts {
	t.Helper()
	var s schemaFacts
	openapitest.Decode(t, doc.At(t, pointer), &s)
	return s
}

func TestPatterns(t *testing.T) {
	tv := testValues(t)
	tests := []struct {
		re    *regexp.Regexp
		value string
		ok    bool
	}{
		{objectIDPattern, "ctry_zm", true},
		{objectIDPattern, "_x", false},
		{phoneNumberPattern, tv.mobileOK.MomoPhoneNumber, true},
		{phoneNumberPattern, "+" + tv.mobileOK.MomoPhoneNumber, false},
		{phoneNumberPattern, "0960000001", false},
		{accountNumberPattern, tv.bankOK.AccountNumber, true},
		{accountNumberPattern, "0000-0001", false},
		{webhookURLPattern, "https://merchant.example.org/hooks", true},
		{webhookURLPattern, "merchant.example.org/hooks", false},
		{httpURLPattern, "http://127.0.0.1:8080", true},
		{httpURLPattern, "https://api.example.org/v1/", true},
		{httpURLPattern, "http://127.0.0.1:8080?x=1", false},
		{httpURLPattern, "127.0.0.1:8080", false},
		{singleLinePattern, "invoice-88", true},
		{singleLinePattern, "a\nb", false},
		{countryCodePattern, "ZM", true},
		{countryCodePattern, "zm", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.ok, tt.re.MatchString(tt.value), "%s ~ %q", tt.re, tt.value)
	}
}
