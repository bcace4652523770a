module github.com/hashicorp/terraform/internal/backend/remote-state/s3

go 1.25
