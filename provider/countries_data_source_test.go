package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/require"
)

// malipo_countries lists exactly what the API lists, in its order.
func TestAccCountriesDataSource(t *testing.T) {
	sb := startSandbox(t)
	countries, err := sb.client(t).ListCountries(t.Context())
	require.NoError(t, err)
	require.NotEmpty(t, countries)
	want := make([]knownvalue.Check, len(countries))
	for i, c := range countries {
		want[i] = knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id":            knownvalue.StringExact(c.ID),
			"name":          knownvalue.StringExact(c.Name),
			"country_code":  knownvalue.StringExact(c.CountryCode),
			"currency_code": knownvalue.StringExact(c.CurrencyCode),
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: sb.providerConfig() + `
data "malipo_countries" "all" {}

output "zambia" {
  value = one([for c in data.malipo_countries.all.countries : c.id if c.country_code == "ZM"])
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.malipo_countries.all", tfjsonpath.New("countries"), knownvalue.ListExact(want)),
					statecheck.ExpectKnownOutputValue("zambia", knownvalue.StringExact("ctry_zm")),
				},
			},
		},
	})
}
