package sandbox

import (
	"net/http"
	"sort"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Country is a country where payouts can be sent (the document's Country).
type Country = api.Country

// Bank is a bank that accepts payouts (the document's Bank).
type Bank = api.Bank

// refData is the sandbox's fixed reference data. The ids are stable so that examples, Terraform
// configurations and tests can name them; ctry_zm and bank_zm_zanaco are the spec's own examples.
type refData struct {
	countries []Country
	byID      map[string]Country
	byCode    map[string]Country
	banks     map[string][]Bank // by country code
	banksByID map[string]Bank

	// The list responses, encoded once: the data never changes, and encoding the same lists again on
	// every request was a tenth of the CPU a read took.
	countriesBody []byte
	banksBody     map[string][]byte // by country code
}

func newRefData() *refData {
	countries := []Country{
		{ID: "ctry_zm", Name: "Zambia", CountryCode: "ZM", CurrencyCode: "ZMW"},
		{ID: "ctry_gh", Name: "Ghana", CountryCode: "GH", CurrencyCode: "GHS"},
		{ID: "ctry_ke", Name: "Kenya", CountryCode: "KE", CurrencyCode: "KES"},
		{ID: "ctry_ug", Name: "Uganda", CountryCode: "UG", CurrencyCode: "UGX"},
		{ID: "ctry_rw", Name: "Rwanda", CountryCode: "RW", CurrencyCode: "RWF"},
		{ID: "ctry_tz", Name: "Tanzania", CountryCode: "TZ", CurrencyCode: "TZS"},
		{ID: "ctry_mw", Name: "Malawi", CountryCode: "MW", CurrencyCode: "MWK"},
	}
	banks := []Bank{
		{ID: "bank_zm_zanaco", Name: "Zambia National Commercial Bank", CountryCode: "ZM"},
		{ID: "bank_zm_stanbic", Name: "Stanbic Bank Zambia", CountryCode: "ZM"},
		{ID: "bank_zm_absa", Name: "Absa Bank Zambia", CountryCode: "ZM"},
		{ID: "bank_zm_fnb", Name: "First National Bank Zambia", CountryCode: "ZM"},
		{ID: "bank_gh_gcb", Name: "GCB Bank", CountryCode: "GH"},
		{ID: "bank_gh_ecobank", Name: "Ecobank Ghana", CountryCode: "GH"},
		{ID: "bank_gh_stanbic", Name: "Stanbic Bank Ghana", CountryCode: "GH"},
		{ID: "bank_gh_fidelity", Name: "Fidelity Bank Ghana", CountryCode: "GH"},
		{ID: "bank_ke_kcb", Name: "KCB Bank Kenya", CountryCode: "KE"},
		{ID: "bank_ke_equity", Name: "Equity Bank Kenya", CountryCode: "KE"},
		{ID: "bank_ke_coop", Name: "Co-operative Bank of Kenya", CountryCode: "KE"},
		{ID: "bank_ke_ncba", Name: "NCBA Bank Kenya", CountryCode: "KE"},
		{ID: "bank_ug_stanbic", Name: "Stanbic Bank Uganda", CountryCode: "UG"},
		{ID: "bank_ug_centenary", Name: "Centenary Bank", CountryCode: "UG"},
		{ID: "bank_ug_dfcu", Name: "dfcu Bank", CountryCode: "UG"},
		{ID: "bank_ug_absa", Name: "Absa Bank Uganda", CountryCode: "UG"},
		{ID: "bank_rw_bk", Name: "Bank of Kigali", CountryCode: "RW"},
		{ID: "bank_rw_equity", Name: "Equity Bank Rwanda", CountryCode: "RW"},
		{ID: "bank_rw_im", Name: "I&M Bank Rwanda", CountryCode: "RW"},
		{ID: "bank_rw_access", Name: "Access Bank Rwanda", CountryCode: "RW"},
		{ID: "bank_tz_crdb", Name: "CRDB Bank", CountryCode: "TZ"},
		{ID: "bank_tz_nmb", Name: "NMB Bank", CountryCode: "TZ"},
		{ID: "bank_tz_nbc", Name: "National Bank of Commerce", CountryCode: "TZ"},
		{ID: "bank_mw_natbank", Name: "National Bank of Malawi", CountryCode: "MW"},
		{ID: "bank_mw_standard", Name: "Standard Bank Malawi", CountryCode: "MW"},
		{ID: "bank_mw_fdh", Name: "FDH Bank", CountryCode: "MW"},
	}
	rd := &refData{countries: countries, byID: map[string]Country{}, byCode: map[string]Country{},
		banks: map[string][]Bank{}, banksByID: map[string]Bank{}}
	for _, c := range countries {
		rd.byID[c.ID] = c
		rd.byCode[c.CountryCode] = c
	}
	for _, b := range banks {
		rd.banks[b.CountryCode] = append(rd.banks[b.CountryCode], b)
		rd.banksByID[b.ID] = b
	}
	rd.countriesBody = successBody(msgCountries, rd.countries)
	rd.banksBody = map[string][]byte{}
	for code, list := range rd.banks {
		rd.banksBody[code] = successBody(msgBanks, list)
	}
	return rd
}

const (
	msgCountries = "Countries retrieved"
	msgBanks     = "Banks retrieved"
)

// Countries returns the reference countries the sandbox serves, so that tests and examples of other
// packages can use real ids without calling the API.
func (s *Server) Countries() []Country { return append([]Country(nil), s.refdata.countries...) }

// Banks returns the sandbox's banks of a country code (`ZM`), sorted by id.
func (s *Server) Banks(countryCode string) []Bank {
	out := append([]Bank(nil), s.refdata.banks[countryCode]...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// listCountries serves the countries. The body is shared by every response: response.write only
// reads it.
func (s *Server) listCountries(*request) *response {
	return jsonResponse(http.StatusOK, s.refdata.countriesBody)
}

func (s *Server) listBanks(req *request) *response {
	code := req.r.URL.Query().Get("country")
	if _, ok := s.refdata.byCode[code]; !ok {
		return s.invalid(FieldError{Field: "query.country", Reason: "no supported country has this code; see " + seeCountries})
	}
	return jsonResponse(http.StatusOK, s.refdata.banksBody[code])
}

// Where a field error sends the caller for the valid values.
var (
	seeCountries = api.OpListCountries().Method + " " + api.OpListCountries().Path
	seeBanks     = api.OpListBanks().Method + " " + api.OpListBanks().Path
)
