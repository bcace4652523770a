//go:build ignore

// gen writes api.gen.go from the embedded malipo.yaml: `go generate ./openapi/api`.
package main

import (
	"log"
	"os"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/internal/apigen"
)

func main() {
	spec, err := openapi.Default()
	if err != nil {
		log.Fatal(err)
	}
	src, err := apigen.Generate(spec)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("api.gen.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
}
