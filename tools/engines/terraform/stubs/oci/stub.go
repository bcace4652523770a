// Package oci stands in for Terraform's oci state backend module, which the Go module proxy does not serve.
package oci

import "github.com/hashicorp/terraform/internal/backend/remote-state/unavailable"

// New is what Terraform's internal/backend/init calls: a backend that refuses to be configured.
var New = unavailable.New
