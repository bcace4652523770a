// Package strict proves that the strict server oapi-codegen generates from openapi/malipo.yaml
// (std-http, tools/clientcheck/strict-server.yaml) is usable as an implementer would use it: the
// generated interface can be implemented, its typed responses carry the document's envelopes, and
// the handler mounts on a net/http ServeMux. `make clients` generates ./gen and builds this.
package strict

import (
	"context"
	"net/http"

	"github.com/malipo/terraform-provider-malipo/tools/clientcheck/strict/gen"
)

// server implements one operation; the embedded interface stands for the others, as a stub does
// while an implementation grows.
type server struct{ gen.StrictServerInterface }

// ListCountries answers the document's envelope, and the optional RateLimit fields, through the
// generated response type (a body and the response's headers, since the document declares headers).
func (server) ListCountries(context.Context, gen.ListCountriesRequestObject) (gen.ListCountriesResponseObject, error) {
	limit, remaining, reset := int32(100), int32(99), int32(60)
	return gen.ListCountries200JSONResponse{
		Body: gen.CountryListResponse{Status: gen.SuccessStatusSuccess, Code: gen.N0, Message: "ok",
			Data: []gen.Country{{Id: "ctry_zm", Name: "Zambia", CountryCode: "ZM", CurrencyCode: "ZMW"}}},
		Headers: gen.ListCountries200ResponseHeaders{RateLimitLimit: &limit, RateLimitRemaining: &remaining, RateLimitReset: &reset},
	}, nil
}

// Handler mounts the strict server on a ServeMux.
func Handler() http.Handler {
	mux := http.NewServeMux()
	return gen.HandlerFromMux(gen.NewStrictHandler(server{}, nil), mux)
}
