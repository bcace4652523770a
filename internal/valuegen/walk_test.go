package valuegen_test

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/valuegen"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// webhookSchema is the request body schema of the webhook for event type et.
func webhookSchema(t *testing.T, spec *openapi.Spec, et string) *base.SchemaProxy {
	t.Helper()
	op, ok := spec.Webhook(et)
	require.True(t, ok, et)
	mt, ok := openapi.OperationModel(op).RequestBody.Content.Get("application/json")
	require.True(t, ok, et)
	return mt.Schema
}

// The walk reads the document: the payment.success webhook narrows Payment's four statuses to one,
// the failed events require failure_reason, Narration is free text, and a payout's amount is an
// integer whose maximum is 2^53-1.
func TestEventFieldsFollowTheDocument(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	byName := func(et, name string) *valuegen.Field {
		for _, f := range valuegen.Walk(webhookSchema(t, spec, et), valuegen.Options{}) {
			if f.PathName() == name {
				return f
			}
		}
		t.Fatalf("%s has no field %s", et, name)
		return nil
	}
	assert.Equal(t, []any{"success"}, byName("payment.success", "data.object.status").Enum())
	assert.True(t, byName("payment.failed", "data.object.failure_reason").Required)
	assert.False(t, byName("payment.success", "data.object.failure_reason").Required)
	assert.True(t, byName("payment.success", "data.object.narration").FreeText())
	assert.False(t, byName("payment.success", "data.object.reference").FreeText(), "a pattern limits the characters")
	_, payoutMax, _, ok := byName("payout.success", "data.object.amount").Range()
	require.True(t, ok)
	assert.True(t, byName("payout.success", "data.object.amount").Is("integer"))
	assert.Equal(t, json.Number("9007199254740991"), payoutMax)
	lo, hi, step, ok := byName("payment.success", "data.object.amount").Range()
	require.True(t, ok)
	assert.Equal(t, []json.Number{"0.01", "1000000000000", "0.01"}, []json.Number{lo, hi, step}, "exclusiveMinimum 0 on a 0.01 step, maximum 10^12")
	minLen, maxLen := byName("payment.success", "data.object.narration").LengthBounds()
	assert.Equal(t, []int{1, 255}, []int{minLen, maxLen})
	_, refMax := byName("payout.failed", "data.object.reference").LengthBounds()
	assert.Equal(t, 64, refMax)
	assert.False(t, byName("payment.success", "data.object.amount").Is("integer"), "a payment's amount is a number")
}

// With characters to avoid, no case, extreme or draw of any webhook's field holds one, and free text
// keeps its length bounds.
func TestAvoidedCharactersAreNeverDrawn(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	const avoid = "<>&\u2028\u2029"
	opts := valuegen.Options{Avoid: avoid}
	r := rand.New(rand.NewPCG(1, 2))
	for _, et := range spec.EventTypes() {
		for _, f := range valuegen.Walk(webhookSchema(t, spec, et), opts) {
			values := slices.Clone(f.Cases)
			if lo, hi, ok := f.Extremes(); ok {
				values = append(values, lo, hi)
				if f.FreeText() {
					minLen, maxLen := f.LengthBounds()
					assert.Equal(t, []int{minLen, maxLen}, []int{utf8.RuneCountInString(lo.V.(string)), utf8.RuneCountInString(hi.V.(string))}, f.PathName())
				}
			}
			for range 50 {
				if v, ok := f.Random(r); ok {
					values = append(values, v)
				}
			}
			for _, v := range values {
				if s, ok := v.V.(string); ok {
					assert.False(t, strings.ContainsAny(s, avoid), "%s %s: %q", et, f.PathName(), s)
				}
			}
		}
	}
}
