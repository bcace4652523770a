package specdiff

import (
	"fmt"
	"sort"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The test values are compared here, entry by entry: libopenapi reports an extension as one opaque
// value. A test value is an input (a customer number, a wallet, an account) and the outcome it
// produces; merchants' tests use it to get that outcome on demand, and every implementation must
// simulate it (`malipo conform` drives each one). So removing one, or changing its outcome, breaks
// conformance; a new one breaks no test that exists.

// testValue is one entry of x-malipo-test-values, keyed by its kind and input.
type testValue struct {
	kind, input string
	outcome     openapi.Outcome
	line        int
}

func (v testValue) String() string {
	if v.outcome.FailureReason != "" {
		return v.outcome.Status + " (" + v.outcome.FailureReason + ")"
	}
	return v.outcome.Status
}

// testValuesOf reads the test values of a document by kind and input ("payments/260970000001"); a
// document without them has none.
func testValuesOf(which string, m *v3.Document) (map[string]testValue, string, error) {
	out := map[string]testValue{}
	if m.Extensions == nil {
		return out, "", nil
	}
	node, ok := m.Extensions.Get(testValuesKey)
	if !ok || node == nil {
		return out, "", nil
	}
	var tv openapi.TestValues
	if err := node.Decode(&tv); err != nil {
		return nil, "", fmt.Errorf("%w: %s: %s does not decode: %w", ErrUnreadable, which, testValuesKey, err)
	}
	lines := entryLines(node)
	add := func(kind, input string, o openapi.Outcome, i int) {
		out[kind+"/"+input] = testValue{kind: kind, input: input, outcome: o, line: lines[fmt.Sprintf("%s/%d", kind, i)]}
	}
	for i, v := range tv.Payments {
		add("payments", v.PhoneNumber, v.Outcome, i)
	}
	for i, v := range tv.Payouts.MobileNumber {
		add("payouts/mobile_number", v.MomoPhoneNumber, v.Outcome, i)
	}
	for i, v := range tv.Payouts.Bank {
		add("payouts/bank", v.AccountNumber, v.Outcome, i)
	}
	return out, tv.Description, nil
}

// entryLines finds the line of each entry ("payouts/bank/2") in the extension's YAML.
func entryLines(node *yaml.Node) map[string]int {
	lines := map[string]int{}
	var visit func(n *yaml.Node, path string)
	visit = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := n.Content[i].Value
				if path != "" {
					key = path + "/" + key
				}
				visit(n.Content[i+1], key)
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				lines[fmt.Sprintf("%s/%d", path, i)] = item.Line
			}
		default:
		}
	}
	visit(node, "")
	return lines
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
	at := func(v testValue) string { return testValuesKey + " › " + v.kind + " › " + v.input }
	for key, o := range before {
		n, kept := after[key]
		switch {
		case !kept:
			out = append(out, Change{At: at(o), What: "test value removed (it produced " + o.String() + ")", Kind: "removed",
				Property: testValuesKey, Old: o.String(), OldLine: o.line, Breaks: []Audience{Conformance}})
			out[len(out)-1].setReason(Conformance, "merchants' tests that use "+o.input+" to get "+o.String()+" no longer get it, and implementations need no longer produce it")
		case o.outcome.Status != n.outcome.Status || o.outcome.FailureReason != n.outcome.FailureReason:
			out = append(out, Change{At: at(o), What: "outcome " + o.String() + " → " + n.String(), Kind: "modified",
				Property: testValuesKey, Old: o.String(), New: n.String(), OldLine: o.line, NewLine: n.line, Breaks: []Audience{Conformance}})
			out[len(out)-1].setReason(Conformance, "merchants' tests that expect "+o.String()+" from "+o.input+" get "+n.String()+", and implementations that simulate the old outcome no longer conform")
		case o.outcome.Description != n.outcome.Description:
			out = append(out, Change{At: at(o), What: "description changed", Kind: "modified", Property: testValuesKey,
				Old: show(o.outcome.Description), New: show(n.outcome.Description), OldLine: o.line, NewLine: n.line,
				Why: "documentation only: the input and its outcome are the same"})
		}
	}
	for key, n := range after {
		if _, existed := before[key]; !existed {
			out = append(out, Change{At: at(n), What: "test value added (it produces " + n.String() + ")", Kind: "added",
				Property: testValuesKey, New: n.String(), NewLine: n.line,
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
