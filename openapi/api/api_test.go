package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/internal/apigen"
)

// TestGeneratedCodeIsCurrent fails when api.gen.go is not what the generator makes of the embedded
// document: someone edited the document without `go generate ./openapi/api`, or edited the output.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	want, err := apigen.Generate(spec)
	require.NoError(t, err)
	got, err := os.ReadFile("api.gen.go")
	require.NoError(t, err)
	if !bytes.Equal(got, want) {
		t.Fatal("api.gen.go is out of date with openapi/malipo.yaml: run `go generate ./openapi/api` (make generate) and commit the result")
	}
}

func TestOperationURLEscapesEachParameter(t *testing.T) {
	assert.Equal(t, "/v1/payment/payouts/po_1", api.OpGetPayout().URL("po_1"))
	assert.Equal(t, "/v1/webhooks/a%2Fb%3F/rotate-secret", api.OpRotateWebhookEndpointSecret().URL("a/b?"))
	assert.Equal(t, "/v1/countries", api.OpListCountries().URL())
	assert.Panics(t, func() { api.OpGetPayout().URL() }, "a missing parameter is a programming error")
	assert.Panics(t, func() { api.OpListCountries().URL("x") }, "an extra parameter is a programming error")
}

func TestOperationSecurityAndResponses(t *testing.T) {
	assert.True(t, api.OpProcessPayout().Needs(api.HeaderSecretKey))
	assert.False(t, api.OpCompletePayment().Needs(api.HeaderSecretKey), "complete payment takes the public key only")
	assert.True(t, api.OpCompletePayment().Needs(api.HeaderPublicKey))
	assert.True(t, api.OpDeleteWebhookEndpoint().Documents(http.StatusNoContent))
	assert.False(t, api.OpDeleteWebhookEndpoint().Documents(http.StatusCreated))
	assert.Equal(t, "rotate webhook endpoint secret", api.OpRotateWebhookEndpointSecret().Words())

	// The accessors hand out copies: a caller cannot change the table for everyone.
	sec := api.OpProcessPayout().Security()
	sec[0][0] = "changed"
	assert.Equal(t, api.HeaderPublicKey, api.OpProcessPayout().Security()[0][0])
	op := api.OpGetPayout()
	op.Path = "/changed"
	assert.Equal(t, "/v1/payment/payouts/{payout_id}", api.OpGetPayout().Path, "each call returns a new Operation")
	assert.Equal(t, "/v1/payment/payouts/{payout_id}", api.Operations()[4].Path)

	resp := api.OpProcessPayout().Responses()
	resp[0] = "999"
	assert.Equal(t, "201", api.OpProcessPayout().Responses()[0])
}

func TestOperationByID(t *testing.T) {
	for _, op := range api.Operations() {
		got, ok := api.OperationByID(op.ID)
		require.True(t, ok, op.ID)
		assert.Equal(t, op.Path, got.Path)
	}
	_, ok := api.OperationByID("noSuchOperation")
	assert.False(t, ok)
}

func TestErrorCodes(t *testing.T) {
	assert.Equal(t, http.StatusConflict, api.CodeDuplicateReference.HTTPStatus())
	assert.Equal(t, "missing_api_key", api.CodeMissingAPIKey.String())
	assert.True(t, api.CodeInternalError.Known())
	unknown := api.ErrorCode(1234)
	assert.False(t, unknown.Known())
	assert.Zero(t, unknown.HTTPStatus())
	assert.Equal(t, "code_1234", unknown.String())
}

// TestErrorTableMatchesTheDocumentsProse checks the generated codes against the table people read in the
// ErrorCode description: the same codes, names and HTTP statuses as x-enum-varnames and
// x-malipo-http-status, from which the code is generated.
func TestErrorTableMatchesTheDocumentsProse(t *testing.T) {
	description := openapitest.Member(openapitest.Embedded(t).At(t, "/components/schemas/ErrorCode"), "description").Value
	rows := regexp.MustCompile(`(?m)^\|\s*(\d+)\s*\|\s*([a-z_]+)\s*\|\s*(\d+)\s*\|`).FindAllStringSubmatch(description, -1)
	require.Len(t, rows, len(api.ErrorCodes()), "one table row per code")
	for i, code := range api.ErrorCodes() {
		assert.Equal(t, strconv.Itoa(int(code)), rows[i][1], "row %d", i)
		assert.Equal(t, rows[i][2], code.String(), "the name of code %d", code)
		assert.Equal(t, rows[i][3], strconv.Itoa(code.HTTPStatus()), "the HTTP status of code %d", code)
	}
}

// A request's secret (a `format: password` field, api.SecretString) travels as it is and prints
// redacted with every verb, inside the request and through slog.
func TestSecretStringPrintsRedacted(t *testing.T) {
	const secret = "whsec_65JvPhZ65V/KmuUQqzwjtfW5Qo7moBkeoNcP6q4hBNE="
	req := api.WebhookEndpointCreateRequest{URL: "https://merchant.example.org/h", Events: []api.EventType{api.EventTypePayoutSuccess}, Secret: secret}
	rot := api.RotateSecretRequest{Secret: secret}
	wire, err := json.Marshal(req)
	require.NoError(t, err)
	assert.Contains(t, string(wire), `"secret":"`+secret+`"`, "the wire form is the value")
	assert.Equal(t, secret, string(req.Secret))
	for _, v := range []any{req, &req, rot, &rot, req.Secret, []api.SecretString{secret}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, secret[6:16], "%s of %T", verb, v)
			assert.NotContains(t, out, fmt.Sprintf("%x", secret[6:16]), "%s of %T", verb, v)
		}
	}
	assert.Contains(t, fmt.Sprintf("%+v", req), "Secret:[redacted]")
	assert.Empty(t, api.SecretString("").String(), "no secret prints as nothing")
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("create", "req", req, "secret", req.Secret)
	assert.NotContains(t, logs.String(), secret[6:16])
	assert.Contains(t, logs.String(), `"secret":"[redacted]"`)
}
