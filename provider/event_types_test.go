package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validateEvents runs the events attribute's validators on values, as the framework does.
func validateEvents(t *testing.T, values ...string) diag.Diagnostics {
	t.Helper()
	elems := make([]attr.Value, len(values))
	for i, v := range values {
		elems[i] = types.StringValue(v)
	}
	set, d := types.SetValue(types.StringType, elems)
	require.False(t, d.HasError())
	var diags diag.Diagnostics
	for _, v := range eventTypesValidators() {
		resp := &validator.SetResponse{}
		v.ValidateSet(context.Background(), validator.SetRequest{Path: path.Root("events"), ConfigValue: set}, resp)
		diags.Append(resp.Diagnostics...)
	}
	return diags
}

// The document lets the service add event types without a new version (AnyEventType): a type the
// provider does not know is a warning that names the types it knows, not an error; a value that is no
// event type at all is still an error.
func TestEventTypesAreOpen(t *testing.T) {
	assert.Empty(t, validateEvents(t, "payout.success", "payment.failed"), "known types: nothing to say")

	diags := validateEvents(t, "payout.success", "payout.reversed")
	require.False(t, diags.HasError(), "an unknown type is not an error: %v", diags)
	require.Len(t, diags.Warnings(), 1)
	w := diags.Warnings()[0]
	assert.Equal(t, "Unknown Event Type", w.Summary())
	assert.Contains(t, w.Detail(), `"payout.reversed"`)
	for _, known := range eventTypeValues() {
		assert.Contains(t, w.Detail(), known, "the warning names the types the provider knows")
	}

	for _, bad := range []string{"PAYOUT.SUCCESS", "payout", "payout success", "payout.success.x", strings.Repeat("a", eventTypeMaxLength) + ".b"} {
		assert.True(t, validateEvents(t, bad).HasError(), "%q is no event type", bad)
	}
	assert.True(t, validateEvents(t).HasError(), "at least one type")
}
