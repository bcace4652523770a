package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

var _ ephemeral.EphemeralResource = &WebhookSecretEphemeralResource{}

// defaultSecretBytes is how many random bytes malipo_webhook_secret makes when `bytes` is left out: as
// many as the API puts in a secret it generates.
const defaultSecretBytes = 32

// secretMade is told of every secret Open makes; the tests replace it, to search for each secret
// (Terraform opens the resource at plan time and again at apply time, each time a new secret) in
// everything Terraform leaves behind.
var secretMade = func(string) {}

// WebhookSecretEphemeralResource is the ephemeral resource `malipo_webhook_secret`: a webhook endpoint
// signing secret made inside Terraform and never written anywhere Terraform keeps things, for the
// write-only `secret_wo` of an endpoint (or any other provider's write-only argument, a secret
// manager's for one). It needs no API call and no provider configuration.
type WebhookSecretEphemeralResource struct{}

// NewWebhookSecretEphemeralResource returns the ephemeral resource.
func NewWebhookSecretEphemeralResource() ephemeral.EphemeralResource {
	return &WebhookSecretEphemeralResource{}
}

// WebhookSecretModel is malipo_webhook_secret's data.
type WebhookSecretModel struct {
	Bytes  types.Int64  `tfsdk:"bytes"`
	Result types.String `tfsdk:"result"`
}

// Metadata names it malipo_webhook_secret.
func (e *WebhookSecretEphemeralResource) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_webhook_secret"
}

// Schema describes it.
func (e *WebhookSecretEphemeralResource) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A webhook endpoint signing secret, `whsec_` followed by the base64 of random bytes from the " +
			"operating system's cryptographic source, made anew each time Terraform opens it and never stored: " +
			"not in the state, its backup or a saved plan. Give it to `secret_wo` of " +
			"`malipo_webhook_endpoint` (with `secret_wo_version`, which says when to send a new one), or to " +
			"another provider's write-only argument to keep a copy in a secret manager. Needs Terraform 1.10 or " +
			"later (ephemeral resources), 1.11 or later for write-only arguments; OpenTofu 1.11 or later.",
		Attributes: map[string]schema.Attribute{
			"bytes": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many random bytes the secret encodes, %d to %d (what the API "+
					"accepts of a secret it is given); %d when left out, as in a secret the API generates.",
					webhook.MinSecretBytes, webhook.MaxSecretBytes, defaultSecretBytes),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(webhook.MinSecretBytes, webhook.MaxSecretBytes)},
			},
			"result": schema.StringAttribute{
				MarkdownDescription: "The secret, `whsec_` and the standard base64 of the bytes.",
				Computed:            true,
				Sensitive:           true,
			},
		},
	}
}

// Open makes the secret.
func (e *WebhookSecretEphemeralResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m WebhookSecretModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	n := int64(defaultSecretBytes)
	if !m.Bytes.IsNull() && !m.Bytes.IsUnknown() {
		n = m.Bytes.ValueInt64()
	}
	secret, err := webhook.NewSecretOfSize(int(n))
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("bytes"), "Cannot Make A Webhook Secret", err.Error()+"; choose bytes within those bounds.")
		return
	}
	secretMade(secret.Reveal())
	m.Bytes, m.Result = types.Int64Value(n), types.StringValue(secret.Reveal())
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}
