package openapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// ValidateParsed, given the route and the parsed body, must judge a request as ValidateRequest judges
// it from the raw request, apart from the key headers it leaves to the caller.
func TestValidateParsedAgreesWithValidateRequest(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	payout := api.OpProcessPayout()
	bodies := []string{
		`{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":"12345678"}`,
		`{"amount":2500.0,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":"12345678"}`,
		`{"amount":0,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":"12345678"}`,
		`{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank"}`,
		`{"amount":2500,"countryId":"ctry_zm","transfer_to":"wire"}`,
		`{"amount":1e400,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"b","account_number":"1"}`,
		`[]`,
	}
	invalid := 0
	for _, body := range bodies {
		raw := newRequest(t, payout.Method, payout.URL(), body)
		want := spec.ValidateRequest(raw)
		if len(want) > 0 {
			invalid++
		}

		r := newRequest(t, payout.Method, payout.URL(), body)
		op, _, _ := spec.Route(r.Method, r.URL.Path)
		require.NotNil(t, op)
		dec := json.NewDecoder(bytes.NewReader([]byte(body)))
		dec.UseNumber()
		var value any
		require.NoError(t, dec.Decode(&value))
		got := spec.ValidateParsed(op, r, []byte(body), value)
		assert.Equal(t, pointers(want), pointers(got), body)
	}
	assert.Equal(t, 5, invalid, "the bodies after the first two are invalid, so both paths are compared on refusals too")
}

func newRequest(t *testing.T, method, url, body string) *http.Request {
	r, err := http.NewRequest(method, "http://sandbox.test"+url, bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(api.HeaderPublicKey, "pk")
	r.Header.Set(api.HeaderSecretKey, "sk")
	return r
}

func pointers(vs openapi.Violations) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.In+" "+v.Pointer)
	}
	return out
}
