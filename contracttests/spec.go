package contracttests

import (
	"fmt"
	"os"

	"github.com/malipo/terraform-provider-malipo/contracttests/checks"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// LoadSpec reads and loads an OpenAPI document from a file, for Config.Spec and AllFor; the reports cite
// the lines of the rules a run breaks in path, as given. The error says which file and what is wrong
// with it.
func LoadSpec(path string) (*openapi.Spec, error) {
	data, err := os.ReadFile(path) //nolint:gosec // the path is the user's own choice of document
	if err != nil {
		return nil, fmt.Errorf("read the OpenAPI document: %w; pass the path of a YAML or JSON file, e.g. --spec openapi/malipo.yaml", err)
	}
	spec, err := openapi.Load(data, openapi.WithPath(path))
	if err != nil {
		return nil, fmt.Errorf("%s is not a usable OpenAPI 3.1 document: %w", path, err)
	}
	return spec, nil
}

// All returns every check of the suite for the embedded document (checks.All).
func All() ([]*Check, error) { return checks.All() }

// AllFor returns every check of the suite for a document (`malipo conform --spec FILE`; checks.AllFor).
func AllFor(spec *openapi.Spec) ([]*Check, error) { return checks.AllFor(spec) }

// ChecksFor is what `malipo conform --spec FILE` runs: the document loaded from path and the checks
// derived from it, for Config.Spec and Run; with an empty path, the embedded document's checks and a
// nil document (the default).
func ChecksFor(path string) ([]*Check, *openapi.Spec, error) {
	if path == "" {
		all, err := All()
		return all, nil, err
	}
	spec, err := LoadSpec(path)
	if err != nil {
		return nil, nil, err
	}
	all, err := AllFor(spec)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return all, spec, nil
}
