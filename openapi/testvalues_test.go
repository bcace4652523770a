package openapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

// Entries lists every test value, kind by kind in document order, each with its input, outcome, place
// in its list and line in the document.
func TestTestValueEntries(t *testing.T) {
	s := spec(t)
	tv, err := s.TestValuesOrNone()
	require.NoError(t, err)
	require.True(t, tv.Present())

	all := tv.Entries()
	require.Len(t, all, len(tv.Payments)+len(tv.Payouts.MobileNumber)+len(tv.Payouts.Bank))
	assert.Equal(t, all, tv.Entries(openapi.TestValuePayments, openapi.TestValueMobilePayouts, openapi.TestValueBankPayouts))
	docLines := strings.Split(string(openapi.YAML()), "\n")
	input := map[openapi.TestValueKind]string{
		openapi.TestValuePayments: "phone_number", openapi.TestValueMobilePayouts: "momo_phone_number",
		openapi.TestValueBankPayouts: "account_number",
	}
	for _, v := range all {
		require.Positive(t, v.Line, "%s/%d", v.Kind, v.Index)
		assert.Contains(t, docLines[v.Line-1], input[v.Kind]+": '"+v.Input+"'", "line %d is the entry %s/%d", v.Line, v.Kind, v.Index)
	}
	first := func(kind openapi.TestValueKind) openapi.TestValue { return tv.Entries(kind)[0] }
	assert.Equal(t, tv.Payments[0].PhoneNumber, first(openapi.TestValuePayments).Input)
	assert.Equal(t, tv.Payments[0].Outcome, first(openapi.TestValuePayments).Outcome)
	assert.Equal(t, tv.Payouts.MobileNumber[0].MomoPhoneNumber, first(openapi.TestValueMobilePayouts).Input)
	assert.Equal(t, tv.Payouts.Bank[0].AccountNumber, first(openapi.TestValueBankPayouts).Input)
	last := tv.Entries(openapi.TestValueBankPayouts)
	assert.Equal(t, len(tv.Payouts.Bank)-1, last[len(last)-1].Index)

	// Spec.TestValues is the same decoding.
	same, err := s.TestValues()
	require.NoError(t, err)
	assert.Equal(t, tv, same)
}

// Find returns the first entry, in the order of the kinds asked for, with the status and (when given)
// the failure_reason.
func TestTestValueFind(t *testing.T) {
	tv, err := spec(t).TestValues()
	require.NoError(t, err)
	for _, kind := range []openapi.TestValueKind{openapi.TestValuePayments, openapi.TestValueMobilePayouts, openapi.TestValueBankPayouts} {
		for _, status := range []string{"success", "failed"} {
			var want *openapi.TestValue
			for _, v := range tv.Entries(kind) {
				if v.Status == status {
					want = &v
					break
				}
			}
			require.NotNil(t, want, "the document has a %s %s", kind, status)
			got, ok := tv.Find(status, "", kind)
			require.True(t, ok)
			assert.Equal(t, *want, got, "%s %s", kind, status)
		}
	}
	for _, v := range tv.Entries() {
		if v.FailureReason == "" {
			continue
		}
		got, ok := tv.Find(v.Status, v.FailureReason, v.Kind)
		require.True(t, ok)
		assert.Equal(t, v.FailureReason, got.FailureReason)
		assert.LessOrEqual(t, got.Index, v.Index, "the first with that reason")
	}

	// The kinds are searched in the order given.
	mobileFirst, ok := tv.Find("failed", "", openapi.TestValueMobilePayouts, openapi.TestValueBankPayouts)
	require.True(t, ok)
	assert.Equal(t, openapi.TestValueMobilePayouts, mobileFirst.Kind)
	bankFirst, ok := tv.Find("failed", "", openapi.TestValueBankPayouts, openapi.TestValueMobilePayouts)
	require.True(t, ok)
	assert.Equal(t, openapi.TestValueBankPayouts, bankFirst.Kind)

	_, ok = tv.Find("failed", "no_such_reason")
	assert.False(t, ok)
	_, ok = tv.Find("pending", "")
	assert.False(t, ok, "no test value ends pending")
}

// A document without x-malipo-test-values has none, which TestValuesOrNone (and TestValuesOf, which it
// calls) reports by Present and Spec.TestValues (for callers that need them) as an error; test values
// that do not decode are an error for both, saying what the extension holds.
func TestTestValuesAbsentOrBroken(t *testing.T) {
	none := openapitest.Variant(t, func(d *docedit.Doc) error { return d.Remove("/" + openapi.TestValuesExtension) })
	tv, err := none.TestValuesOrNone()
	require.NoError(t, err)
	assert.False(t, tv.Present())
	assert.Empty(t, tv.Entries())
	_, ok := tv.Find("success", "")
	assert.False(t, ok)
	_, err = none.TestValues()
	assert.EqualError(t, err, "the document has no x-malipo-test-values")

	empty := openapitest.Variant(t, func(d *docedit.Doc) error { return d.Remove("/x-malipo-test-values/payouts/bank") })
	tv, err = empty.TestValues()
	require.NoError(t, err)
	assert.True(t, tv.Present(), "a document with test values but none of a kind has them")
	assert.Empty(t, tv.Entries(openapi.TestValueBankPayouts))

	broken := openapitest.Variant(t, func(d *docedit.Doc) error { return d.Set("/x-malipo-test-values/payments", "7") })
	_, err = broken.TestValuesOrNone()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "x-malipo-test-values does not decode")
	assert.Contains(t, err.Error(), "payments (phone_number)", "the error says what the extension holds")
	_, err = broken.TestValues()
	assert.ErrorContains(t, err, "x-malipo-test-values does not decode")
}

func TestUnknownTestValueKindPanics(t *testing.T) {
	tv, err := spec(t).TestValues()
	require.NoError(t, err)
	assert.PanicsWithValue(t, `openapi: unknown test value kind "refunds"; use one of the TestValue* constants`, func() {
		tv.Entries("refunds")
	})
}
