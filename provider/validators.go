package provider

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
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

// eventTypesValidators check a set of event types as the document's open AnyEventType has them: each
// well formed (an error otherwise), and one this provider does not know is a warning, not an error,
// since the document lets the service add event types without a new version.
func eventTypesValidators() []validator.Set {
	return []validator.Set{
		setvalidator.SizeAtLeast(1),
		setvalidator.ValueStringsAre(
			stringvalidator.LengthAtMost(eventTypeMaxLength),
			stringvalidator.RegexMatches(eventTypePattern, "must be an event type: <object>.<status> in lower case, e.g. payout.success"),
		),
		knownEventTypes{known: eventTypeValues()},
	}
}

// knownEventTypes warns of each event type in a set that is not one of known, naming them: the service
// may have added it (an endpoint subscribed to it elsewhere is read, imported and planned with it; the
// API client, built from this version of the document, sends only the types it declares), or it is a
// typing mistake.
type knownEventTypes struct{ known []string }

func (v knownEventTypes) Description(context.Context) string {
	return "warns of an event type this provider does not know: " + strings.Join(v.known, ", ")
}

func (v knownEventTypes) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v knownEventTypes) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, el := range req.ConfigValue.Elements() {
		s, ok := el.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() || slices.Contains(v.known, s.ValueString()) {
			continue
		}
		resp.Diagnostics.AddAttributeWarning(req.Path.AtSetValue(el), "Unknown Event Type",
			fmt.Sprintf("This provider does not know the event type %q; it knows %s. The API adds event types "+
				"without a new version, so an endpoint another tool subscribed to %q is read, imported and planned "+
				"with it, but this version of the provider cannot send it: a create, or a change of events, is "+
				"refused before it is sent. Upgrade the provider to subscribe to it, or, if you meant one of the "+
				"types above, correct it.", s.ValueString(), strings.Join(v.known, ", "), s.ValueString()))
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

func payoutAmountValidators() []validator.Number {
	return []validator.Number{payoutAmountValidator{}}
}

// payoutAmountValidator checks what the document's PayoutAmount is: an integer from payoutAmountMinimum
// to payoutAmountMaximum. amount is a Number attribute, not an Int64 one, so that a fraction reaches this
// check: an Int64 attribute fails on 10.5 while reading the configuration, before any validator runs,
// with the framework's "Value %!s(*big.Float=10.5) is not an integer ... always an error in the
// provider", which names neither the mistake nor its fix.
type payoutAmountValidator struct{}

var _ validator.Number = payoutAmountValidator{}

// Description says what a valid amount is, for people.
func (payoutAmountValidator) Description(context.Context) string {
	return fmt.Sprintf("a whole number from %d to %d", payoutAmountMinimum, payoutAmountMaximum)
}

// MarkdownDescription is Description.
func (v payoutAmountValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

// ValidateNumber checks a known amount; an unknown one is checked at apply, when it is known.
func (payoutAmountValidator) ValidateNumber(_ context.Context, req validator.NumberRequest, resp *validator.NumberResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if summary, detail := payoutAmountProblem(req.ConfigValue.ValueBigFloat()); summary != "" {
		resp.Diagnostics.AddAttributeError(req.Path, summary, detail)
	}
}

// payoutAmountUnits is what an amount counts, for messages.
const payoutAmountUnits = "a whole number of major units of the destination country's currency (2500 pays 2,500 ZMW to Zambia)"

// payoutAmountProblem says what is wrong with an amount and what to write instead; "" when it is valid.
func payoutAmountProblem(f *big.Float) (summary, detail string) {
	minimum, maximum := new(big.Float).SetInt64(payoutAmountMinimum), new(big.Float).SetInt64(payoutAmountMaximum)
	value := f.Text('f', -1)
	switch {
	case !f.IsInt():
		var fixes []string
		floor, _ := f.Int(nil) // truncates toward zero
		if f.Sign() < 0 {
			floor.Sub(floor, big.NewInt(1))
		}
		for _, n := range []*big.Int{floor, new(big.Int).Add(floor, big.NewInt(1))} {
			if nf := new(big.Float).SetInt(n); nf.Cmp(minimum) >= 0 && nf.Cmp(maximum) <= 0 {
				fixes = append(fixes, n.String())
			}
		}
		if len(fixes) == 0 {
			fixes = append(fixes, fmt.Sprint(payoutAmountMinimum))
		}
		return "Payout Amount Is Not a Whole Number",
			fmt.Sprintf("amount = %s, but the Malipo API takes a payout's amount as %s: a fraction of a unit cannot be "+
				"paid out. Set amount to %s.", value, payoutAmountUnits, strings.Join(fixes, " or "))
	case f.Cmp(minimum) < 0:
		return "Payout Amount Too Small",
			fmt.Sprintf("amount = %s, but a payout's amount must be at least %d, %s. Set amount to %d or more.",
				value, payoutAmountMinimum, payoutAmountUnits, payoutAmountMinimum)
	case f.Cmp(maximum) > 0:
		return "Payout Amount Too Large",
			fmt.Sprintf("amount = %s, but a payout's amount must be at most %d (2^53-1, so that every JSON parser reads "+
				"it exactly), %s. Set amount to %d or less, or split the payout.", value, payoutAmountMaximum,
				payoutAmountUnits, payoutAmountMaximum)
	}
	return "", ""
}
