// Command bare is the floor `make bench-http` compares the sandbox with: a plain net/http server that
// does the least a payout API must, and nothing of the contract. A POST decodes the body into a struct
// with the fields of a bank payout request and answers 201 with a payout encoded from it; a GET
// answers 200 with a fixed country list, encoded once at start-up (as the sandbox does). No routing,
// authentication, validation, idempotency, storage or logging.
//
// Usage: bare -addr 127.0.0.1:0; it prints "listening on http://ADDR" once it serves.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

// payoutRequest has the fields of the document's BankPayoutRequest.
type payoutRequest struct {
	Amount        int64  `json:"amount"`
	CountryID     string `json:"countryId"`
	TransferTo    string `json:"transfer_to"`
	BankID        string `json:"bank_id"`
	AccountNumber string `json:"account_number"`
	Narration     string `json:"narration,omitempty"`
	Reference     string `json:"reference,omitempty"`
	WebhookURL    string `json:"webhook_url,omitempty"`
}

type payout struct {
	payoutRequest
	PayoutID  string    `json:"payout_id"`
	Currency  string    `json:"currency"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

type envelope struct {
	Status  string `json:"status"`
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data"`
}

type country struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	CountryCode  string `json:"country_code"`
	CurrencyCode string `json:"currency_code"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "host:port to listen on")
	flag.Parse()
	countries, err := json.Marshal(envelope{Status: "success", Message: "Countries retrieved", Data: []country{
		{"ctry_zm", "Zambia", "ZM", "ZMW"}, {"ctry_gh", "Ghana", "GH", "GHS"}, {"ctry_ke", "Kenya", "KE", "KES"},
		{"ctry_ug", "Uganda", "UG", "UGX"}, {"ctry_rw", "Rwanda", "RW", "RWF"}, {"ctry_tz", "Tanzania", "TZ", "TZS"},
		{"ctry_mw", "Malawi", "MW", "MWK"},
	}})
	if err != nil {
		log.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			_, _ = w.Write(countries)
			return
		}
		var in payoutRequest
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var id [8]byte
		_, _ = rand.Read(id[:])
		now := time.Now().UTC().Truncate(time.Second)
		out, _ := json.Marshal(envelope{Status: "success", Message: "Payout is processing", Data: payout{
			payoutRequest: in, PayoutID: "po_" + hex.EncodeToString(id[:]), Currency: "ZMW", Status: "processing",
			CreatedAt: now, UpdatedAt: now,
		}})
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(out)
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "listening on http://%s\n", ln.Addr())
	log.Fatal((&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}).Serve(ln))
}
