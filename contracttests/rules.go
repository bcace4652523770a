package contracttests

import (
	"fmt"
	"regexp"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The rules of the hand-written checks: for each, where the document states what the check enforces.
// Derived checks compute theirs from what they were derived from (a schema keyword, a security
// requirement, a documented response, a test value). TestEveryCheckNamesItsRule resolves every
// check's pointer and finds its quote there, so a reordered or reworded document fails that test
// rather than leaving a report citing the wrong words.

// Pointers into the document that several rules share.
const (
	// infoDescription is the document's introduction: envelope, keys, safe retries, verifying webhooks.
	infoDescription = "#/info/description"
	// eventsTagIndex is the index of the Events tag (the webhooks' rules) in the document's tags.
	eventsTagIndex = "6"
	// endpointsTagIndex is the index of the Webhook endpoints tag.
	endpointsTagIndex = "4"
	errorTable        = "#/components/schemas/ErrorCode/description"
	testValuesText    = "#/x-malipo-test-values/description"

	notFoundQuote         = "No such object for this merchant, or no such path."
	replayQuote           = "Sending the same key with the same body again returns the first response again, with `Idempotent-Replayed: true`, and moves no money."
	referenceUsedQuote    = "the merchant `reference` is already used (code 4002; `errors` names `/reference` and `data.existing_id` the object that holds it)"
	unknownReferenceQuote = "unknown ids, or a bank of another country, are rejected with `400` naming the field"
)

// The operations the hand-written rules quote, located from package api's paths and methods.
var (
	opInitializePayment = apiOperationLocation(api.OpInitializePayment())
	opCompletePayment   = apiOperationLocation(api.OpCompletePayment())
	opTransactionStatus = apiOperationLocation(api.OpGetTransactionStatus())
	opProcessPayout     = apiOperationLocation(api.OpProcessPayout())
	opListCountries     = apiOperationLocation(api.OpListCountries())
	opListBanks         = apiOperationLocation(api.OpListBanks())
	opCreateEndpoint    = apiOperationLocation(api.OpCreateWebhookEndpoint())
	opListEndpoints     = apiOperationLocation(api.OpListWebhookEndpoints())
	opRotateEndpoint    = apiOperationLocation(api.OpRotateWebhookEndpointSecret())
	opListEvents        = apiOperationLocation(api.OpListEvents())
	opGetEvent          = apiOperationLocation(api.OpGetEvent())
	opListEventAttempts = apiOperationLocation(api.OpListEventAttempts())
	opResendEvent       = apiOperationLocation(api.OpResendEvent())
)

// handRules gives each hand-written check, by the pattern of its id, its rule. The first pattern
// that matches wins.
var handRules = []struct {
	id   *regexp.Regexp
	rule Rule
}{
	{regexp.MustCompile(`^reference\.countries$`), Rule{Pointer: opListCountries + "/description", Quote: "Countries where payouts can be sent, with the `id` to use as a payout's `countryId`."}},
	{regexp.MustCompile(`^reference\.banks$`), Rule{Pointer: opListBanks + "/description", Quote: "Banks that accept payouts in one country, with the `id` to use as a bank payout's `bank_id`."}},
	{regexp.MustCompile(`^reference\.banks\.unknown-country$`), Rule{Pointer: opListBanks + "/description", Quote: "An unknown country code is rejected with `400` naming `query.country`."}},
	{regexp.MustCompile(`^reference\.banks\.missing-country$`), Rule{Pointer: opListBanks + "/parameters/0/required"}},
	{regexp.MustCompile(`^negative\.\w+\.malformed-json$`), Rule{Pointer: errorTable, Quote: "The body is not valid JSON."}},
	{regexp.MustCompile(`^negative\.\w+\.wrong-content-type$`), Rule{Pointer: "#/components/responses/UnsupportedMediaType/description", Quote: "The body is not sent as `application/json` (code 1002); `errors` names `header.content-type`."}},
	{regexp.MustCompile(`^negative\.\w+\.body-too-large$`), Rule{Pointer: errorTable, Quote: "The body is larger than 1 MiB."}},
	{regexp.MustCompile(`^negative\.unknown-path$`), Rule{Pointer: infoDescription, Quote: "A path that is not documented answers `404` (code 3000)"}},
	{regexp.MustCompile(`^negative\.unknown-method$`), Rule{Pointer: infoDescription, Quote: "a documented path with another method answers `405` (code 3001) with an `Allow` header"}},
	{regexp.MustCompile(`^negative\.processPayout\.(unknown-country|unknown-bank|bank-of-other-country)$`), Rule{Pointer: opProcessPayout + "/description", Quote: unknownReferenceQuote}},
	{regexp.MustCompile(`^negative\.\w+\.not-found$`), Rule{Pointer: errorTable, Quote: notFoundQuote}},
	{regexp.MustCompile(`^negative\.\w+\.unusable-webhook-url$`), Rule{Pointer: "#/components/schemas/WebhookURL/description", Quote: "Besides this pattern the URL must parse as a URL with a host name (`http://[x` and `http://:80/` are refused), and a port, when given, is 1 to 65535."}},
	{regexp.MustCompile(`^positive\.initializePayment\.amount-exact$`), Rule{Pointer: "#/components/schemas/PaymentAmount/description", Quote: "Every amount this schema allows has at most 15 significant digits"}},
	{regexp.MustCompile(`^auth\.isolation\.(payout|payment)$`), Rule{Pointer: opTransactionStatus + "/description", Quote: "Objects of other merchants are reported as not found."}},
	{regexp.MustCompile(`^auth\.isolation\.webhook-endpoint$`), Rule{Pointer: errorTable, Quote: notFoundQuote}},
	{regexp.MustCompile(`^auth\.isolation\.event$`), Rule{Pointer: opListEvents + "/description", Quote: "Another merchant's events are never listed."}},
	{regexp.MustCompile(`^idempotency\.\w+\.replay$`), Rule{Pointer: infoDescription, Quote: replayQuote}},
	{regexp.MustCompile(`^idempotency\.\w+\.conflict$`), Rule{Pointer: infoDescription, Quote: "The same key with a different body is rejected with `409` (code 4000)."}},
	{regexp.MustCompile(`^idempotency\.processPayout\.concurrent$`), Rule{Pointer: opProcessPayout + "/description", Quote: "Send an `Idempotency-Key` so that a retry never pays twice."}},
	{regexp.MustCompile(`^idempotency\.reference\.payout-duplicate$`), Rule{Pointer: "#/components/responses/Conflict/description", Quote: referenceUsedQuote}},
	{regexp.MustCompile(`^idempotency\.reference\.payment-duplicate$`), Rule{Pointer: opInitializePayment + "/description", Quote: "a `reference` already used by this merchant is rejected with `409` (code 4002) and `data.existing_id` names the payment that holds it"}},
	{regexp.MustCompile(`^idempotency\.reference\.shared-across-kinds$`), Rule{Pointer: "#/components/schemas/MerchantReference/description", Quote: "The merchant's own reference, unique among the merchant's payments and payouts."}},
	{regexp.MustCompile(`^state\.payout\.mobile\.own-wallet$`), Rule{Pointer: testValuesText, Quote: "A mobile payout without `momo_phone_number` (the merchant's own wallet) succeeds."}},
	{regexp.MustCompile(`^state\.payment\.complete-twice$`), Rule{Pointer: opCompletePayment + "/description", Quote: "A payment that is not `pending` is rejected with `422` (code 5000)."}},
	{regexp.MustCompile(`^state\.payment\.complete-without-phone$`), Rule{Pointer: opCompletePayment + "/description", Quote: "with neither the call fails with `400` naming `/phone_number`"}},
	{regexp.MustCompile(`^state\.payment\.phone-at-complete$`), Rule{Pointer: opCompletePayment + "/description", Quote: "The customer's number comes from `phone_number` in this body or, when the body has none, from initialization"}},
	{regexp.MustCompile(`^state\.payment\.pending-after-init$`), Rule{Pointer: opInitializePayment + "/description", Quote: "No money moves and the customer is not contacted yet"}},
	{regexp.MustCompile(`^positive\.payment\.generated-reference$`), Rule{Pointer: opInitializePayment + "/description", Quote: "When `reference` is omitted the service generates one and returns it"}},
	{regexp.MustCompile(`^extensions\.webhook-endpoints\.crud$`), Rule{Pointer: opCreateEndpoint + "/description", Quote: "The response is the only one that carries the endpoint's signing `secret` (besides rotate-secret)"}},
	{regexp.MustCompile(`^extensions\.webhook-endpoints\.delivery$`), Rule{Pointer: "#/tags/" + endpointsTagIndex + "/description", Quote: "URLs that receive every event of the types they subscribe to, signed with their own `whsec_` secret."}},
	{regexp.MustCompile(`^extensions\.webhook-endpoints\.rotate-secret$`), Rule{Pointer: opRotateEndpoint + "/description", Quote: "until then every delivery carries one signature per valid secret in `webhook-signature`"}},
	{regexp.MustCompile(`^extensions\.webhook-endpoints\.rotate-without-grace$`), Rule{Pointer: opRotateEndpoint + "/description", Quote: "A grace period of 0 ends the old secret at once."}},
	{regexp.MustCompile(`^extensions\.webhook-endpoints\.rotate-twice$`), Rule{Pointer: opRotateEndpoint + "/description", Quote: "Secrets retired by earlier rotations stop signing at once, even if their own grace period had not ended"}},
	{regexp.MustCompile(`^extensions\.webhook-endpoints\.supplied-secret$`), Rule{Pointer: opCreateEndpoint + "/description", Quote: "a supplied secret is used exactly as given, and the response shows it like a generated one"}},
	{regexp.MustCompile(`^extensions\.webhook-endpoints\.rotate-supplied-secret$`), Rule{Pointer: opRotateEndpoint + "/description", Quote: "Issues a new `whsec_` secret and returns it: the one the body supplies in `secret`"}},
	{regexp.MustCompile(`^extensions\.webhook-endpoints\.weak-secret$`), Rule{Pointer: opCreateEndpoint + "/description", Quote: "A secret that is too short, too long or not `whsec_` and base64 is refused with `400` naming `/secret`, and nothing is created."}},
	{regexp.MustCompile(`^extensions\.(webhook-endpoints|events)\.not-found$`), Rule{Pointer: errorTable, Quote: notFoundQuote}},
	{regexp.MustCompile(`^extensions\.events\.list$`), Rule{Pointer: opListEvents + "/description", Quote: "The merchant's events, newest first: one per status change of a payment or payout, the same events the webhooks deliver."}},
	{regexp.MustCompile(`^extensions\.events\.pagination$`), Rule{Pointer: opListEvents + "/description", Quote: "page with `limit` and the `next_cursor` of the previous page, which continues exactly after its last event, so that events created while paging neither repeat nor shift a page"}},
	{regexp.MustCompile(`^extensions\.events\.get$`), Rule{Pointer: opGetEvent + "/description", Quote: "with `payload`, the body its webhook deliveries carry (their `webhook-id` is the event's `id`)"}},
	{regexp.MustCompile(`^extensions\.events\.attempts$`), Rule{Pointer: opListEventAttempts + "/description", Quote: "Every delivery attempt of the event, oldest first"}},
	{regexp.MustCompile(`^extensions\.events\.resend$`), Rule{Pointer: opResendEvent + "/description", Quote: "the same body and the same `webhook-id` (receivers that deduplicate on it see a repeat), a fresh `webhook-timestamp` and signature"}},
	{regexp.MustCompile(`^extensions\.events\.resend-to-endpoint$`), Rule{Pointer: opResendEvent + "/description", Quote: "With `endpoint_id` it goes to that endpoint only, whether or not it subscribes to the type or is enabled, as long as it belongs to the merchant (else `404`)"}},
}

// assignRules gives every check without a rule of its own the rule of handRules its id matches, and
// fails for a check that has none: a check must say which words of the document it enforces.
func assignRules(checks []*Check) error {
	for _, c := range checks {
		if c.Rule.Pointer != "" {
			continue
		}
		for _, hr := range handRules {
			if hr.id.MatchString(c.ID) {
				c.Rule = hr.rule
				break
			}
		}
		if c.Rule.Pointer == "" {
			return fmt.Errorf("check %s names no rule of the document: give it a Rule, or an entry in handRules (contracttests/rules.go)", c.ID)
		}
	}
	return nil
}
