# adopt.tfquery.hcl: find the endpoints of one receiving service (Terraform 1.14 or later), then
#   terraform query                                    # lists them: id, url
#   terraform query -generate-config-out=adopted.tf    # an import block (by identity) and a resource block each
# and terraform plan imports them, changing nothing. Without config every endpoint is listed.
list "malipo_webhook_endpoint" "payments" {
  provider         = malipo
  include_resource = true

  config {
    url_prefix = "https://payments.example.org/"
  }
}
