package links_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests/links"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// TestRuntimeExpressions evaluates each form of OpenAPI runtime expression a link may give.
func TestRuntimeExpressions(t *testing.T) {
	rec := &links.Record{
		PathParams: map[string]string{"payment_reference": "pay_1"},
		Query:      map[string][]string{"country": {"ZM"}},
		Header:     http.Header{"X-Trace": {"t1"}},
		Body:       map[string]any{"reference": "ref/1", "amount": 150.55, "nested": map[string]any{"a~b": "tilde"}},
		Response: links.Response{Method: "POST", URL: "/v1/payment/pay_1/complete", Status: 202, Header: http.Header{"Location": {"/v1/x"}},
			JSON: map[string]any{"data": map[string]any{"paymentReference": "pay_1", "items": []any{"first"}}}},
	}
	for expr, want := range map[string]any{
		"constant":                              "constant",
		"$url":                                  "/v1/payment/pay_1/complete",
		"$method":                               "POST",
		"$statusCode":                           "202",
		"$request.path.payment_reference":       "pay_1",
		"$request.query.country":                "ZM",
		"$request.header.x-trace":               "t1",
		"$request.body#/reference":              "ref/1",
		"$request.body#/amount":                 150.55,
		"$request.body#/nested/a~0b":            "tilde",
		"$response.header.Location":             "/v1/x",
		"$response.body#/data/paymentReference": "pay_1",
		"$response.body#/data/items/0":          "first",
	} {
		got, err := links.Eval(expr, rec)
		require.NoError(t, err, expr)
		assert.Equal(t, want, got, expr)
	}
	for expr, want := range map[string]string{
		"$response.body#/data/missing": `the response body has no value at "/data/missing"`,
		"$request.path.other":          `the request has no path "other"`,
		"$response.path.x":             "is not a runtime expression",
		"$inputs.x":                    "starts with neither",
	} {
		_, err := links.Eval(expr, rec)
		require.Error(t, err, expr)
		assert.Contains(t, err.Error(), want, expr)
	}
	assert.Equal(t, "150.55", links.ParamString(150.55))
}

// TestLinkParameterLocations: a link parameter goes where its qualifier says, else where the target
// operation declares it.
func TestLinkParameterLocations(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	status, ok := spec.Operation(api.OpGetTransactionStatus().ID)
	require.True(t, ok)
	banks, ok := spec.Operation(api.OpListBanks().ID)
	require.True(t, ok)
	for _, tc := range []struct {
		op              *openapi.Operation
		param, in, name string
	}{
		{status, "reference", "path", "reference"},
		{status, "path.reference", "path", "reference"},
		{banks, "country", "query", "country"},
		{banks, "header.x-trace", "header", "x-trace"},
	} {
		in, name := links.ParamLocation(tc.op, tc.param)
		assert.Equal(t, []string{tc.in, tc.name}, []string{in, name}, "%s of %s", tc.param, tc.op.ID)
	}
}
