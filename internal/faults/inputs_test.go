package faults_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// The inputs below are valid by the document but held by none of its examples: the faults of
// inputs.go mishandle them, and a sandbox without faults takes them (TestGeneratedInputsPassWithoutFaults).
const (
	payoutMaximum = 9007199254740991 // PayoutAmount's maximum, 2^53-1
	colonRef      = "order:1044"     // a MerchantReference its pattern allows
)

var (
	nonASCIINarrations = []string{"Caf\u00e9 1042", "\u0645\u0631\u062d\u0628\u0627", "Order \U0001F389", "e\u0301te\u0301"}
	// narration150 is a valid narration longer than the faulty column of 100 characters; its first 100
	// characters differ from the whole.
	narration150 = strings.Repeat("abcdefghij", 15)
)

// paymentBody is a valid initialize-payment body for the approving phone, reporting to the receiver.
func (f *faulty) paymentBody() map[string]any {
	phone := ""
	for _, v := range f.testValues().Payments {
		if v.Status == string(api.PaymentStatusSuccess) {
			phone = v.PhoneNumber
		}
	}
	return map[string]any{"currency": "ZMW", "country": "ZM", "narration": "Order 1042", "method": "mobilemoney",
		"amount": 150.5, "webhook_url": f.rc.url("/h"), "phone_number": phone}
}

// failedWallet is a wallet the test values make a mobile payout fail for.
func (f *faulty) failedWallet() string {
	for _, v := range f.testValues().Payouts.MobileNumber {
		if v.Status == string(api.PayoutStatusFailed) {
			return v.MomoPhoneNumber
		}
	}
	f.t.Fatal("the test values have no failing mobile payout")
	return ""
}

// fieldErrors returns the fields an error envelope names.
func fieldErrors(t *testing.T, r reply) []string {
	t.Helper()
	var env api.Error
	require.NoError(t, json.Unmarshal(r.body, &env), "%s", r.body)
	var out []string
	for _, e := range env.Errors {
		out = append(out, e.Field)
	}
	return out
}

// eventObject returns data.payload.data.object of an event read from the event log.
func eventObject(t *testing.T, r reply) map[string]any {
	t.Helper()
	payload, _ := r.data(t)["payload"].(map[string]any)
	data, _ := payload["data"].(map[string]any)
	object, ok := data["object"].(map[string]any)
	require.True(t, ok, "the event has no payload.data.object: %s", r.body)
	return object
}

func breaksNonASCII(t *testing.T, f *faulty) {
	for _, narration := range nonASCIINarrations {
		b := f.paymentBody()
		b["narration"] = narration
		r := f.do(http.MethodPost, api.OpInitializePayment().URL(), b)
		assert.Equal(t, http.StatusInternalServerError, r.status, "narration %q: %s", narration, r.body)
		assert.Empty(t, r.violations, "the 500 is a documented one: only 'never 5xx' notices it")
	}
	b := f.mobilePayout(f.creditedWallet())
	b["narration"] = "Fournisseur n\u00b0 88"
	assert.Equal(t, http.StatusInternalServerError, f.do(http.MethodPost, api.OpProcessPayout().URL(), b).status)
	assert.Empty(t, f.srv.Payments(sandbox.DefaultPublicKey), "nothing is created")
	assert.Empty(t, f.srv.Payouts(sandbox.DefaultPublicKey), "nothing is created")

	b["narration"] = "Supplier invoice 88"
	assert.Equal(t, http.StatusCreated, f.do(http.MethodPost, api.OpProcessPayout().URL(), b).status, "ASCII text is still taken")
	b["narration"] = "Fournisseur n\u00b0 88"
	assert.Equal(t, http.StatusUnauthorized, f.do(http.MethodPost, api.OpProcessPayout().URL(), b, header(api.HeaderSecretKey, "sk_wrong")).status, "the keys are checked first")
	b["narration"] = strings.Repeat("\u00e9", 256)
	assert.Equal(t, http.StatusBadRequest, f.do(http.MethodPost, api.OpProcessPayout().URL(), b).status, "an invalid body is still refused, not crashed on")
	b["narration"], b["webhook_url"] = "Supplier invoice 88", "https://merchant.example.org/a\u00a0b"
	assert.Equal(t, http.StatusBadRequest, f.do(http.MethodPost, api.OpProcessPayout().URL(), b).status, "an invalid body is still refused, not crashed on")
}

func breaksLargeAmount(t *testing.T, f *faulty) {
	for _, amount := range []int64{1_000_001, payoutMaximum} {
		b := f.mobilePayout(f.creditedWallet())
		b["amount"] = amount
		r := f.do(http.MethodPost, api.OpProcessPayout().URL(), b)
		assert.Equal(t, http.StatusBadRequest, r.status, "amount %d: %s", amount, r.body)
		assert.Equal(t, []string{"/amount"}, fieldErrors(t, r))
		assert.Empty(t, r.violations, "the 400 is well formed")
	}
	b := f.mobilePayout(f.creditedWallet())
	b["amount"] = 1_000_001
	assert.Equal(t, http.StatusUnauthorized, f.do(http.MethodPost, api.OpProcessPayout().URL(), b, without(api.HeaderSecretKey)).status, "the keys are checked first")
	b["amount"] = 1_000_000
	assert.Equal(t, http.StatusCreated, f.do(http.MethodPost, api.OpProcessPayout().URL(), b).status)
	p := f.paymentBody()
	p["amount"] = json.Number("987654321.12")
	assert.Equal(t, http.StatusCreated, f.do(http.MethodPost, api.OpInitializePayment().URL(), p).status, "payments are left alone")
}

func breaksLongText(t *testing.T, f *faulty) {
	cut := narration150[:100]
	b := f.payoutWithHook()
	b["narration"] = narration150
	created := f.do(http.MethodPost, api.OpProcessPayout().URL(), b)
	require.Equal(t, http.StatusCreated, created.status, "%s", created.body)
	id := created.data(t)["payout_id"].(string)
	assert.Equal(t, cut, created.data(t)["narration"])
	assert.Equal(t, cut, f.do(http.MethodGet, api.OpGetPayout().URL(id), nil).data(t)["narration"])
	assert.Equal(t, cut, f.rc.waitFor(1, id)[0].event.Data.Object["narration"])

	p := f.paymentBody()
	p["narration"] = strings.Repeat("\u00e9", 255)
	// The non-ASCII narration is cut by characters, not bytes.
	r := f.do(http.MethodPost, api.OpInitializePayment().URL(), p)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	assert.Equal(t, strings.Repeat("\u00e9", 100), r.data(t)["narration"])

	p["narration"] = strings.Repeat("a", 256)
	assert.Equal(t, http.StatusBadRequest, f.do(http.MethodPost, api.OpInitializePayment().URL(), p).status, "a narration too long for the document is still refused")
}

func breaksCents(t *testing.T, f *faulty) {
	p := f.paymentBody()
	p["amount"] = json.Number("150.55")
	r := f.do(http.MethodPost, api.OpInitializePayment().URL(), p)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	assert.InDelta(t, 150.6, r.data(t)["amount"], 0)
	ref := r.data(t)["paymentReference"].(string)
	assert.InDelta(t, 150.6, f.do(http.MethodGet, api.OpGetTransactionStatus().URL(ref), nil).data(t)["amount"], 0)

	for _, kept := range []string{"987654321.12", "0.01", "150.5"} {
		p["amount"] = json.Number(kept)
		r = f.do(http.MethodPost, api.OpInitializePayment().URL(), p)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		assert.Equal(t, kept, string(rawData(t, r)["amount"]), "out of the fault's reach")
	}
	p["amount"] = json.Number("1.001")
	assert.Equal(t, http.StatusBadRequest, f.do(http.MethodPost, api.OpInitializePayment().URL(), p).status, "an amount with three decimals is still refused")
}

func breaksPatternChar(t *testing.T, f *faulty) {
	b := f.mobilePayout(f.creditedWallet())
	b["reference"] = colonRef
	r := f.do(http.MethodPost, api.OpProcessPayout().URL(), b)
	assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Equal(t, []string{"/reference"}, fieldErrors(t, r))
	p := f.paymentBody()
	p["reference"] = "inv:7"
	r = f.do(http.MethodPost, api.OpInitializePayment().URL(), p)
	assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Equal(t, []string{"/reference"}, fieldErrors(t, r))
	b["momo_phone_number"] = "not a phone"
	r = f.do(http.MethodPost, api.OpProcessPayout().URL(), b)
	assert.Equal(t, []string{"/momo_phone_number"}, fieldErrors(t, r), "an invalid body gets the sandbox's own 400: %s", r.body)
	b["momo_phone_number"], b["reference"] = f.creditedWallet(), "order-1044"
	assert.Equal(t, http.StatusCreated, f.do(http.MethodPost, api.OpProcessPayout().URL(), b).status)
}

func breaksWebhookField(t *testing.T, f *faulty) {
	b := f.mobilePayout(f.failedWallet())
	b["narration"], b["webhook_url"] = "Supplier invoice 88", f.rc.url("/h")
	id := f.createPayout(b)
	d := f.rc.waitFor(1, id)[0]
	require.Equal(t, string(api.EventTypePayoutFailed), d.event.Type)
	assert.NotContains(t, d.event.Data.Object, "narration", "the payout.failed payload lost the narration")
	assert.Empty(t, f.spec.ValidateWebhook(d.event.Type, d.header, d.body), "the payload is still valid: narration is optional")
	assert.NoError(t, webhook.Verifier{Secrets: []webhook.Secret{merchantSecret(t)}}.Verify(d.header, d.body), "the changed body is signed")
	assert.Equal(t, "Supplier invoice 88", f.do(http.MethodGet, api.OpGetPayout().URL(id), nil).data(t)["narration"], "the API keeps it")
	logged := f.do(http.MethodGet, api.OpGetEvent().URL(d.header.Get(webhook.HeaderID)), nil)
	require.Equal(t, http.StatusOK, logged.status, "%s", logged.body)
	assert.NotContains(t, eventObject(t, logged), "narration", "the event log shows the body as delivered")

	ok := f.payoutWithHook()
	ok["narration"] = "Supplier invoice 89"
	d = f.rc.waitFor(1, f.createPayout(ok))[0]
	assert.Equal(t, string(api.EventTypePayoutSuccess), d.event.Type)
	assert.Equal(t, "Supplier invoice 89", d.event.Data.Object["narration"], "other event types keep it")
}

// rawData returns the members of a response's data as their JSON text.
func rawData(t *testing.T, r reply) map[string]json.RawMessage {
	t.Helper()
	var env struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.body, &env), "%s", r.body)
	return env.Data
}

// TestGeneratedInputsPassWithoutFaults is the control for the faults of inputs.go: the sandbox
// without faults takes each input they mishandle and echoes it exactly, in the response, on read-back
// and in the webhook, so what those faults' tests see is the fault's doing.
func TestGeneratedInputsPassWithoutFaults(t *testing.T) {
	t.Parallel()
	f := newFaulty(t)
	b := f.mobilePayout(f.failedWallet())
	b["amount"], b["narration"], b["reference"], b["webhook_url"] = payoutMaximum, strings.Repeat(nonASCIINarrations[1], 51), colonRef, f.rc.url("/h")
	created := f.do(http.MethodPost, api.OpProcessPayout().URL(), b)
	require.Equal(t, http.StatusCreated, created.status, "%s", created.body)
	assert.Empty(t, created.violations)
	id := created.data(t)["payout_id"].(string)
	d := f.rc.waitFor(1, id)[0]
	read := f.do(http.MethodGet, api.OpGetPayout().URL(id), nil)
	for _, object := range []map[string]any{created.data(t), read.data(t), d.event.Data.Object} {
		assert.Equal(t, b["narration"], object["narration"])
		assert.Equal(t, colonRef, object["reference"])
	}
	for _, raw := range []json.RawMessage{rawData(t, created)["amount"], rawData(t, read)["amount"]} {
		assert.Equal(t, "9007199254740991", string(raw))
	}

	p := f.paymentBody()
	p["amount"], p["narration"] = json.Number("150.55"), nonASCIINarrations[3]+narration150
	r := f.do(http.MethodPost, api.OpInitializePayment().URL(), p)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	assert.Equal(t, "150.55", string(rawData(t, r)["amount"]))
	assert.Equal(t, p["narration"], r.data(t)["narration"])
	assert.Equal(t, []openapi.Violation(nil), []openapi.Violation(r.violations))
}
