package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// fakeService answers two operations the way a Malipo implementation does, so that the examples run
// without one; point client.New at `malipo sandbox` (http://127.0.0.1:8080) or a live service instead.
func fakeService() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == api.OpListCountries().Method && r.URL.Path == api.OpListCountries().URL():
			_, _ = io.WriteString(w, `{"status":"success","code":0,"message":"Countries.","data":[`+
				`{"id":"cty_zm","name":"Zambia","country_code":"ZM","currency_code":"ZMW"}]}`)
		default:
			w.WriteHeader(api.CodeNotFound.HTTPStatus())
			_, _ = fmt.Fprintf(w, `{"status":"error","code":%d,"message":"No such payout.","errors":[]}`, api.CodeNotFound)
		}
	}))
}

func Example() {
	srv := fakeService()
	defer srv.Close()

	c, err := client.New(srv.URL, "pk_test_example", "sk_test_example")
	if err != nil {
		fmt.Println(err)
		return
	}
	countries, err := c.ListCountries(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, country := range countries {
		fmt.Println(country.CountryCode, country.CurrencyCode, country.Name)
	}
	// Output: ZM ZMW Zambia
}

// Errors from the service are *client.APIError values; the Is* helpers and errors.As tell them apart.
func ExampleAPIError() {
	srv := fakeService()
	defer srv.Close()

	c, _ := client.New(srv.URL, "pk_test_example", "sk_test_example")
	_, err := c.GetPayout(context.Background(), "po_missing")
	var apiErr *client.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, client.IsNotFound(err))
	}
	// Output: 404 not_found true
}
