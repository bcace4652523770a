// Command roundtrip drives a running implementation of the API with the client oapi-codegen generates
// from openapi/malipo.yaml with its default configuration, as a merchant would: list countries and
// banks, create a bank payout and payments with large two-decimal amounts, read each back through the
// status APIs, and require every amount unchanged, decoded and on the wire. Then it lists events from
// EVENTS_URL (tools/interop/fake-events.mjs), a page holding event types this version of the document
// does not declare, and requires the whole page decoded, as the Events tag promises. `make interop`
// runs it against `malipo sandbox` (tools/interop/run-oapi-codegen.sh).
//
//	go run ./clientcheck/go/roundtrip BASE_URL PUBLIC_KEY SECRET_KEY EVENTS_URL
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"time"

	clientcheck "github.com/malipo/terraform-provider-malipo/tools/clientcheck/go"
	"github.com/malipo/terraform-provider-malipo/tools/clientcheck/go/gen"
)

// amounts are sent as float64 (what the generated PaymentAmount is) and must come back as the same
// text: the largest two-decimal amount below the maximum, the amount that float32 turned into
// 987654340, and amounts whose x*100 is not an integer in binary floating point.
var amounts = []string{"987654321.12", "999999999999.99", "1000000000000", "2188118558.01", "0.01", "150.5", "1234567.89"}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: roundtrip BASE_URL PUBLIC_KEY SECRET_KEY EVENTS_URL")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "oapi-codegen client:", err)
		os.Exit(1)
	}
	if err := unknownEvents(os.Args[4], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "oapi-codegen client: unknown event types:", err)
		os.Exit(1)
	}
}

// unknownEvents lists a page holding types the document does not declare: all three events must
// decode, the unknown types as they were sent, their payloads' data whole, and the declared one as
// before.
func unknownEvents(eventsURL, publicKey, secretKey string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := gen.NewClientWithResponses(eventsURL, gen.WithRequestEditorFn(clientcheck.Keys(publicKey, secretKey)))
	if err != nil {
		return err
	}
	res, err := c.ListEventsWithResponse(ctx, &gen.ListEventsParams{})
	if err != nil || res.JSON200 == nil {
		return fmt.Errorf("list events: %v %s", err, body(res))
	}
	var types []string
	for _, e := range res.JSON200.Data.Items {
		types = append(types, e.Type)
		if e.Payload.Type != e.Type || e.Payload.Data["object"] == nil {
			return fmt.Errorf("event %s (%s): the payload lost its type or data.object: %+v", e.Id, e.Type, e.Payload)
		}
	}
	want := []string{"refund.succeeded", "payout.reversed", "payout.failed"}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		return fmt.Errorf("decoded the types %v, want %v", types, want)
	}
	fmt.Printf("oapi-codegen client: an event page holding 2 unknown types (%s, %s) and %s decoded whole\n", want[0], want[1], want[2])
	return nil
}

func run(baseURL, publicKey, secretKey string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := gen.NewClientWithResponses(baseURL, gen.WithRequestEditorFn(clientcheck.Keys(publicKey, secretKey)))
	if err != nil {
		return err
	}
	countries, err := c.ListCountriesWithResponse(ctx)
	if err != nil || countries.JSON200 == nil || len(countries.JSON200.Data) == 0 {
		return fmt.Errorf("list countries: %v %s", err, body(countries))
	}
	country := countries.JSON200.Data[0]
	banks, err := c.ListBanksWithResponse(ctx, &gen.ListBanksParams{Country: country.CountryCode})
	if err != nil || banks.JSON200 == nil || len(banks.JSON200.Data) == 0 {
		return fmt.Errorf("list banks of %s: %v %s", country.CountryCode, err, body(banks))
	}

	var payout gen.PayoutRequest
	if err := payout.FromBankPayoutRequest(gen.BankPayoutRequest{Amount: 987654321, CountryId: country.Id,
		TransferTo: gen.BankPayoutRequestTransferToBank, BankId: banks.JSON200.Data[0].Id, AccountNumber: "0000000001"}); err != nil {
		return err
	}
	created, err := c.ProcessPayoutWithResponse(ctx, &gen.ProcessPayoutParams{}, payout)
	if err != nil || created.JSON201 == nil {
		return fmt.Errorf("create a bank payout: %v %s", err, body(created))
	}
	read, err := c.GetPayoutWithResponse(ctx, created.JSON201.Data.PayoutId)
	if err != nil || read.JSON200 == nil || read.JSON200.Data.Amount != 987654321 {
		return fmt.Errorf("read the payout back: %v %s", err, body(read))
	}

	for _, text := range amounts {
		amount, _ := strconv.ParseFloat(text, 64)
		init, err := c.InitializePaymentWithResponse(ctx, &gen.InitializePaymentParams{}, gen.PaymentInitRequest{
			Amount: amount, Country: country.CountryCode, Currency: country.CurrencyCode, Method: gen.MobileMoney,
			Narration: "oapi-codegen round trip " + text, WebhookUrl: "https://merchant.example.org/hooks/malipo"})
		if err != nil || init.JSON201 == nil {
			return fmt.Errorf("initialize a payment of %s: %v %s", text, err, body(init))
		}
		if got := rawAmount(init.Body); got != text || init.JSON201.Data.Amount != amount {
			return fmt.Errorf("initialize a payment of %s: the response says %s", text, got)
		}
		status, err := c.GetTransactionStatusWithResponse(ctx, init.JSON201.Data.PaymentReference)
		if err != nil || status.JSON200 == nil {
			return fmt.Errorf("read the payment of %s back: %v %s", text, err, body(status))
		}
		if got := rawAmount(status.Body); got != text || status.JSON200.Data.Amount != amount {
			return fmt.Errorf("the payment of %s reads back as %s", text, got)
		}
	}
	fmt.Printf("oapi-codegen client (default configuration): %d countries, %d banks of %s, a bank payout and %d payments round-tripped with every amount unchanged\n",
		len(countries.JSON200.Data), len(banks.JSON200.Data), country.CountryCode, len(amounts))
	return nil
}

// rawAmount is the JSON text of data.amount in an envelope, exactly as the server sent it.
func rawAmount(b []byte) string {
	var env struct {
		Data struct {
			Amount json.RawMessage `json:"amount"`
		} `json:"data"`
	}
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&env); err != nil {
		return "(not an envelope)"
	}
	return string(env.Data.Amount)
}

// body shows what came back when a call failed.
func body(r interface{ StatusCode() int }) string {
	if r == nil || reflect.ValueOf(r).IsNil() {
		return "(no response)"
	}
	return "HTTP " + strconv.Itoa(r.StatusCode())
}
