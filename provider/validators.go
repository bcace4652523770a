package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// The validators of each kind of value, shared by resources and data sources. They check the limits and
// patterns of limits.go, with messages that say what a valid value looks like.

func objectIDValidators() []validator.String {
	return []validator.String{
		stringvalidator.LengthBetween(1, objectIDMaxLength),
		stringvalidator.RegexMatches(objectIDPattern, "must start with a letter or digit and contain only letters, digits and _ . : -"),
	}
}

func webhookURLValidators() []validator.String {
	return []validator.String{
		stringvalidator.LengthBetween(webhookURLMinLength, webhookURLMaxLength),
		stringvalidator.RegexMatches(webhookURLPattern, "must be an absolute http or https URL of RFC 3986 characters only (percent-encode spaces and non-ASCII)"),
	}
}

func phoneNumberValidators() []validator.String {
	return []validator.String{
		stringvalidator.RegexMatches(phoneNumberPattern, "must be an E.164 number without the leading +: country code and number, 8 to 15 digits (e.g. 260971234567)"),
	}
}

func accountNumberValidators() []validator.String {
	return []validator.String{
		stringvalidator.LengthBetween(accountNumberMinLength, accountNumberMaxLength),
		stringvalidator.RegexMatches(accountNumberPattern, "must contain only letters and digits"),
	}
}

func narrationValidators() []validator.String {
	return []validator.String{stringvalidator.LengthBetween(1, narrationMaxLength)}
}

func countryCodeValidators() []validator.String {
	return []validator.String{stringvalidator.RegexMatches(countryCodePattern, "must be an ISO 3166-1 alpha-2 code in capitals, e.g. ZM")}
}

func payoutAmountValidators() []validator.Int64 {
	return []validator.Int64{int64validator.AtLeast(payoutAmountMinimum)}
}
