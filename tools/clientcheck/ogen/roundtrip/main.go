// Command roundtrip drives a running implementation of the API with the client ogen generates from
// openapi/malipo.yaml (tools/clientcheck/ogen/gen), as a merchant would, the same round trip as the
// oapi-codegen client's: list countries and banks, create a bank payout and payments with large
// two-decimal amounts, read each back, and require every amount unchanged, decoded and on the wire.
// ogen validates every response it decodes, so it also proves the sandbox's answers are what the
// document says.
//
// Then it lists events from EVENTS_URL (tools/interop/fake-events.mjs), a page holding event types this
// version of the document does not declare, and requires the whole page decoded: the Events tag
// promises new types without a new API version. Last, the generated server: an ogen server (one
// operation implemented) answers the ogen client over loopback, which proves the server side compiles
// and speaks the document too. `make interop` runs it (tools/interop/run-ogen.sh).
//
//	go run ./clientcheck/ogen/roundtrip BASE_URL PUBLIC_KEY SECRET_KEY EVENTS_URL
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/tools/clientcheck/ogen/gen"
)

// amounts: the same as the oapi-codegen round trip's (tools/clientcheck/go/roundtrip).
var amounts = []string{"987654321.12", "999999999999.99", "1000000000000", "2188118558.01", "0.01", "150.5", "1234567.89"}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: roundtrip BASE_URL PUBLIC_KEY SECRET_KEY EVENTS_URL")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys := keys{public: os.Args[2], secret: os.Args[3]}
	for _, step := range []struct {
		name string
		run  func() error
	}{
		{"round trip against " + os.Args[1], func() error { return roundTrip(ctx, os.Args[1], keys) }},
		{"unknown event types from " + os.Args[4], func() error { return unknownEvents(ctx, os.Args[4], keys) }},
		{"generated server", func() error { return server(ctx, keys) }},
	} {
		if err := step.run(); err != nil {
			fmt.Fprintf(os.Stderr, "ogen client: %s: %v\n", step.name, err)
			os.Exit(1)
		}
	}
}

// keys is the generated client's SecuritySource: the merchant's two API keys.
type keys struct{ public, secret string }

func (k keys) PublicKey(context.Context, gen.OperationName) (gen.PublicKey, error) {
	return gen.PublicKey{APIKey: k.public}, nil
}

func (k keys) SecretKey(context.Context, gen.OperationName) (gen.SecretKey, error) {
	return gen.SecretKey{APIKey: k.secret}, nil
}

// recorder keeps the body of the last response, so that an amount can be compared as the server wrote it.
type recorder struct {
	mu   sync.Mutex
	last []byte
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.last = b
	r.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

func (r *recorder) lastAmount() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var env struct {
		Data struct {
			Amount json.RawMessage `json:"amount"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.last, &env); err != nil {
		return "(not an envelope)"
	}
	return string(env.Data.Amount)
}

func roundTrip(ctx context.Context, baseURL string, k keys) error {
	rec := &recorder{}
	c, err := gen.NewClient(baseURL, k, gen.WithClient(rec))
	if err != nil {
		return err
	}
	countriesRes, err := c.ListCountries(ctx)
	if err != nil {
		return fmt.Errorf("list countries: %w", err)
	}
	countriesWithHeaders, ok := countriesRes.(*gen.CountryListResponseHeaders)
	if !ok || len(countriesWithHeaders.Response.Data) == 0 {
		return fmt.Errorf("list countries: got %T", countriesRes)
	}
	// The sandbox limits request rates, so it sends the RateLimit fields the document declares, and
	// ogen hands them to the caller.
	if limit, ok := countriesWithHeaders.RateLimitLimit.Get(); !ok || limit < 1 {
		return fmt.Errorf("list countries: no RateLimit-Limit decoded (%+v)", countriesWithHeaders.RateLimitLimit)
	}
	countries := countriesWithHeaders.Response
	country := countries.Data[0]
	banksRes, err := c.ListBanks(ctx, gen.ListBanksParams{Country: country.CountryCode})
	if err != nil {
		return fmt.Errorf("list banks of %s: %w", country.CountryCode, err)
	}
	banksWithHeaders, ok := banksRes.(*gen.BankListResponseHeaders)
	if !ok || len(banksWithHeaders.Response.Data) == 0 {
		return fmt.Errorf("list banks of %s: got %T", country.CountryCode, banksRes)
	}
	banks := banksWithHeaders.Response

	payout := gen.NewBankPayoutRequestPayoutRequest(gen.BankPayoutRequest{Amount: 987654321, CountryId: country.ID,
		TransferTo: gen.BankPayoutRequestTransferToBank, BankID: banks.Data[0].ID, AccountNumber: "0000000001"})
	createdRes, err := c.ProcessPayout(ctx, payout, gen.ProcessPayoutParams{})
	if err != nil {
		return fmt.Errorf("create a bank payout: %w", err)
	}
	created, ok := createdRes.(*gen.PayoutResponseHeaders)
	if !ok {
		return fmt.Errorf("create a bank payout: got %T", createdRes)
	}
	readRes, err := c.GetPayout(ctx, gen.GetPayoutParams{PayoutID: created.Response.Data.PayoutID})
	if err != nil {
		return fmt.Errorf("read the payout back: %w", err)
	}
	if read, ok := readRes.(*gen.GetPayoutOKHeaders); !ok || read.Response.Data.Amount != 987654321 {
		return fmt.Errorf("read the payout back: got %T %+v", readRes, readRes)
	}

	hook, err := url.Parse("https://merchant.example.org/hooks/malipo")
	if err != nil {
		return err
	}
	for _, text := range amounts {
		amount, _ := strconv.ParseFloat(text, 64)
		initRes, err := c.InitializePayment(ctx, &gen.PaymentInitRequest{
			Amount: gen.PaymentAmount(amount), Country: country.CountryCode, Currency: country.CurrencyCode,
			Method: gen.PaymentMethodMobilemoney, Narration: gen.Narration("ogen round trip " + text), WebhookURL: gen.WebhookURL(*hook),
		}, gen.InitializePaymentParams{})
		if err != nil {
			return fmt.Errorf("initialize a payment of %s: %w", text, err)
		}
		init, ok := initRes.(*gen.PaymentResponseHeaders)
		if !ok {
			return fmt.Errorf("initialize a payment of %s: got %T", text, initRes)
		}
		if got := rec.lastAmount(); got != text || float64(init.Response.Data.Amount) != amount {
			return fmt.Errorf("initialize a payment of %s: the response says %s", text, got)
		}
		statusRes, err := c.GetTransactionStatus(ctx, gen.GetTransactionStatusParams{Reference: gen.ObjectReference(init.Response.Data.PaymentReference)})
		if err != nil {
			return fmt.Errorf("read the payment of %s back: %w", text, err)
		}
		status, ok := statusRes.(*gen.TransactionResponseHeaders)
		if !ok {
			return fmt.Errorf("read the payment of %s back: got %T", text, statusRes)
		}
		if got := rec.lastAmount(); got != text || status.Response.Data.Amount != amount {
			return fmt.Errorf("the payment of %s reads back as %s", text, got)
		}
	}
	fmt.Printf("ogen client: %d countries, %d banks of %s, a bank payout and %d payments round-tripped with every amount unchanged\n",
		len(countries.Data), len(banks.Data), country.CountryCode, len(amounts))
	return nil
}

// unknownEvents lists a page holding types the document does not declare: all three events must
// decode, the unknown types as they were sent, their payloads' data whole, and the declared one as
// before.
func unknownEvents(ctx context.Context, eventsURL string, k keys) error {
	c, err := gen.NewClient(eventsURL, k)
	if err != nil {
		return err
	}
	res, err := c.ListEvents(ctx, gen.ListEventsParams{})
	if err != nil {
		return fmt.Errorf("list events: %w", err)
	}
	page, ok := res.(*gen.EventListResponseHeaders)
	if !ok {
		return fmt.Errorf("list events: got %T", res)
	}
	var types []string
	for _, e := range page.Response.Data.Items {
		types = append(types, string(e.Type))
		if e.Payload.Type != e.Type || len(e.Payload.Data["object"]) == 0 {
			return fmt.Errorf("event %s (%s): the payload lost its type or data.object: %+v", e.ID, e.Type, e.Payload)
		}
	}
	want := []string{"refund.succeeded", "payout.reversed", "payout.failed"}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		return fmt.Errorf("decoded the types %v, want %v", types, want)
	}
	fmt.Printf("ogen client: an event page holding 2 unknown types (%s, %s) and %s decoded whole\n", want[0], want[1], want[2])
	return nil
}

// handler implements one operation of the generated server; the others answer ogen's "not implemented".
type handler struct{ gen.UnimplementedHandler }

func (handler) ListCountries(context.Context) (gen.ListCountriesRes, error) {
	return &gen.CountryListResponseHeaders{
		Response: gen.CountryListResponse{Status: gen.SuccessStatusSuccess, Code: gen.SuccessCode0, Message: "ok",
			Data: []gen.Country{{ID: "ctry_zm", Name: "Zambia", CountryCode: "ZM", CurrencyCode: "ZMW"}}},
		RateLimitLimit: gen.NewOptInt32(100), RateLimitRemaining: gen.NewOptInt32(99), RateLimitReset: gen.NewOptInt32(60),
	}, nil
}

// security accepts exactly the keys the client was given.
type security struct{ k keys }

var errKeys = errors.New("wrong keys")

func (s security) HandlePublicKey(ctx context.Context, _ gen.OperationName, t gen.PublicKey) (context.Context, error) {
	if t.APIKey != s.k.public {
		return ctx, errKeys
	}
	return ctx, nil
}

func (s security) HandleSecretKey(ctx context.Context, _ gen.OperationName, t gen.SecretKey) (context.Context, error) {
	if t.APIKey != s.k.secret {
		return ctx, errKeys
	}
	return ctx, nil
}

func server(ctx context.Context, k keys) error {
	srv, err := gen.NewServer(handler{}, security{k})
	if err != nil {
		return err
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, err := gen.NewClient(ts.URL, k)
	if err != nil {
		return err
	}
	res, err := c.ListCountries(ctx)
	if err != nil {
		return fmt.Errorf("list countries from the generated server: %w", err)
	}
	if got, ok := res.(*gen.CountryListResponseHeaders); !ok || len(got.Response.Data) != 1 || got.Response.Data[0].CountryCode != "ZM" ||
		got.RateLimitRemaining.Or(0) != 99 {
		return fmt.Errorf("list countries from the generated server: got %T %+v", res, res)
	}
	fmt.Println("ogen server: the generated server answered the generated client (list countries)")
	return nil
}
