module github.com/hashicorp/terraform/internal/backend/remote-state/gcs

go 1.25
