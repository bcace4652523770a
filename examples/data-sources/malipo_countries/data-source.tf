data "malipo_countries" "all" {}

# The id payouts take as country_id, looked up by ISO code.
output "zambia_country_id" {
  value = one([for c in data.malipo_countries.all.countries : c.id if c.country_code == "ZM"])
}
