package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// whenEquals attaches one error to each attribute that transfer_to requires or forbids.
func TestWhenEqualsValidator(t *testing.T) {
	ctx := context.Background()
	r := NewPayoutResource().(*PayoutResource)
	wallet := testValues(t).mobileOK.MomoPhoneNumber
	var sresp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sresp)
	typ, ok := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	require.True(t, ok)

	config := func(vals map[string]string) tfsdk.Config {
		raw := map[string]tftypes.Value{}
		for name, at := range typ.AttributeTypes {
			if v, ok := vals[name]; ok {
				raw[name] = tftypes.NewValue(tftypes.String, v)
			} else {
				raw[name] = tftypes.NewValue(at, nil)
			}
		}
		return tfsdk.Config{Raw: tftypes.NewValue(typ, raw), Schema: sresp.Schema}
	}
	tests := []struct {
		name   string
		vals   map[string]string
		errors []string // attribute names named by errors, in order
	}{
		{"bank complete", map[string]string{"transfer_to": "bank", "bank_id": "b", "account_number": "0001"}, nil},
		{"bank without fields", map[string]string{"transfer_to": "bank"}, []string{"bank_id", "account_number"}},
		{"bank with wallet", map[string]string{"transfer_to": "bank", "bank_id": "b", "account_number": "0001",
			"momo_phone_number": wallet}, []string{"momo_phone_number"}},
		{"mobile to own wallet", map[string]string{"transfer_to": "mobile_number"}, nil},
		{"mobile with bank fields", map[string]string{"transfer_to": "mobile_number", "bank_id": "b", "account_number": "0001"},
			[]string{"bank_id", "account_number"}},
		{"transfer_to unset", map[string]string{"bank_id": "b"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range r.ConfigValidators(ctx) {
				var resp resource.ValidateConfigResponse
				v.ValidateResource(ctx, resource.ValidateConfigRequest{Config: config(tt.vals)}, &resp)
				for _, d := range resp.Diagnostics.Errors() {
					got = append(got, firstWord(d.Detail()))
				}
				assert.NotEmpty(t, v.Description(ctx))
				assert.Equal(t, v.Description(ctx), v.MarkdownDescription(ctx))
			}
			assert.Equal(t, tt.errors, got)
		})
	}
}

func firstWord(s string) string {
	for i, r := range s {
		if r == ' ' {
			return s[:i]
		}
	}
	return s
}
