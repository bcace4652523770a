package openapi

import (
	"fmt"

	yaml "github.com/pb33f/go-yaml"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// TestValuesExtension is the document's top-level extension that lists the test values: the inputs
// that produce each outcome in test mode.
const TestValuesExtension = "x-malipo-test-values"

// TestValueKind names one list of test values by its path under x-malipo-test-values, which is also
// what its input is: a payment's customer phone_number, a mobile payout's momo_phone_number, a bank
// payout's account_number.
type TestValueKind string

// The kinds of test value, in the order TestValues.Entries lists them.
const (
	TestValuePayments      TestValueKind = "payments"
	TestValueMobilePayouts TestValueKind = "payouts/mobile_number"
	TestValueBankPayouts   TestValueKind = "payouts/bank"
)

// testValueKinds is every kind, in document order.
var testValueKinds = []TestValueKind{TestValuePayments, TestValueMobilePayouts, TestValueBankPayouts}

// TestValue is one entry of x-malipo-test-values, whatever its kind: the input and the outcome it
// produces.
type TestValue struct {
	Kind TestValueKind
	// Input is the entry's phone_number, momo_phone_number or account_number (see TestValueKind).
	Input string
	Outcome
	// Index is the entry's place in its list: it is #/x-malipo-test-values/<Kind>/<Index>.
	Index int
	// Line is the entry's line in the document, 0 when the values were not read from one.
	Line int
}

// TestValuesOf decodes the document's x-malipo-test-values. It is the one place they are decoded; a
// document without them is not an error but gives TestValues whose Present is false, so that each
// caller says whether it can do without them (the suite and spec diff can, the sandbox cannot:
// Spec.TestValues). Test values that do not decode are an error.
func TestValuesOf(doc *v3.Document) (TestValues, error) {
	var tv TestValues
	if doc == nil || doc.Extensions == nil {
		return tv, nil
	}
	node, ok := doc.Extensions.Get(TestValuesExtension)
	if !ok || node == nil {
		return tv, nil
	}
	if err := node.Decode(&tv); err != nil {
		return TestValues{}, fmt.Errorf("%s does not decode: %w; it holds a description and the lists "+
			"payments (phone_number), payouts.mobile_number (momo_phone_number) and payouts.bank (account_number), "+
			"each entry with a status, a failure_reason when it fails and a description", TestValuesExtension, err)
	}
	tv.present, tv.lines = true, entryLines(node)
	return tv, nil
}

// TestValuesOrNone decodes the document's x-malipo-test-values; a document without them has none
// (Present is false), which is not an error, while test values that do not decode are.
func (s *Spec) TestValuesOrNone() (TestValues, error) { return TestValuesOf(Model(s)) }

// TestValues decodes the document's x-malipo-test-values, for callers that cannot do without them:
// a document without them is an error. Callers that can (a document may leave them out) use
// TestValuesOrNone and ask Present.
func (s *Spec) TestValues() (TestValues, error) {
	tv, err := TestValuesOf(Model(s))
	if err != nil {
		return tv, err
	}
	if !tv.Present() {
		return tv, fmt.Errorf("the document has no %s", TestValuesExtension)
	}
	return tv, nil
}

// Present reports whether the document has x-malipo-test-values at all. A document that has them may
// still list none of a kind.
func (tv TestValues) Present() bool { return tv.present }

// Entries returns the test values of the kinds given (of every kind when none is given), kind by kind
// in the order given, each kind's in document order.
func (tv TestValues) Entries(kinds ...TestValueKind) []TestValue {
	if len(kinds) == 0 {
		kinds = testValueKinds
	}
	var out []TestValue
	add := func(kind TestValueKind, i int, input string, o Outcome) {
		out = append(out, TestValue{Kind: kind, Input: input, Outcome: o, Index: i, Line: tv.lines[fmt.Sprintf("%s/%d", kind, i)]})
	}
	for _, kind := range kinds {
		switch kind {
		case TestValuePayments:
			for i, v := range tv.Payments {
				add(kind, i, v.PhoneNumber, v.Outcome)
			}
		case TestValueMobilePayouts:
			for i, v := range tv.Payouts.MobileNumber {
				add(kind, i, v.MomoPhoneNumber, v.Outcome)
			}
		case TestValueBankPayouts:
			for i, v := range tv.Payouts.Bank {
				add(kind, i, v.AccountNumber, v.Outcome)
			}
		default:
			panic(fmt.Sprintf("openapi: unknown test value kind %q; use one of the TestValue* constants", kind))
		}
	}
	return out
}

// Find returns the first test value, among the kinds given in their order (every kind when none is
// given), whose outcome has status and, unless reason is empty, that failure_reason. The first is
// chosen so that the same document always gives the same input.
func (tv TestValues) Find(status, reason string, kinds ...TestValueKind) (TestValue, bool) {
	for _, v := range tv.Entries(kinds...) {
		if v.Status == status && (reason == "" || v.FailureReason == reason) {
			return v, true
		}
	}
	return TestValue{}, false
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
