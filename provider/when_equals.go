package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// whenEquals is a resource ConfigValidator for what terraform-plugin-framework-validators cannot say
// (v0.19.0 has conflicts and requirements between attributes, not conditioned on a value): when the
// string attribute `attr` equals `value`, every attribute in `required` must be set and every one in
// `forbidden` must be left out. The payout uses it for "bank fields required for bank, forbidden for
// mobile_number". Each error is attached to the offending attribute and names it.
type whenEquals struct {
	attr      string
	value     string
	required  []string
	forbidden []string
}

var _ resource.ConfigValidator = whenEquals{}

// Description says what the validator checks, for people.
func (v whenEquals) Description(_ context.Context) string {
	var parts []string
	if len(v.required) > 0 {
		parts = append(parts, strings.Join(v.required, ", ")+" must be set")
	}
	if len(v.forbidden) > 0 {
		parts = append(parts, strings.Join(v.forbidden, ", ")+" must not be set")
	}
	return fmt.Sprintf("when %s is %q, %s", v.attr, v.value, strings.Join(parts, " and "))
}

// MarkdownDescription is Description.
func (v whenEquals) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

// ValidateResource checks the configuration; unknown values are checked at apply, when they are known.
func (v whenEquals) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var kind types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(v.attr), &kind)...)
	if resp.Diagnostics.HasError() || kind.IsNull() || kind.IsUnknown() || kind.ValueString() != v.value {
		return
	}
	for _, name := range v.required {
		var val types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(name), &val)...)
		if val.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Missing Attribute Configuration",
				fmt.Sprintf("%s is required when %s is %q. Set %s, or choose another %s.", name, v.attr, v.value, name, v.attr))
		}
	}
	for _, name := range v.forbidden {
		var val types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(name), &val)...)
		if !val.IsNull() && !val.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Invalid Attribute Combination",
				fmt.Sprintf("%s cannot be set when %s is %q. Remove %s, or choose another %s.", name, v.attr, v.value, name, v.attr))
		}
	}
}
