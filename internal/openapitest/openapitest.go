// Package openapitest gives tests the embedded OpenAPI document in two forms: variants of it, loaded
// (the document with edits made by JSON pointer, package docedit), so that a test can show what a
// grader, a generator or a check does with a document that says something else; and the document as
// written (Doc), so that a test can read a fact from it without naming libopenapi's types.
package openapitest

import (
	"testing"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

// Variant returns the embedded document after edit, loaded; an edit that fails, or a document that no
// longer loads, fails the test.
func Variant(t testing.TB, edit func(d *docedit.Doc) error) *openapi.Spec {
	t.Helper()
	spec, err := openapi.Load(VariantBytes(t, edit))
	if err != nil {
		t.Fatalf("load the edited document: %v", err)
	}
	return spec
}

// VariantBytes returns the embedded document after edit, as YAML (for a test that writes it to a file,
// as `--spec FILE` reads it).
func VariantBytes(t testing.TB, edit func(d *docedit.Doc) error) []byte {
	t.Helper()
	d, err := docedit.Parse(openapi.YAML())
	if err != nil {
		t.Fatalf("parse the embedded document: %v", err)
	}
	if err := edit(d); err != nil {
		t.Fatalf("edit the embedded document: %v", err)
	}
	data, err := d.Bytes()
	if err != nil {
		t.Fatalf("encode the edited document: %v", err)
	}
	return data
}
