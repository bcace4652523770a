package openapi

import "testing"

// A nil model (no document) has no test values, which is not an error. This test is internal because
// TestValuesOf's parameter is the model's type, which the external tests never name: naming it made
// them compile libopenapi's generic types again, about 7 s of CPU for the test binary.
func TestTestValuesOfNoModel(t *testing.T) {
	tv, err := TestValuesOf(nil)
	if err != nil {
		t.Fatalf("TestValuesOf(nil): %v", err)
	}
	if tv.Present() {
		t.Fatal("TestValuesOf(nil) reports test values")
	}
}
