package openapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The targets behind these numbers: full request + response validation of a payout under 50 µs, next
// to a plain json.Unmarshal of the same bodies for scale.

func payoutRequest() *http.Request {
	r, _ := http.NewRequest(http.MethodPost, base+"/v1/payment/payouts/process", strings.NewReader(bankPayout))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("public-key", "pk_test")
	r.Header.Set("secret-key", "sk_test")
	return r
}

var payoutResponseBody = `{"status":"success","code":0,"message":"Payout is processing","data":` + payoutData + `}`

func payoutResponse() *http.Response {
	return &http.Response{StatusCode: 201, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(payoutResponseBody))}
}

func BenchmarkValidatePayoutRequest(b *testing.B) {
	inBothModes(b, func(b *testing.B, s *openapi.Spec) {
		for b.Loop() {
			if vs := s.ValidateRequest(payoutRequest()); len(vs) > 0 {
				b.Fatal(vs)
			}
		}
	})
}

func BenchmarkValidatePayoutResponse(b *testing.B) {
	r := payoutRequest()
	inBothModes(b, func(b *testing.B, s *openapi.Spec) {
		for b.Loop() {
			if vs := s.ValidateResponse(r, payoutResponse()); len(vs) > 0 {
				b.Fatal(vs)
			}
		}
	})
}

// BenchmarkValidatePayoutRequestAndResponse is the figure the target is about: < 50 µs.
func BenchmarkValidatePayoutRequestAndResponse(b *testing.B) {
	inBothModes(b, func(b *testing.B, s *openapi.Spec) {
		for b.Loop() {
			r := payoutRequest()
			if vs := s.ValidateRequest(r); len(vs) > 0 {
				b.Fatal(vs)
			}
			if vs := s.ValidateResponse(r, payoutResponse()); len(vs) > 0 {
				b.Fatal(vs)
			}
		}
	})
}

func BenchmarkValidateGetPayoutRequest(b *testing.B) {
	inBothModes(b, func(b *testing.B, s *openapi.Spec) {
		for b.Loop() {
			r, _ := http.NewRequest(http.MethodGet, base+"/v1/payment/payouts/po_8f3a2c1d9b7e4a60", nil)
			r.Header.Set("public-key", "pk_test")
			r.Header.Set("secret-key", "sk_test")
			if vs := s.ValidateRequest(r); len(vs) > 0 {
				b.Fatal(vs)
			}
		}
	})
}

// inBothModes runs f as two sub-benchmarks: with the fast path (the default) and with
// libopenapi-validator alone.
func inBothModes(b *testing.B, f func(b *testing.B, s *openapi.Spec)) {
	for _, m := range modes(b)[:2] { // fast and validator; reworded messages cost the same as validator
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			f(b, m.spec)
		})
	}
}

func BenchmarkValidateInvalidPayoutRequest(b *testing.B) {
	s := spec(b)
	b.ReportAllocs()
	for b.Loop() {
		r, _ := http.NewRequest(http.MethodPost, base+"/v1/payment/payouts/process",
			strings.NewReader(`{"amount":0,"countryId":"ctry_zm","transfer_to":"bank"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("public-key", "pk_test")
		r.Header.Set("secret-key", "sk_test")
		if vs := s.ValidateRequest(r); len(vs) == 0 {
			b.Fatal("invalid request passed")
		}
	}
}

func BenchmarkUnmarshalPayoutRequest(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal([]byte(bankPayout), &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalPayoutResponse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal([]byte(payoutResponseBody), &v); err != nil {
			b.Fatal(err)
		}
	}
}
