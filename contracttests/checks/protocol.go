package checks

import (
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Reference data and protocol-level errors: malformed bodies, content types, sizes, routes, and
// reference ids that do not exist.

func referenceChecks() []*harness.Check {
	return []*harness.Check{
		{ID: "reference.countries", Category: harness.CategoryReference, Covers: []string{"listCountries"},
			Rule: harness.Rule{Pointer: opListCountries + "/description", Quote: "Countries where payouts can be sent, with the `id` to use as a payout's `countryId`."},
			Doc:  api.OpListCountries().Method + " " + api.OpListCountries().Path + " lists at least one country with id, name, country_code and currency_code",
			Run: func(t *harness.T) {
				ex := t.Do(api.OpListCountries().Method, api.OpListCountries().URL(), nil)
				t.RequireStatus(ex, http.StatusOK)
				if list, _ := ex.Get("/data").([]any); len(list) == 0 {
					t.Errorf("no country listed; payouts need at least one")
				}
			}},
		{ID: "reference.banks", Category: harness.CategoryReference, Covers: []string{"listCountries", "listBanks"},
			Rule: harness.Rule{Pointer: opListBanks + "/description", Quote: "Banks that accept payouts in one country, with the `id` to use as a bank payout's `bank_id`."},
			Doc:  "each bank listed for a country belongs to it, and some listed country has a bank (the bank test values need one)",
			Run: func(t *harness.T) {
				// A country may take mobile payouts only: the document lists countries "where payouts can
				// be sent", not where banks are. The bank payouts of x-malipo-test-values need one bank.
				countries, _ := t.Do(api.OpListCountries().Method, api.OpListCountries().URL(), nil).Get("/data").([]any)
				anyBank := false
				for _, c := range countries {
					code, _ := c.(map[string]any)["country_code"].(string)
					ex := t.Do(api.OpListBanks().Method, api.OpListBanks().URL()+"?country="+code, nil)
					if !t.ExpectStatus(ex, http.StatusOK) {
						continue
					}
					banks, _ := ex.Get("/data").([]any)
					anyBank = anyBank || len(banks) > 0
					for _, b := range banks {
						if got, _ := b.(map[string]any)["country_code"].(string); got != code {
							t.Errorf("%s %s?country=%s returned a bank of %q", api.OpListBanks().Method, api.OpListBanks().Path, code, got)
						}
					}
				}
				if !anyBank {
					t.Errorf("no listed country has a bank, and the document's bank payout test values need one")
				}
			}},
		{ID: "reference.banks.unknown-country", Category: harness.CategoryReference, Covers: []string{"listBanks"},
			Rule: harness.Rule{Pointer: opListBanks + "/description", Quote: "An unknown country code is rejected with `400` naming `query.country`."},
			Doc:  "banks of an unknown country code are rejected with 400 naming query.country",
			Run: func(t *harness.T) {
				t.ExpectError(t.Do(api.OpListBanks().Method, api.OpListBanks().URL()+"?country=QQ", nil), api.CodeValidationFailed, "query.country")
			}},
		{ID: "reference.banks.missing-country", Category: harness.CategoryReference, Covers: []string{"listBanks"},
			Rule: harness.Rule{Pointer: opListBanks + "/parameters/0/required"},
			Doc:  "banks without ?country= are rejected with 400 naming query.country",
			Run: func(t *harness.T) {
				t.ExpectError(t.Do(api.OpListBanks().Method, api.OpListBanks().URL(), nil), api.CodeValidationFailed, "query.country")
			}},
	}
}

// protocolTargets are the operations with a JSON body, for malformed-body checks. Each is sent to an
// object that exists (pathToExisting): the document does not say whether an unreadable body or an id
// that names nothing is refused first, so a request to a missing object could rightly get 404.
var protocolTargets = []api.Operation{
	api.OpInitializePayment(),
	api.OpCompletePayment(),
	api.OpProcessPayout(),
	api.OpCreateWebhookEndpoint(),
	api.OpUpdateWebhookEndpoint(),
	api.OpRotateWebhookEndpointSecret(),
}

// protocolChecks are the requests refused before any business rule: bodies the service cannot read,
// unknown routes, reference ids that name nothing, and objects that do not exist.
func protocolChecks() []*harness.Check {
	checks := malformedBodyChecks()
	checks = append(checks, sizeAndRouteChecks()...)
	checks = append(checks, unknownReferenceChecks()...)
	checks = append(checks, manyFieldsCheck(), rateLimitFieldsCheck())
	return append(checks, notFoundChecks()...)
}

// errorsCapPointer is where the document bounds how many offending fields an error names.
const errorsCapPointer = "#/components/schemas/Error/properties/errors/maxItems"

// manyFieldsCheck sends a payout with 50 more wrong members than an error names (errorsCapPointer):
// the error's errors[] holds as many entries as it may, each naming one of the wrong members (the
// document does not say which come first, nor that a field is named once).
func manyFieldsCheck() *harness.Check {
	return &harness.Check{ID: "negative.processPayout.over-100-fields", Category: harness.CategoryNegative, Covers: []string{"processPayout"},
		Rule: harness.Rule{Pointer: "#/components/schemas/Error/properties/errors/description", Quote: "When more than 100 fields are wrong, the first 100 are named"},
		Doc:  errorDoc("a payout with more unknown members than an error names (Error.errors' maxItems, and 50)", api.CodeValidationFailed) + ", naming that many of them",
		Run: func(t *harness.T) {
			text, err := t.Spec().Text(errorsCapPointer)
			errorsCap, atoiErr := strconv.Atoi(text)
			if err != nil || atoiErr != nil {
				t.Skip("the document does not bound Error.errors (" + errorsCapPointer + "), so no number of wrong fields is more than an error names")
			}
			wrong := errorsCap + 50
			body := creditedPayout(t)
			sent := map[string]bool{}
			for i := range wrong {
				name := fmt.Sprintf("x_conform_unknown_%03d", i)
				body[name], sent["/"+name] = i, true
			}
			ex := t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), body)
			if !t.ExpectError(ex, api.CodeValidationFailed) {
				return
			}
			fields := ex.FieldErrors()
			for _, f := range fields {
				if !sent[f] {
					t.FailAbout(ex.Seq, report.Failure{Message: fmt.Sprintf("errors[] names %q, which is not one of the unknown members", f),
						Exchange: ex.String(), Pointer: "/errors"})
					return
				}
			}
			if len(fields) != errorsCap {
				t.FailAbout(ex.Seq, report.Failure{Message: fmt.Sprintf("%d members are wrong: errors[] must name %d of them, it names %d", wrong, errorsCap, len(fields)),
					Exchange: ex.String(), Pointer: "/errors"})
			}
		}}
}

// rateLimitFieldsCheck makes requests whose keys the target accepts, answered with a success, a
// refusal and a not-found: a target that sends the RateLimit fields on one sends all three on each. A
// target that sends none on any limits no rate, as far as a client can tell, which the document allows.
func rateLimitFieldsCheck() *harness.Check {
	return &harness.Check{ID: "positive.rate-limit-fields", Category: harness.CategoryPositive, Covers: []string{"listCountries", "processPayout", "getPayout"},
		Rule: harness.Rule{Pointer: "#/components/headers/RateLimitLimit/description", Quote: "An implementation that limits request rates sends all three on every response to a request whose keys it accepted"},
		Doc:  "responses to requests whose keys were accepted (200, 400, 404) carry all three RateLimit fields, or none of them does",
		Run: func(t *harness.T) {
			answers := []*harness.Exchange{
				t.Do(api.OpListCountries().Method, api.OpListCountries().URL(), nil),
				t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), map[string]any{}),
				t.Do(api.OpGetPayout().Method, api.OpGetPayout().URL(harness.NewID("po_conform_")), nil),
			}
			sends := false
			for _, ex := range answers {
				for _, h := range api.RateLimitFields() {
					sends = sends || ex.Header.Get(h) != ""
				}
			}
			if !sends {
				t.Skip("the target sends no RateLimit field on any answer: it limits no rate a client can see, which the document allows")
			}
			for _, ex := range answers {
				for _, h := range api.RateLimitFields() {
					if ex.Header.Get(h) == "" {
						t.FailAbout(ex.Seq, report.Failure{Message: fmt.Sprintf("the target sends RateLimit fields, but this answer to accepted keys has no %s", h),
							Exchange: ex.String(), Pointer: "header." + strings.ToLower(h)})
					}
				}
			}
		}}
}

// malformedBodyChecks send each operation with a JSON body a body that is not JSON, and one that is
// form-encoded.
func malformedBodyChecks() []*harness.Check {
	var checks []*harness.Check
	for _, op := range protocolTargets {
		checks = append(checks,
			&harness.Check{ID: "negative." + op.ID + ".malformed-json", Category: harness.CategoryNegative, Covers: []string{op.ID}, Extension: op.Extension,
				Rule: harness.Rule{Pointer: errorTable, Quote: "The body is not valid JSON."},
				Doc:  errorDoc(op.ID+" with a body that is not JSON", api.CodeMalformedJSON),
				Run: func(t *harness.T) {
					path := pathToExisting(t, t.DocumentOperation(op))
					t.ExpectError(t.Do(op.Method, path, nil, harness.WithRawBody("application/json", []byte(`{"amount": 1,`))), api.CodeMalformedJSON)
				}},
			&harness.Check{ID: "negative." + op.ID + ".wrong-content-type", Category: harness.CategoryNegative, Covers: []string{op.ID}, Extension: op.Extension,
				Rule: harness.Rule{Pointer: "#/components/responses/UnsupportedMediaType/description", Quote: "The body is not sent as `application/json` (code 1002); `errors` names `header.content-type`."},
				Doc:  errorDoc(op.ID+" with a form-encoded body", api.CodeUnsupportedMediaType),
				Run: func(t *harness.T) {
					path := pathToExisting(t, t.DocumentOperation(op))
					t.ExpectError(t.Do(op.Method, path, nil, harness.WithRawBody("application/x-www-form-urlencoded", []byte("amount=1"))),
						api.CodeUnsupportedMediaType, "header.content-type")
				}})
	}
	return checks
}

// sizeAndRouteChecks: a body over the size limit, a path the document does not have, and a method a
// documented path does not take.
func sizeAndRouteChecks() []*harness.Check {
	return []*harness.Check{
		{ID: "negative.processPayout.body-too-large", Category: harness.CategoryNegative, Covers: []string{"processPayout"},
			Rule: harness.Rule{Pointer: errorTable, Quote: "The body is larger than 1 MiB."},
			Doc:  errorDoc("a body over 1 MiB", api.CodePayloadTooLarge),
			Run: func(t *harness.T) {
				big := []byte(`{"narration":"` + strings.Repeat("a", 1<<20+10) + `"}`)
				t.ExpectError(t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), nil, harness.WithRawBody("application/json", big)), api.CodePayloadTooLarge)
			}},
		{ID: "negative.unknown-path", Category: harness.CategoryNegative,
			Rule: harness.Rule{Pointer: infoDescription, Quote: "A path that is not documented answers `404` (code 3000)"},
			Doc:  errorDoc("a path the spec does not document", api.CodeNotFound),
			Run: func(t *harness.T) {
				t.ExpectError(t.Do(http.MethodGet, path.Dir(api.OpListCountries().Path)+"/conform-no-such-path", nil), api.CodeNotFound)
			}},
		{ID: "negative.unknown-method", Category: harness.CategoryNegative, Covers: []string{"listCountries"},
			Rule: harness.Rule{Pointer: infoDescription, Quote: "a documented path with another method answers `405` (code 3001) with an `Allow` header"},
			Doc:  errorDoc("a method the spec does not document on a known path", api.CodeMethodNotAllowed),
			Run: func(t *harness.T) {
				ex := t.Do(http.MethodDelete, api.OpListCountries().URL(), nil)
				if t.ExpectError(ex, api.CodeMethodNotAllowed) && !strings.Contains(ex.Header.Get("Allow"), api.OpListCountries().Method) {
					t.FailAbout(ex.Seq, report.Failure{Message: fmt.Sprintf("a 405 must carry an Allow header naming the path's methods (%s), got %q", api.OpListCountries().Method, ex.Header.Get("Allow")),
						Exchange: ex.String(), Pointer: "header.allow"})
				}
			}},
	}
}

// unknownReferenceChecks send well-formed bodies that name a country or bank the service does not have
// (or a bank of another country): a validation error naming the field, not a 404.
func unknownReferenceChecks() []*harness.Check {
	return []*harness.Check{
		{ID: "negative.processPayout.unknown-country", Category: harness.CategoryNegative, Covers: []string{"processPayout"},
			Rule: harness.Rule{Pointer: opProcessPayout + "/description", Quote: unknownReferenceQuote},
			Doc:  "a payout to a countryId that does not exist is rejected with 400 naming /countryId",
			Run: func(t *harness.T) {
				b := t.MobilePayout("", "")
				b["countryId"] = "conform-no-such-country"
				t.ExpectError(t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), b), api.CodeValidationFailed, "/countryId")
			}},
		{ID: "negative.processPayout.unknown-bank", Category: harness.CategoryNegative, Covers: []string{"processPayout"},
			Rule: harness.Rule{Pointer: opProcessPayout + "/description", Quote: unknownReferenceQuote},
			Doc:  "a bank payout to a bank_id that does not exist is rejected with 400 naming /bank_id",
			Run: func(t *harness.T) {
				b := t.BankPayout(t.Inputs().CreditedAccount(), "")
				b["bank_id"] = "conform-no-such-bank"
				t.ExpectError(t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), b), api.CodeValidationFailed, "/bank_id")
			}},
		{ID: "negative.processPayout.bank-of-other-country", Category: harness.CategoryNegative, Covers: []string{"processPayout"},
			Rule: harness.Rule{Pointer: opProcessPayout + "/description", Quote: unknownReferenceQuote},
			Doc:  "a bank payout to a bank of another country is rejected with 400 naming /bank_id",
			Run: func(t *harness.T) {
				rd := t.RefData()
				if rd.OtherBankID == "" {
					t.Skip("the target lists banks of one country only")
				}
				b := t.BankPayout(t.Inputs().CreditedAccount(), "")
				b["bank_id"] = rd.OtherBankID
				// The two fields disagree: naming either is naming "the field".
				ex := t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), b)
				if t.ExpectError(ex, api.CodeValidationFailed) {
					if fields := ex.FieldErrors(); !harness.NamesField(fields, "/bank_id") && !harness.NamesField(fields, "/countryId") {
						t.Errorf("errors[] must name /bank_id or /countryId, it names %q", fields)
					}
				}
			}},
	}
}

// notFoundChecks ask for an id that does not exist of each operation that reads or acts on one object.
func notFoundChecks() []*harness.Check {
	var checks []*harness.Check
	for _, nf := range []api.Operation{api.OpGetPayout(), api.OpGetTransactionStatus(), api.OpCompletePayment()} {
		checks = append(checks, &harness.Check{ID: "negative." + nf.ID + ".not-found", Category: harness.CategoryNegative, Covers: []string{nf.ID},
			Rule: harness.Rule{Pointer: errorTable, Quote: notFoundQuote},
			Doc:  fmt.Sprintf("%s of an id that does not exist answers %d (code %d)", nf.ID, api.CodeNotFound.HTTPStatus(), api.CodeNotFound),
			Run: func(t *harness.T) {
				var opts []harness.ReqOption
				if nf.Method == http.MethodPost {
					opts = append(opts, harness.WithRawBody("application/json", []byte(`{"phone_number":"`+t.Inputs().ApprovingPhone()+`"}`)))
				}
				t.ExpectError(t.Do(nf.Method, nf.URL(harness.UnknownID), nil, opts...), api.CodeNotFound)
			}})
	}
	return checks
}
