package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/require"
)

// malipo_banks lists the banks of one country; a country that is not an ISO code fails at plan time.
func TestAccBanksDataSource(t *testing.T) {
	sb := startSandbox(t)
	banks, err := sb.client(t).ListBanks(t.Context(), "ZM")
	require.NoError(t, err)
	require.NotEmpty(t, banks)
	want := make([]knownvalue.Check, len(banks))
	for i, b := range banks {
		want[i] = knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id":           knownvalue.StringExact(b.ID),
			"name":         knownvalue.StringExact(b.Name),
			"country_code": knownvalue.StringExact("ZM"),
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      sb.providerConfig() + `data "malipo_banks" "zm" { country = "zm" }`,
				ExpectError: regexp.MustCompile(`Attribute country must be an ISO 3166-1 alpha-2 code`),
			},
			{
				Config: sb.providerConfig() + `
data "malipo_countries" "all" {}

data "malipo_banks" "zm" {
  country = one([for c in data.malipo_countries.all.countries : c.country_code if c.id == "ctry_zm"])
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.malipo_banks.zm", tfjsonpath.New("country"), knownvalue.StringExact("ZM")),
					statecheck.ExpectKnownValue("data.malipo_banks.zm", tfjsonpath.New("banks"), knownvalue.ListExact(want)),
				},
			},
		},
	})
}
