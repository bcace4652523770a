package apigen_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/internal/apigen"
)

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"momo_phone_number":           "MomoPhoneNumber",
		"countryId":                   "CountryID",
		"paymentReference":            "PaymentReference",
		"webhook-id":                  "WebhookID",
		"webhook_url":                 "WebhookURL",
		"Idempotency-Key":             "IdempotencyKey",
		"rotateWebhookEndpointSecret": "RotateWebhookEndpointSecret",
		"payment.processing":          "PaymentProcessing",
		"invalid_pin":                 "InvalidPIN",
	} {
		assert.Equal(t, want, apigen.GoName(in), in)
	}
}

func TestSnakeName(t *testing.T) {
	for in, want := range map[string]string{
		"MissingAPIKey":        "missing_api_key",
		"MalformedJSON":        "malformed_json",
		"IdempotencyKeyInUse":  "idempotency_key_in_use",
		"UnsupportedMediaType": "unsupported_media_type",
	} {
		assert.Equal(t, want, apigen.SnakeName(in), in)
	}
}

func load(t *testing.T, edit func(string) string) *openapi.Spec {
	t.Helper()
	doc := edit(string(openapi.YAML()))
	spec, err := openapi.Load([]byte(doc))
	require.NoError(t, err)
	return spec
}

// TestDocumentChangesReachTheCode: a value added to the document appears in the generated code with no
// other change.
func TestDocumentChangesReachTheCode(t *testing.T) {
	spec := load(t, func(doc string) string {
		doc = strings.Replace(doc, "enum: [bank, mobile_number]\n      x-enum-varnames: [Bank, MobileNumber]",
			"enum: [bank, mobile_number, card]\n      x-enum-varnames: [Bank, MobileNumber, Card]", 1)
		return strings.Replace(doc, "        - A payout to a mobile-money wallet (MobileMoneyPayoutRequest).\n",
			"        - A payout to a mobile-money wallet (MobileMoneyPayoutRequest).\n        - A card.\n", 1)
	})
	src, err := apigen.Generate(spec)
	require.NoError(t, err)
	assert.Contains(t, string(src), `TransferToCard TransferTo = "card"`)
}

func TestInconsistentExtensionsAreErrors(t *testing.T) {
	spec := load(t, func(doc string) string {
		return strings.Replace(doc, "x-enum-varnames: [Bank, MobileNumber]", "x-enum-varnames: [Bank]", 1)
	})
	_, err := apigen.Generate(spec)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TransferTo: x-enum-varnames has 1 entries for 2 enum values")
}

func TestGenerateIsDeterministic(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	a, err := apigen.Generate(spec)
	require.NoError(t, err)
	b, err := apigen.Generate(spec)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(a, b))
}

// Every success response of the document is the one generic Envelope around its data, so no envelope
// is declared twice.
func TestEverySuccessResponseIsTheEnvelope(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	src, err := apigen.Generate(spec)
	require.NoError(t, err)
	n := 0
	for _, name := range openapitest.Keys(openapitest.Embedded(t).At(t, "/components/schemas")) {
		if strings.HasSuffix(name, "Response") {
			n++
			assert.Contains(t, string(src), "type "+name+" = Envelope[", name)
		}
	}
	assert.GreaterOrEqual(t, n, 8)
	assert.Equal(t, 1, strings.Count(string(src), "type Envelope[T any] struct"))
}

// A string the document marks `format: password` is an api.SecretString, which prints redacted.
func TestPasswordFormatIsASecretString(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	src, err := apigen.Generate(spec)
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^\s+Secret\s+SecretString\s+`+"`"+`json:"secret,omitempty"`+"`", string(src))
	assert.Equal(t, 2, strings.Count(string(src), "SecretString `"), "create and rotate-secret take a secret")
}

// An event type a response reports (AnyEventType: an open string whose known values are listed in
// x-extensible-enum) is the EventType Go type, a string type that holds a type added later too, and
// an event's payload, an object open to members the document does not declare, is the JSON as received.
func TestOpenEventTypesAndPayloads(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	src, err := apigen.Generate(spec)
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^\s+Type\s+EventType\s+`+"`"+`json:"type"`+"`", string(src), "Event.type")
	assert.Regexp(t, `(?m)^\s+Events\s+\[\]EventType\s+`+"`"+`json:"events"`+"`", string(src), "WebhookEndpoint.events")
	assert.Regexp(t, `(?m)^\s+Payload\s+RawJSON\s+`+"`"+`json:"payload"`+"`", string(src), "Event.payload")

	// Known values that no closed enum lists cannot be compared with a constant: an error, not a string.
	spec = load(t, func(doc string) string {
		return strings.Replace(doc, "x-extensible-enum: [payment.processing,", "x-extensible-enum: [refund.succeeded, payment.processing,", 1)
	})
	_, err = apigen.Generate(spec)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no component string enum has exactly these values")
}
