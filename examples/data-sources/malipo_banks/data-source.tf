data "malipo_banks" "zambia" {
  country = "ZM"
}

output "zambian_banks" {
  value = { for b in data.malipo_banks.zambia.banks : b.name => b.id }
}
