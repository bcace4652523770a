// The code the backend stubs share (stubs/<backend>); its path is under Terraform's so that it may
// import Terraform's internal packages.
module github.com/hashicorp/terraform/internal/backend/remote-state/unavailable

go 1.25
