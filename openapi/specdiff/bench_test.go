package specdiff_test

import (
	"testing"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
	"github.com/malipo/terraform-provider-malipo/openapi/specdiff"
)

// BenchmarkDiff compares the embedded document with a copy that has one change.
func BenchmarkDiff(b *testing.B) {
	d, err := docedit.Parse(openapi.YAML())
	if err != nil {
		b.Fatal(err)
	}
	if err := d.Append("/components/schemas/PayoutStatus/enum", "reversed"); err != nil {
		b.Fatal(err)
	}
	updated, err := d.Bytes()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := specdiff.Diff(openapi.YAML(), updated); err != nil {
			b.Fatal(err)
		}
	}
}
