package specdiff

import (
	"fmt"
	"sort"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The test values are compared here, entry by entry: libopenapi reports an extension as one opaque
// value. A test value is an input (a customer number, a wallet, an account) and the outcome it
// produces; merchants' tests use it to get that outcome on demand, and every implementation must
// simulate it (`malipo conform` drives each one). So removing one, or changing its outcome, breaks
// conformance; a new one breaks no test that exists.

// testValue is one entry of x-malipo-test-values, keyed by its kind and input.
type testValue struct{ openapi.TestValue }

func (v testValue) String() string {
	if v.FailureReason != "" {
		return v.Status + " (" + v.FailureReason + ")"
	}
	return v.Status
}

// testValuesOf reads the test values of a document by kind and input ("payments/260970000001"); a
// document without them has none.
func testValuesOf(which string, m *v3.Document) (map[string]testValue, string, error) {
	tv, err := openapi.TestValuesOf(m)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: %w", ErrUnreadable, which, err)
	}
	out := map[string]testValue{}
	for _, v := range tv.Entries() {
		out[string(v.Kind)+"/"+v.Input] = testValue{v}
	}
	return out, tv.Description, nil
}

// diffTestValues compares the test values of two documents.
func diffTestValues(old, updated *v3.Document) ([]Change, error) {
	before, oldDesc, err := testValuesOf("OLD", old)
	if err != nil {
		return nil, err
	}
	after, newDesc, err := testValuesOf("NEW", updated)
	if err != nil {
		return nil, err
	}
	var out []Change
	at := func(v testValue) string { return testValuesKey + " › " + string(v.Kind) + " › " + v.Input }
	for key, o := range before {
		n, kept := after[key]
		switch {
		case !kept:
			out = append(out, Change{At: at(o), What: "test value removed (it produced " + o.String() + ")", Kind: "removed",
				Property: testValuesKey, Old: o.String(), OldLine: o.Line, Breaks: []Audience{Conformance}})
			out[len(out)-1].setReason(Conformance, "merchants' tests that use "+o.Input+" to get "+o.String()+" no longer get it, and implementations need no longer produce it")
		case o.Status != n.Status || o.FailureReason != n.FailureReason:
			out = append(out, Change{At: at(o), What: "outcome " + o.String() + " → " + n.String(), Kind: "modified",
				Property: testValuesKey, Old: o.String(), New: n.String(), OldLine: o.Line, NewLine: n.Line, Breaks: []Audience{Conformance}})
			out[len(out)-1].setReason(Conformance, "merchants' tests that expect "+o.String()+" from "+o.Input+" get "+n.String()+", and implementations that simulate the old outcome no longer conform")
		case o.Description != n.Description:
			out = append(out, Change{At: at(o), What: "description changed", Kind: "modified", Property: testValuesKey,
				Old: show(o.Description), New: show(n.Description), OldLine: o.Line, NewLine: n.Line,
				Why: "documentation only: the input and its outcome are the same"})
		}
	}
	for key, n := range after {
		if _, existed := before[key]; !existed {
			out = append(out, Change{At: at(n), What: "test value added (it produces " + n.String() + ")", Kind: "added",
				Property: testValuesKey, New: n.String(), NewLine: n.Line,
				Why: "breaks no existing test; implementations must simulate it to pass `malipo conform`, which drives every test value"})
		}
	}
	if oldDesc != newDesc {
		out = append(out, Change{At: testValuesKey, What: "description changed", Kind: "modified", Property: testValuesKey,
			Old: show(oldDesc), New: show(newDesc), Why: "documentation only"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out, nil
}

// setReason sets the change's one reason, for the audience it breaks.
func (c *Change) setReason(a Audience, why string) {
	c.Why, c.Reasons = why, map[Audience]string{a: why}
}
