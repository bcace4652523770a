package provider

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"weak"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// A payout's destination is checked during plan against the API's reference data: country_id must be
// the id of one of its countries, and a bank payout's bank_id one of that country's banks. The service
// checks the same when the payout is sent; checking in the plan moves the mistake to where it is
// reviewed, before anything is applied (a replacement would otherwise forget the old payout first).

// referenceData holds the countries and banks one provider instance has read, so that a plan of many
// payouts reads the countries once and the banks of each country once, however many payouts name them
// and however many of them Terraform plans at the same time. A failed read is kept too: the plan then
// warns on every payout without asking the API again.
type referenceData struct {
	mu       sync.Mutex
	fetches  map[string]*fetch   // "countries", or "banks:" + country code
	reported map[string]struct{} // the destination errors already reported, by their text
}

// firstReport reports whether this provider instance has not reported this error yet, and records
// it. A batch of payouts that share one wrong country_id (a variable, a for_each) is one mistake: the
// plan fails with one error for it, not one per payout.
func (rd *referenceData) firstReport(summary, detail string) bool {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	key := summary + "\x00" + detail
	if _, ok := rd.reported[key]; ok {
		return false
	}
	if rd.reported == nil {
		rd.reported = map[string]struct{}{}
	}
	rd.reported[key] = struct{}{}
	return true
}

// fetch is one read of reference data; done closes when val and err are set.
type fetch struct {
	done chan struct{}
	val  any
	err  error
}

// referenceCaches maps each provider instance's API client to its referenceData. The provider hands
// resources only the client (each Configure makes a new one), so the client is the instance; the key is
// a weak pointer and the entry goes when the client does.
var referenceCaches sync.Map // weak.Pointer[client.Client] → *referenceData

// referenceDataOf returns the reference data cache of the provider instance that made c.
func referenceDataOf(c *client.Client) *referenceData {
	key := weak.Make(c)
	if rd, ok := referenceCaches.Load(key); ok {
		return rd.(*referenceData)
	}
	rd, loaded := referenceCaches.LoadOrStore(key, &referenceData{fetches: map[string]*fetch{}})
	if !loaded {
		runtime.AddCleanup(c, func(k weak.Pointer[client.Client]) { referenceCaches.Delete(k) }, key)
	}
	return rd.(*referenceData)
}

// get returns what load reads for key, calling load only for the first caller; the others wait for it
// (or for their own ctx). A failure is kept too (one warning's worth of calls, not one per payout),
// except when the first caller's ctx ended, which is not the service's answer.
func (rd *referenceData) get(ctx context.Context, key string, load func() (any, error)) (any, error) {
	rd.mu.Lock()
	f, ok := rd.fetches[key]
	if !ok {
		f = &fetch{done: make(chan struct{})}
		rd.fetches[key] = f
	}
	rd.mu.Unlock()
	if !ok {
		func() {
			defer close(f.done) // also if load panics, so that waiters are released
			f.val, f.err = load()
		}()
		if f.err != nil && ctx.Err() != nil {
			// The first caller's plan was cancelled: that says nothing about the service, so the
			// next caller reads again instead of inheriting the cancellation.
			rd.mu.Lock()
			delete(rd.fetches, key)
			rd.mu.Unlock()
		}
	}
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// countries returns the API's countries (GET countries), read once per provider instance.
func (rd *referenceData) countries(ctx context.Context, c *client.Client) ([]client.Country, error) {
	v, err := rd.get(ctx, "countries", func() (any, error) { return c.ListCountries(ctx) })
	if err != nil {
		return nil, err
	}
	return v.([]client.Country), nil
}

// banks returns the banks of the country with code countryCode, read once per provider instance.
func (rd *referenceData) banks(ctx context.Context, c *client.Client, countryCode string) ([]client.Bank, error) {
	v, err := rd.get(ctx, "banks:"+countryCode, func() (any, error) { return c.ListBanks(ctx, countryCode) })
	if err != nil {
		return nil, err
	}
	return v.([]client.Bank), nil
}

// checkPayoutDestination checks, during plan, that country_id is a country of the API and that a bank
// payout's bank_id is a bank of that country. Unknown values are skipped (the service checks them when
// the payout is sent); reference data that cannot be read is a warning saying the check was skipped,
// never a failed plan.
func checkPayoutDestination(ctx context.Context, c *client.Client, plan PayoutResourceModel, diags *diag.Diagnostics) {
	if c == nil || plan.CountryID.IsNull() || plan.CountryID.IsUnknown() {
		return
	}
	rd := referenceDataOf(c)
	countryID := plan.CountryID.ValueString()
	countries, err := rd.countries(ctx, c)
	if err != nil {
		diags.AddWarning("Payout Destination Not Checked",
			fmt.Sprintf("The plan could not read the Malipo API's countries (%s), so the check of country_id %q against "+
				"them was skipped. The API still checks the destination when the payout is sent, and rejects a wrong one "+
				"without moving money.", errText(err), countryID))
		return
	}
	country, ok := findCountry(countries, countryID)
	if !ok {
		// Reported on the first payout that names it; the plan fails with that one error.
		if detail := unknownCountryDetail(countryID, countries); rd.firstReport("Unknown Country", detail) {
			diags.AddAttributeError(path.Root("country_id"), "Unknown Country", detail)
		}
		return
	}
	if plan.TransferTo.ValueString() != string(api.TransferToBank) || plan.BankID.IsNull() || plan.BankID.IsUnknown() {
		return
	}
	bankID := plan.BankID.ValueString()
	banks, err := rd.banks(ctx, c, country.CountryCode)
	if err != nil {
		diags.AddWarning("Payout Destination Not Checked",
			fmt.Sprintf("The plan could not read the banks of %s (%s) from the Malipo API, so the check of bank_id %q "+
				"against them was skipped. The API still checks the bank when the payout is sent, and rejects a wrong "+
				"one without moving money.", country.Name, errText(err), bankID))
		return
	}
	if _, ok := findBank(banks, bankID); ok {
		return
	}
	if summary, detail := wrongBankDetail(ctx, rd, c, bankID, country, banks, countries); rd.firstReport(summary, detail) {
		diags.AddAttributeError(path.Root("bank_id"), summary, detail)
	}
}

func findCountry(countries []client.Country, id string) (client.Country, bool) {
	for _, c := range countries {
		if c.ID == id {
			return c, true
		}
	}
	return client.Country{}, false
}

func findBank(banks []client.Bank, id string) (client.Bank, bool) {
	for _, b := range banks {
		if b.ID == id {
			return b, true
		}
	}
	return client.Bank{}, false
}

// unknownCountryDetail says that id is no country's id, and which ids are; a country code or name in
// place of the id is named as such.
func unknownCountryDetail(id string, countries []client.Country) string {
	for _, c := range countries {
		if strings.EqualFold(id, c.CountryCode) || strings.EqualFold(id, c.Name) || strings.EqualFold(id, c.ID) {
			return fmt.Sprintf("country_id %q is not a country id of the Malipo API: country_id takes a country's id, "+
				"and the id of %s (%s) is %s. Set country_id = %q.", id, c.Name, c.CountryCode, c.ID, c.ID)
		}
	}
	choices := make([]string, len(countries))
	for i, c := range countries {
		choices[i] = fmt.Sprintf("%s (%s)", c.ID, c.Name)
	}
	return fmt.Sprintf("country_id %q is not a country of the Malipo API, which would reject the payout. Set country_id "+
		"to the id of one of its countries (data.malipo_countries): %s.", id, choiceList(choices))
}

// wrongBankDetail says that bankID is not a bank of country and, when the API's other countries name
// it, whose bank it is; it lists the country's banks.
func wrongBankDetail(ctx context.Context, rd *referenceData, c *client.Client, bankID string, country client.Country,
	banks []client.Bank, countries []client.Country) (string, string) {
	choices := make([]string, len(banks))
	for i, b := range banks {
		choices[i] = fmt.Sprintf("%s (%s)", b.ID, b.Name)
	}
	valid := fmt.Sprintf("Set bank_id to the id of a bank of %s (data.malipo_banks with country = %q): %s",
		country.Name, country.CountryCode, choiceList(choices))
	if len(banks) == 0 {
		valid = fmt.Sprintf("The API lists no bank of %s: pay to a mobile-money wallet there (transfer_to = %q), or "+
			"choose another country", country.Name, string(api.TransferToMobileNumber))
	}
	searched := true
	for _, other := range countries {
		if other.CountryCode == country.CountryCode {
			continue
		}
		theirs, err := rd.banks(ctx, c, other.CountryCode)
		if err != nil {
			searched = false
			continue
		}
		if b, ok := findBank(theirs, bankID); ok {
			return "Bank Not in the Payout's Country",
				fmt.Sprintf("bank_id %q is %s, a bank of %s (%s), but country_id %q is %s (%s): a bank payout goes to a "+
					"bank of its own country. %s, or set country_id = %q to pay into %s.", bankID, b.Name, other.Name,
					other.CountryCode, country.ID, country.Name, country.CountryCode, valid, other.ID, other.Name)
		}
	}
	elsewhere := ", nor of any other of its countries"
	if !searched {
		elsewhere = ""
	}
	return "Unknown Bank", fmt.Sprintf("bank_id %q is not a bank of %s (%s, country_id %q) in the Malipo API%s, which "+
		"would reject the payout. %s.", bankID, country.Name, country.CountryCode, country.ID, elsewhere, valid)
}

// maxChoices caps the valid values a message lists; the data sources list them all.
const maxChoices = 20

// choiceList joins choices with commas, at most maxChoices of them.
func choiceList(choices []string) string {
	if len(choices) > maxChoices {
		return strings.Join(choices[:maxChoices], ", ") + fmt.Sprintf(" and %d more", len(choices)-maxChoices)
	}
	return strings.Join(choices, ", ")
}
