package checks

import (
	"fmt"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Every check states its rule where it is defined (Check.Rule): where the document says what the check
// enforces. A hand-written check quotes the words; a derived check computes its rule from what it was
// derived from (a schema keyword, a security requirement, a documented response, a test value).
// TestEveryCheckNamesItsRule resolves every check's pointer and finds its quote there, so a reordered
// or reworded document fails that test rather than leaving a report citing the wrong words. This file
// holds the pointers and quotes several checks share.

// Pointers into the document that several rules share.
const (
	// infoDescription is the document's introduction: envelope, keys, safe retries, verifying webhooks.
	infoDescription = "#/info/description"
	errorTable      = "#/components/schemas/ErrorCode/description"
	testValuesText  = "#/x-malipo-test-values/description"

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

// ruleless returns an error naming the first check that states no rule: every check must say,
// where it is defined, which words of the document it enforces (Check.Rule).
func ruleless(checks []*harness.Check) error {
	for _, c := range checks {
		if c.Rule.Pointer == "" {
			return fmt.Errorf("check %s names no rule of the document: give it a Rule where it is defined", c.ID)
		}
	}
	return nil
}

// errorDoc words a check that expects an error: "<what> is rejected with <status> (code <code>)", with
// the status from the document's error table.
func errorDoc(what string, code api.ErrorCode) string {
	return fmt.Sprintf("%s is rejected with %d (code %d)", what, code.HTTPStatus(), code)
}
