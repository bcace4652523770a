// Command client pays out with the Malipo Go client from a module of its own, as a merchant's backend
// would: it finds a country and a bank payouts can go to, sends a bank payout to an account, and
// follows the payout to its final status.
//
//	malipo sandbox &     # or any implementation of the API
//	cd examples/client && go run .
//
// MALIPO_BASE_URL names the service (default: a local `malipo sandbox`); MALIPO_PUBLIC_KEY and
// MALIPO_SECRET_KEY hold the keys (default: the sandbox's); MALIPO_ACCOUNT is the bank account to pay.
// Against the sandbox an account number decides the outcome: the document lists them under
// x-malipo-test-values (which `malipo sandbox` prints at start, docs/sandbox.md), and the one marked success is credited.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "client example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	c, err := client.New(env("MALIPO_BASE_URL", "http://127.0.0.1:8080"),
		env("MALIPO_PUBLIC_KEY", "pk_test_malipo_sandbox"), env("MALIPO_SECRET_KEY", "sk_test_malipo_sandbox"),
		client.WithRequestTimeout(10*time.Second))
	if err != nil {
		return err
	}
	country, bank, err := firstBank(ctx, c)
	if err != nil {
		return err
	}
	account := os.Getenv("MALIPO_ACCOUNT")
	if account == "" {
		return errors.New("set MALIPO_ACCOUNT to the bank account to pay; against the sandbox, the test value marked success (x-malipo-test-values)")
	}
	payout, err := c.ProcessPayout(ctx, client.BankPayout{Amount: 2500, CountryID: country.ID, BankID: bank.ID,
		AccountNumber: account, Reference: fmt.Sprintf("example-%d", time.Now().UnixNano())})
	switch {
	case client.IsConflict(err):
		return fmt.Errorf("the reference or the Idempotency-Key was used before: %w", err)
	case err != nil:
		return fmt.Errorf("process payout: %w", err)
	}
	fmt.Printf("created: %+v\n", *payout)

	deadline := time.Now().Add(30 * time.Second)
	for payout.Status == api.PayoutStatusProcessing {
		if time.Now().After(deadline) {
			return errors.New("the payout is still processing after 30 s")
		}
		time.Sleep(200 * time.Millisecond)
		if payout, err = c.GetPayout(ctx, payout.PayoutID); err != nil {
			return fmt.Errorf("get payout: %w", err)
		}
	}
	fmt.Printf("final: %s %+v\n", payout.Status, *payout)
	return nil
}

// firstBank returns the first country payouts can go to that has a bank, and that bank.
func firstBank(ctx context.Context, c *client.Client) (client.Country, client.Bank, error) {
	countries, err := c.ListCountries(ctx)
	if err != nil {
		return client.Country{}, client.Bank{}, fmt.Errorf("list countries: %w", err)
	}
	for _, country := range countries {
		banks, err := c.ListBanks(ctx, country.CountryCode)
		if err != nil {
			return client.Country{}, client.Bank{}, fmt.Errorf("list the banks of %s: %w", country.CountryCode, err)
		}
		if len(banks) > 0 {
			fmt.Printf("paying out to %s, bank %s\n", country.Name, banks[0].Name)
			return country, banks[0], nil
		}
	}
	return client.Country{}, client.Bank{}, errors.New("no country payouts can go to has a bank")
}

// env returns the environment variable name, or def when it is unset.
func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
