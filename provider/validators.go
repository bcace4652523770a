package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Limits and patterns of openapi/malipo.yaml, so that a plan fails on what the service would reject.
// spec_test.go compares every one of them with the document, so they cannot drift from it.
const (
	objectIDMaxLength      = 128 // ObjectId, ObjectReference
	webhookURLMinLength    = 8   // WebhookURL
	webhookURLMaxLength    = 2048
	narrationMaxLength     = 255 // Narration (minLength 1)
	descriptionMaxLength   = 255 // WebhookEndpointCreateRequest.description
	accountNumberMinLength = 4   // BankPayoutRequest.account_number
	accountNumberMaxLength = 34
	idempotencyKeyMaxLen   = 255 // the Idempotency-Key parameter (minLength 1)
	payoutAmountMinimum    = 1   // PayoutAmount
)

var (
	objectIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`) // ObjectId, ObjectReference
	// webhookURLPattern is WebhookURL's pattern: RFC 3986 characters only, in explicit ASCII classes.
	webhookURLPattern    = regexp.MustCompile(`^https?://[A-Za-z0-9._~%!$&'()*+,;=:@\[\]-]+([/?#][A-Za-z0-9._~%!$&'()*+,;=:@/?#\[\]-]*)?$`)
	phoneNumberPattern   = regexp.MustCompile(`^[1-9][0-9]{7,14}$`) // PhoneNumber
	accountNumberPattern = regexp.MustCompile(`^[A-Za-z0-9]+$`)     // BankPayoutRequest.account_number
	countryCodePattern   = regexp.MustCompile(`^[A-Z]{2}$`)         // CountryCode
	// singleLinePattern rejects line breaks, which cannot travel in a header (the idempotency key).
	singleLinePattern = regexp.MustCompile(`^[^\r\n]+$`)
	// httpURLPattern is what base_url must look like: an absolute http or https URL without a query.
	httpURLPattern = regexp.MustCompile(`^https?://[^\s/?#]+(/[^\s?#]*)?$`)
)

// The validators of each kind of value, shared by resources and data sources.

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

// eventTypeValues, transferToValues: the client's enum lists (tied to the document by its tests) as
// strings for stringvalidator.OneOf and the docs.
func eventTypeValues() []string     { return enumStrings(api.EventTypeValues()) }
func transferToValues() []string    { return enumStrings(api.TransferToValues()) }
func failureReasonValues() []string { return enumStrings(api.FailureReasonValues()) }

func enumStrings[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// quotedList renders values as "`a`, `b` or `c`" for descriptions.
func quotedList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "`" + v + "`"
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// whenEquals is a resource ConfigValidator for what terraform-plugin-framework-validators cannot say
// (v0.19.0 has conflicts and requirements between attributes, not conditioned on a value): when the
// string attribute `attr` equals `value`, every attribute in `required` must be set and every one in
// `forbidden` must be left out. The payout uses it for "bank fields required for bank, forbidden for
// mobile_number". Each error is attached to the offending attribute and names it.
type whenEquals struct {
	attr      string
	value     string
	required  []string
	forbidden []string
}

var _ resource.ConfigValidator = whenEquals{}

// Description says what the validator checks, for people.
func (v whenEquals) Description(_ context.Context) string {
	var parts []string
	if len(v.required) > 0 {
		parts = append(parts, strings.Join(v.required, ", ")+" must be set")
	}
	if len(v.forbidden) > 0 {
		parts = append(parts, strings.Join(v.forbidden, ", ")+" must not be set")
	}
	return fmt.Sprintf("when %s is %q, %s", v.attr, v.value, strings.Join(parts, " and "))
}

// MarkdownDescription is Description.
func (v whenEquals) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

// ValidateResource checks the configuration; unknown values are checked at apply, when they are known.
func (v whenEquals) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var kind types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(v.attr), &kind)...)
	if resp.Diagnostics.HasError() || kind.IsNull() || kind.IsUnknown() || kind.ValueString() != v.value {
		return
	}
	for _, name := range v.required {
		var val types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(name), &val)...)
		if val.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Missing Attribute Configuration",
				fmt.Sprintf("%s is required when %s is %q. Set %s, or choose another %s.", name, v.attr, v.value, name, v.attr))
		}
	}
	for _, name := range v.forbidden {
		var val types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(name), &val)...)
		if !val.IsNull() && !val.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Invalid Attribute Combination",
				fmt.Sprintf("%s cannot be set when %s is %q. Remove %s, or choose another %s.", name, v.attr, v.value, name, v.attr))
		}
	}
}

// errText is an error's text without a final period, to be followed by what to do in a diagnostic.
func errText(err error) string { return strings.TrimRight(err.Error(), ". ") }
