package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resource identity (Terraform 1.12 or later): a small object, stored beside the state, that names the
// remote object and never changes during its life, so that an import block can name the object by it
// and a list resource (terraform query) can return it. Each resource's identity is its API id alone:
// the merchant is the provider configuration's, and a configuration that works with several merchants
// says which one with a provider alias, as it does for everything else. Engines without identity
// (Terraform or OpenTofu before 1.12) ignore it; the import by string id stays.

// Ensure both resources have an identity.
var (
	_ resource.ResourceWithIdentity = &WebhookEndpointResource{}
	_ resource.ResourceWithIdentity = &PayoutResource{}
)

// endpointIdentity and payoutIdentity are the identities' models.
type endpointIdentity struct {
	ID types.String `tfsdk:"id"`
}

type payoutIdentity struct {
	PayoutID types.String `tfsdk:"payout_id"`
}

// IdentitySchema names an endpoint by its id, which lasts as long as the endpoint (every setting,
// the secret included, changes in place).
func (r *WebhookEndpointResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"id": identityschema.StringAttribute{
				RequiredForImport: true,
				Description:       "The endpoint's id, e.g. `we_...`.",
			},
		},
	}
}

// IdentitySchema names a payout by its payout_id. Its idempotency_key is no identity (the API finds
// no payout by it), nor is its reference (optional, and a payment may hold one too).
func (r *PayoutResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"payout_id": identityschema.StringAttribute{
				RequiredForImport: true,
				Description:       "The payout's id, e.g. `po_...`.",
			},
		},
	}
}

// setIdentity stores v as the identity when the engine keeps identities (identity is nil otherwise).
func setIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, v any, diags *diag.Diagnostics) {
	if identity == nil {
		return
	}
	diags.Append(identity.Set(ctx, v)...)
}

// importByIDOrIdentity fills the given state attributes from an import's string id or, for an import
// block with identity, from the identity attribute; the framework copies the identity itself.
func importByIDOrIdentity(ctx context.Context, identityAttr string, req resource.ImportStateRequest, resp *resource.ImportStateResponse, stateAttrs ...string) {
	for _, attr := range stateAttrs {
		resource.ImportStatePassthroughWithIdentity(ctx, path.Root(attr), path.Root(identityAttr), req, resp)
	}
}
