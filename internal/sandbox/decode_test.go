package sandbox

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// decode must give a handler exactly what json.Unmarshal of the same bytes would: the handlers were
// written against encoding/json's rules.
func TestDecodeAgreesWithJSONUnmarshal(t *testing.T) {
	bodies := []string{
		`{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"b","account_number":"1","narration":"n","reference":"r","webhook_url":"https://x.example/h"}`,
		`{"AMOUNT":7,"CountryID":"ctry_gh","unknown":{"deep":[1,2]},"narration":null}`,
		`{"url":"https://x.example/h","events":["payout.success","payment.failed"],"description":"","enabled":false}`,
		`{"url":null,"events":[],"description":null}`,
		`{"grace_period_seconds":0}`,
		`{"currency":"ZMW","amount":150.5,"redirect_url":"","phone_number":"x"}`,
		`{"redirect_url":null}`,
	}
	for _, body := range bodies {
		check := func(newValue func() any) {
			want, got := newValue(), newValue()
			value, err := parseBody([]byte(body))
			require.NoError(t, err, body)
			terr := assign(reflectElem(got), value)
			if err := json.Unmarshal([]byte(body), want); err != nil {
				assert.NotNil(t, terr, "json.Unmarshal refuses %s into %T (%v), so must decode", body, want, err)
				return
			}
			require.Nil(t, terr, body)
			assert.Equal(t, want, got, body)
		}
		check(func() any { return &api.BankPayoutRequest{} })
		check(func() any { return &api.MobileMoneyPayoutRequest{} })
		check(func() any { return &api.PaymentInitRequest{} })
		check(func() any { return &api.PaymentCompleteRequest{} })
		check(func() any { return &api.WebhookEndpointCreateRequest{} })
		check(func() any { return &api.WebhookEndpointUpdateRequest{} })
		check(func() any { return &api.RotateSecretRequest{} })
	}
}

func TestDecodeNamesTheFieldGoCannotHold(t *testing.T) {
	cases := map[string][2]string{
		`{"amount":1e30}`:                {"/amount", "number 1e30"},
		`{"amount":"12"}`:                {"/amount", "string"},
		`{"countryId":5}`:                {"/countryId", "number 5"},
		`{"amount":1.5}`:                 {"/amount", "number 1.5"},
		`{"amount":9223372036854775808}`: {"/amount", "number 9223372036854775808"},
	}
	for body, want := range cases {
		value, err := parseBody([]byte(body))
		require.NoError(t, err)
		var in api.BankPayoutRequest
		terr := assign(reflectElem(&in), value)
		require.NotNil(t, terr, body)
		assert.Equal(t, want[0], terr.field, body)
		assert.Equal(t, want[1], terr.got, body)
	}
	value, err := parseBody([]byte(`{"events":["a",3]}`))
	require.NoError(t, err)
	var in api.WebhookEndpointCreateRequest
	terr := assign(reflectElem(&in), value)
	require.NotNil(t, terr)
	assert.Equal(t, "/events/1", terr.field)
}

func TestParseBodyAcceptsExactlyOneValue(t *testing.T) {
	for _, bad := range []string{`{`, `{"a":1}}`, `{"a":1} {}`, `{"a":1}x`, `nul`, `{"a":}`} {
		_, err := parseBody([]byte(bad))
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "at byte", bad)
		assert.False(t, json.Valid([]byte(bad)), "encoding/json agrees that %s is not JSON", bad)
	}
	v, err := parseBody([]byte(" {\"n\":1.50}\n "))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"n": json.Number("1.50")}, v, "numbers are kept as written")
}

func reflectElem(ptr any) reflect.Value { return reflect.ValueOf(ptr).Elem() }
