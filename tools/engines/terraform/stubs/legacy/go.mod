// Stands in for Terraform's internal/legacy module, which only Terraform's own tests import.
module github.com/hashicorp/terraform/internal/legacy

go 1.25
