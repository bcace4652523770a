package specdiff_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
	"github.com/malipo/terraform-provider-malipo/openapi/specdiff"
)

// The corpus: real edits of openapi/malipo.yaml, one per kind of change, each applied to the embedded
// document at test time (by pointer, see openapi/docedit) and each with its expected verdict. Paths
// and test values are read from package api and the document, never written here.

const (
	clients     = specdiff.Clients
	receivers   = specdiff.Receivers
	conformance = specdiff.Conformance
)

// line is a change a corpus entry must produce: where (a substring of Change.At), what (a substring of
// Change.What) and whom it breaks (nil: no one).
type line struct {
	at, what string
	breaks   []specdiff.Audience
}

type entry struct {
	name string
	edit func(d *docedit.Doc) error
	// breaks is whom the whole report breaks; lines are changes it must list; changes, when not 0, is
	// how many it lists.
	breaks  []specdiff.Audience
	lines   []line
	changes int
}

func path(op api.Operation) string { return "/paths/" + docedit.Escape(op.Path) }
func operation(op api.Operation) string {
	return path(op) + "/" + strings.ToLower(op.Method)
}
func webhook(t api.EventType) string { return "/webhooks/" + docedit.Escape(string(t)) }

// label is how a report names an operation: "POST /v1/payment/payouts/process".
func label(op api.Operation) string { return op.Method + " " + op.Path }

func corpus(t *testing.T) []entry {
	spec, err := openapi.Default()
	require.NoError(t, err)
	tv, err := spec.TestValues()
	require.NoError(t, err)
	declinedPhone := tv.Payments[1].PhoneNumber
	require.Equal(t, string(api.FailureReasonDeclined), tv.Payments[1].FailureReason, "the corpus changes the outcome of a declining number")
	removedAccount := tv.Payouts.Bank[1].AccountNumber
	bank := "/components/schemas/BankPayoutRequest"
	processingStatus := webhook(api.EventTypePaymentProcessing) +
		"/post/requestBody/content/application~1json/schema/properties/data/properties/object/properties/status/enum"
	const newPath = "/v2/payouts"
	lastEvent := api.EventTypeValues()[len(api.EventTypeValues())-1]

	return []entry{
		{name: "identical documents", edit: func(*docedit.Doc) error { return nil }, changes: -1},
		{name: "remove an operation", edit: func(d *docedit.Doc) error { return d.Remove(path(api.OpGetPayout())) },
			breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{label(api.OpGetPayout()), "path removed", []specdiff.Audience{clients}}}},
		{name: "remove one operation of a path", edit: func(d *docedit.Doc) error { return d.Remove(operation(api.OpDeleteWebhookEndpoint())) },
			breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{label(api.OpDeleteWebhookEndpoint()), "operation DELETE removed", []specdiff.Audience{clients}}}},
		{name: "add an optional request field", edit: func(d *docedit.Doc) error {
			return d.Set(bank+"/properties/purpose", "{type: string, description: Why the money is sent.}")
		}, changes: 1, lines: []line{{"schema BankPayoutRequest › /purpose", "field added", nil}}},
		{name: "add a required request field", edit: func(d *docedit.Doc) error {
			if err := d.Set(bank+"/properties/purpose", "{type: string}"); err != nil {
				return err
			}
			return d.Append(bank+"/required", "purpose")
		}, breaks: []specdiff.Audience{clients}, changes: 2, lines: []line{
			{"schema BankPayoutRequest › /purpose", "field added", nil},
			{"schema BankPayoutRequest › /purpose", "now required", []specdiff.Audience{clients}}}},
		{name: "remove a response field", edit: func(d *docedit.Doc) error {
			return d.Remove("/components/schemas/Transaction/properties/reference")
		}, breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{"schema Transaction › /reference", "field removed", []specdiff.Audience{clients}}}},
		{name: "add a response field", edit: func(d *docedit.Doc) error {
			return d.Set("/components/schemas/Transaction/properties/settled_at", "{$ref: '#/components/schemas/Timestamp'}")
		}, changes: 1, lines: []line{{"schema Transaction › /settled_at", "field added", nil}}},
		{name: "make a response field optional", edit: func(d *docedit.Doc) error {
			return d.Remove("/components/schemas/Transaction/required/0")
		}, breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{"schema Transaction › /type", "no longer required", []specdiff.Audience{clients}}}},
		// Transaction.status is in responses only.
		{name: "add an enum value to a response status", edit: func(d *docedit.Doc) error {
			return d.Append("/components/schemas/Transaction/properties/status/enum", "reversed")
		}, breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{"schema Transaction › /status", `enum value "reversed" added`, []specdiff.Audience{clients}}}},
		// PayoutStatus is in responses and in webhook payloads: the usage analysis finds both.
		{name: "add an enum value to a status shared by responses and payloads", edit: func(d *docedit.Doc) error {
			return d.Append("/components/schemas/PayoutStatus/enum", "reversed")
		}, breaks: []specdiff.Audience{clients, receivers}, changes: 1,
			lines: []line{{"schema PayoutStatus", `enum value "reversed" added`, []specdiff.Audience{clients, receivers}}}},
		// The whole enum removed is not values fewer but any value allowed: it widens what clients and
		// receivers get (libopenapi reports it value by value, like a narrowing).
		{name: "remove the enum of a status shared by responses and payloads", edit: func(d *docedit.Doc) error {
			return d.Remove("/components/schemas/PayoutStatus/enum")
		}, breaks: []specdiff.Audience{clients, receivers}, changes: len(api.PayoutStatusValues()), lines: []line{
			{"schema PayoutStatus", fmt.Sprintf("enum value %q removed", api.PayoutStatusFailed), []specdiff.Audience{clients, receivers}}}},
		// One value removed leaves the others: it only narrows what a response holds.
		{name: "remove one enum value of a response status", edit: func(d *docedit.Doc) error {
			return d.Remove(fmt.Sprintf("/components/schemas/PayoutStatus/enum/%d", len(api.PayoutStatusValues())-1))
		}, changes: 1, lines: []line{
			{"schema PayoutStatus", fmt.Sprintf("enum value %q removed", api.PayoutStatusValues()[len(api.PayoutStatusValues())-1]), nil}}},
		{name: "add an enum value to a webhook payload's status", edit: func(d *docedit.Doc) error {
			return d.Append(processingStatus, "queued")
		}, breaks: []specdiff.Audience{receivers}, changes: 1,
			lines: []line{{"webhook " + string(api.EventTypePaymentProcessing) + " › payload › /data/object/status", `enum value "queued" added`, []specdiff.Audience{receivers}}}},
		// In a request, a new value is one more the service accepts.
		{name: "add an enum value to a request field", edit: func(d *docedit.Doc) error {
			return d.Append(bank+"/properties/transfer_to/enum", "wire")
		}, changes: 1, lines: []line{{"schema BankPayoutRequest › /transfer_to", `enum value "wire" added`, nil}}},
		// EventType is in requests (the events an endpoint subscribes to) and in responses (the
		// endpoint read back): a value removed is refused from clients, and one fewer they parse.
		{name: "remove an enum value from a request field", edit: func(d *docedit.Doc) error {
			return d.Remove(fmt.Sprintf("/components/schemas/EventType/enum/%d", len(api.EventTypeValues())-1))
		}, breaks: []specdiff.Audience{clients}, changes: 1, lines: []line{
			{"schema EventType", fmt.Sprintf("enum value %q removed", lastEvent), []specdiff.Audience{clients}}}},
		{name: "remove a webhook event type", edit: func(d *docedit.Doc) error { return d.Remove(webhook(api.EventTypePayoutFailed)) },
			breaks: []specdiff.Audience{receivers}, changes: 1,
			lines: []line{{"webhook " + string(api.EventTypePayoutFailed), "event type removed", []specdiff.Audience{receivers}}}},
		{name: "add a webhook event type", edit: func(d *docedit.Doc) error {
			if err := d.Copy(webhook(api.EventTypePayoutFailed), "/webhooks/payout.reversed"); err != nil {
				return err
			}
			return d.Set("/webhooks/payout.reversed/post/operationId", "onPayoutReversed")
		}, changes: 1,
			lines: []line{{"webhook payout.reversed", "event type added", nil}}},
		// Adding an event type as the Events tag says it is added: its webhook, its value in EventType
		// (what clients send: subscriptions and the log's filter) and in AnyEventType's known values
		// (what responses report). The tag promises it without a new API version, so nothing breaks.
		{name: "add an event type everywhere the document lists event types", edit: func(d *docedit.Doc) error {
			if err := d.Copy(webhook(api.EventTypePayoutFailed), "/webhooks/payout.reversed"); err != nil {
				return err
			}
			if err := d.Set("/webhooks/payout.reversed/post/operationId", "onPayoutReversed"); err != nil {
				return err
			}
			for _, add := range [][2]string{
				{"/components/schemas/EventType/enum", "payout.reversed"},
				{"/components/schemas/EventType/x-enum-varnames", "PayoutReversed"},
				{"/components/schemas/EventType/x-enum-descriptions", "A payout was reversed."},
				{"/components/schemas/AnyEventType/x-extensible-enum", "payout.reversed"},
			} {
				if err := d.Append(add[0], add[1]); err != nil {
					return err
				}
			}
			return nil
		}, lines: []line{
			{"webhook payout.reversed", "event type added", nil},
			{"schema EventType", `enum value "payout.reversed" added`, nil}}},
		{name: "change the signature header", edit: func(d *docedit.Doc) error {
			for _, e := range api.EventTypeValues() {
				if err := d.Set(webhook(e)+"/post/parameters/2/name", api.HeaderWebhookSignature+"-v2"); err != nil {
					return err
				}
			}
			return nil
		}, breaks: []specdiff.Audience{receivers}, changes: 2 * len(api.EventTypeValues()), lines: []line{
			{"webhook " + string(api.EventTypePayoutSuccess), "parameter " + api.HeaderWebhookSignature + " removed", []specdiff.Audience{receivers}},
			{"webhook " + string(api.EventTypePayoutSuccess), "parameter " + api.HeaderWebhookSignature + "-v2 added", nil}}},
		{name: "rename a path", edit: func(d *docedit.Doc) error { return d.Rename(path(api.OpProcessPayout()), newPath) },
			breaks: []specdiff.Audience{clients}, changes: 2, lines: []line{
				{label(api.OpProcessPayout()), "path removed", []specdiff.Audience{clients}},
				{api.OpProcessPayout().Method + " " + newPath, "path added", nil}}},
		{name: "tighten a request bound", edit: func(d *docedit.Doc) error {
			return d.Set(bank+"/properties/account_number/maxLength", "20")
		}, breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{"schema BankPayoutRequest › /account_number", "maxLength 34 → 20", []specdiff.Audience{clients}}}},
		{name: "loosen a request bound", edit: func(d *docedit.Doc) error {
			return d.Set(bank+"/properties/account_number/maxLength", "64")
		}, changes: 1, lines: []line{{"schema BankPayoutRequest › /account_number", "maxLength 34 → 64", nil}}},
		// A shared parameter is reported once, at the component, with every operation that uses it.
		{name: "tighten a shared request header", edit: func(d *docedit.Doc) error {
			return d.Set("/components/parameters/IdempotencyKey/schema/maxLength", "128")
		}, breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{"#/components/parameters/IdempotencyKey", "maxLength 255 → 128", []specdiff.Audience{clients}}}},
		{name: "remove a response header", edit: func(d *docedit.Doc) error {
			return d.Remove(operation(api.OpProcessPayout()) + "/responses/201/headers/" + api.HeaderIdempotentReplayed)
		}, breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{label(api.OpProcessPayout()) + " › response 201", "header " + api.HeaderIdempotentReplayed + " removed", []specdiff.Audience{clients}}}},
		{name: "rename a key header", edit: func(d *docedit.Doc) error {
			return d.Set("/components/securitySchemes/SecretKey/name", "x-"+api.HeaderSecretKey)
		}, breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{"security scheme SecretKey", "name " + api.HeaderSecretKey + " → x-" + api.HeaderSecretKey, []specdiff.Audience{clients}}}},
		{name: "remove a response body", edit: func(d *docedit.Doc) error {
			return d.Remove(operation(api.OpGetPayout()) + "/responses/200/content")
		}, breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{label(api.OpGetPayout()) + " › response 200", "content removed", []specdiff.Audience{clients}}}},
		{name: "allow null in a response field", edit: func(d *docedit.Doc) error {
			return d.Set("/components/schemas/Transaction/properties/amount/type", "[number, 'null']")
		}, breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{"schema Transaction › /amount", "type number → number, null", []specdiff.Audience{clients}}}},
		{name: "require another key", edit: func(d *docedit.Doc) error {
			return d.Set(operation(api.OpCompletePayment())+"/security", "[{PublicKey: [], SecretKey: []}]")
		}, breaks: []specdiff.Audience{clients}, lines: []line{{label(api.OpCompletePayment()) + " › security", "added", []specdiff.Audience{clients}}}},
		{name: "add an optional query parameter", edit: func(d *docedit.Doc) error {
			return d.Append(operation(api.OpGetPayout())+"/parameters", "{name: expand, in: query, schema: {type: string}}")
		}, changes: 1, lines: []line{{label(api.OpGetPayout()), "parameter expand added", nil}}},
		{name: "add a required query parameter", edit: func(d *docedit.Doc) error {
			return d.Append(operation(api.OpGetPayout())+"/parameters", "{name: expand, in: query, required: true, schema: {type: string}}")
		}, breaks: []specdiff.Audience{clients}, changes: 1,
			lines: []line{{label(api.OpGetPayout()), "parameter expand added", []specdiff.Audience{clients}}}},
		{name: "change a test value", edit: func(d *docedit.Doc) error {
			return d.Set("/x-malipo-test-values/payments/1/failure_reason", string(api.FailureReasonInvalidPIN))
		}, breaks: []specdiff.Audience{conformance}, changes: 1, lines: []line{{"x-malipo-test-values › payments › " + declinedPhone,
			"outcome failed (" + string(api.FailureReasonDeclined) + ") → failed (" + string(api.FailureReasonInvalidPIN) + ")", []specdiff.Audience{conformance}}}},
		{name: "remove a test value", edit: func(d *docedit.Doc) error { return d.Remove("/x-malipo-test-values/payouts/bank/1") },
			breaks: []specdiff.Audience{conformance}, changes: 1,
			lines: []line{{"x-malipo-test-values › payouts/bank › " + removedAccount, "test value removed", []specdiff.Audience{conformance}}}},
		{name: "add a test value", edit: func(d *docedit.Doc) error {
			return d.Append("/x-malipo-test-values/payouts/bank", "{account_number: '0000000099', status: failed, failure_reason: account_blocked, description: A new one.}")
		}, changes: 1, lines: []line{{"x-malipo-test-values › payouts/bank › 0000000099", "test value added", nil}}},
		{name: "change only a test value's description", edit: func(d *docedit.Doc) error {
			return d.Set("/x-malipo-test-values/payments/0/description", "Approved.")
		}, changes: 1, lines: []line{{"x-malipo-test-values › payments", "description changed", nil}}},
		{name: "change only a description", edit: func(d *docedit.Doc) error {
			return d.Set(operation(api.OpGetPayout())+"/description", "Returns the payout.")
		}, changes: 1, lines: []line{{label(api.OpGetPayout()), "description", nil}}},
		{name: "change only a schema's description", edit: func(d *docedit.Doc) error {
			return d.Set("/components/schemas/PayoutStatus/description", "Where the payout is.")
		}, changes: 1, lines: []line{{"schema PayoutStatus", "description", nil}}},
	}
}

func TestCorpus(t *testing.T) {
	d, err := docedit.Parse(openapi.YAML())
	require.NoError(t, err)
	base, err := d.Bytes() // both sides encoded alike, so that only the edit differs
	require.NoError(t, err)
	for _, e := range corpus(t) {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			d, err := docedit.Parse(base)
			require.NoError(t, err)
			require.NoError(t, e.edit(d))
			edited, err := d.Bytes()
			require.NoError(t, err)
			r, err := specdiff.Diff(base, edited)
			require.NoError(t, err)

			var text strings.Builder
			require.NoError(t, r.Text(&text))
			t.Log("\n" + text.String())
			switch {
			case e.changes < 0:
				assert.Empty(t, r.Changes)
			case e.changes > 0:
				assert.Len(t, r.Changes, e.changes)
			default:
				assert.NotEmpty(t, r.Changes)
			}
			var breaks []specdiff.Audience
			for _, a := range []specdiff.Audience{clients, receivers, conformance} {
				if len(r.BreakingFor(a)) > 0 {
					breaks = append(breaks, a)
				}
			}
			assert.Equal(t, e.breaks, breaks, "whom the edit breaks")
			assert.Equal(t, len(e.breaks) > 0, r.Breaking())
			assert.Equal(t, map[bool]int{true: 1, false: 0}[len(e.breaks) > 0], specdiff.ExitCode(r, nil), "exit code")
			for _, want := range e.lines {
				found := false
				for _, c := range r.Changes {
					if strings.Contains(c.At, want.at) && strings.Contains(c.What, want.what) {
						found = true
						assert.Equal(t, want.breaks, c.Breaks, "%s: %s", c.At, c.What)
						assert.NotEmpty(t, c.Why)
						for _, a := range c.Breaks {
							assert.NotEmpty(t, c.Reasons[a], "the reason %s breaks %s", c.What, a)
						}
					}
				}
				assert.True(t, found, "no change at %q with %q", want.at, want.what)
			}
		})
	}
}
