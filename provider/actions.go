package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/malipo/terraform-provider-malipo/openapi/client"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// EnvNewWebhookSecret is where the rotate action reads the new secret unless secret_env names another
// variable.
const EnvNewWebhookSecret = "MALIPO_NEW_WEBHOOK_SECRET"

// envNamePattern is what an environment variable's name may be.
var envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Actions (Terraform 1.14 or later) do what is an act, not a state: they run when invoked (terraform
// apply -invoke=action.<type>.<name>) or when a resource's lifecycle action_trigger fires, and leave
// nothing in state. Rotating a leaked secret now, and delivering an event again, are such acts.

// Ensure the actions satisfy the framework's interfaces.
var (
	_ action.ActionWithConfigure = &RotateSecretAction{}
	_ action.ActionWithConfigure = &ResendEventAction{}
)

// NewRotateSecretAction builds the `malipo_webhook_endpoint_rotate_secret` action.
func NewRotateSecretAction() action.Action { return &RotateSecretAction{} }

// NewResendEventAction builds the `malipo_event_resend` action.
func NewResendEventAction() action.Action { return &ResendEventAction{} }

// RotateSecretAction rotates a webhook endpoint's signing secret now, to a secret of the caller's own
// (read from the environment, see secret_env), with a chosen grace period: 0 after a leak ends the old secret (and any earlier one) at once. It takes
// the new secret rather than letting the API generate one because an action keeps nothing: a generated
// secret would sign deliveries that no receiver could verify.
type RotateSecretAction struct {
	client *client.Client
}

// ResendEventAction delivers an event again, to every endpoint subscribed to its type or to one.
type ResendEventAction struct {
	client *client.Client
}

// rotateSecretModel is the rotate action's config.
type rotateSecretModel struct {
	EndpointID  types.String `tfsdk:"endpoint_id"`
	SecretEnv   types.String `tfsdk:"secret_env"`
	GracePeriod types.Int64  `tfsdk:"grace_period_seconds"`
}

// resendEventModel is the resend action's config.
type resendEventModel struct {
	EventID    types.String `tfsdk:"event_id"`
	EndpointID types.String `tfsdk:"endpoint_id"`
}

// Metadata names the action.
func (a *RotateSecretAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_webhook_endpoint_rotate_secret"
}

// Metadata names the action.
func (a *ResendEventAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_event_resend"
}

// Configure receives the API client.
func (a *RotateSecretAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		a.client = c
	}
}

// Configure receives the API client.
func (a *ResendEventAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		a.client = c
	}
}

// Schema describes the rotate action.
func (a *RotateSecretAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Rotates a webhook endpoint's signing secret **now**, to a secret of your own, read from an environment " +
			"variable (`secret_env`), keeping the " +
			"previous one valid for `grace_period_seconds` (Terraform 1.14 or later; OpenTofu has no actions). After a " +
			"leak, run it with `grace_period_seconds = 0`: the leaked secret, and any secret retired by an earlier " +
			"rotation, stops signing at once. An action keeps nothing in state: use it for an endpoint whose secret is " +
			"your own (`secret_wo` on `malipo_webhook_endpoint`, where you then also set the new secret and a new " +
			"`secret_wo_version`), or one Terraform does not manage. For a secret the API generates and Terraform keeps, " +
			"change `secret_rotation` with `secret_grace_period_seconds = 0` instead, so that the state learns the new secret.",
		Attributes: map[string]schema.Attribute{
			"endpoint_id": schema.StringAttribute{
				MarkdownDescription: "The endpoint's id, e.g. `malipo_webhook_endpoint.payouts.id`.",
				Required:            true,
				Validators:          objectIDValidators(),
			},
			// Not the secret itself: terraform-plugin-framework v1.19.0 refuses every write-only value in an
			// action's configuration ("only supported in Terraform 1.11 and later", whatever the engine),
			// Terraform refuses an ephemeral value in an attribute that is not write-only, and an action
			// attribute cannot be Sensitive. The name of an environment variable keeps the secret out of
			// every configuration, plan and state, as the provider's own secret_key can be.
			"secret_env": schema.StringAttribute{
				MarkdownDescription: "The name of the environment variable that holds the new signing secret, in the " +
					"environment of the `terraform` command that invokes the action (the provider's environment). " +
					"Defaults to `" + EnvNewWebhookSecret + "`. The secret must be `whsec_` and the standard base64 of " +
					"24 to 64 random bytes, e.g. `\"whsec_$(openssl rand -base64 32)\"`; it is in no configuration, plan " +
					"or state, and no log.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.RegexMatches(envNamePattern, "must be an environment variable name: letters, digits and _, not starting with a digit")},
			},
			"grace_period_seconds": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How long the previous secret keeps verifying deliveries, from `0` (after a "+
					"leak) to `%d` (7 days). Unset, the service's default applies (`%d`).", gracePeriodMaxSeconds, gracePeriodDefault),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, gracePeriodMaxSeconds)},
			},
		},
	}
}

// Schema describes the resend action.
func (a *ResendEventAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Delivers an event again, with its original `webhook-id` so that receivers deduplicate it " +
			"(Terraform 1.14 or later; OpenTofu has no actions): to every endpoint now subscribed to its type, or to " +
			"`endpoint_id` alone. For a receiver that was down longer than the retries lasted. The event ids are in " +
			"`malipo events list`, the sandbox dashboard, or the event log of the API.",
		Attributes: map[string]schema.Attribute{
			"event_id": schema.StringAttribute{
				MarkdownDescription: "The event's id, e.g. `evt_...`.",
				Required:            true,
				Validators:          objectIDValidators(),
			},
			"endpoint_id": schema.StringAttribute{
				MarkdownDescription: "Only this endpoint (its id), which need not be subscribed to the event's type. Leave " +
					"it out to deliver to every endpoint subscribed to it now.",
				Optional:   true,
				Validators: objectIDValidators(),
			},
		},
	}
}

// Invoke rotates the secret. The secret is masked in every log line of the call.
func (a *RotateSecretAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var cfg rotateSecretModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	env := EnvNewWebhookSecret
	if !cfg.SecretEnv.IsNull() {
		env = cfg.SecretEnv.ValueString()
	}
	value := os.Getenv(env)
	if value == "" {
		resp.Diagnostics.AddAttributeError(path.Root("secret_env"), "Missing New Webhook Secret",
			fmt.Sprintf("The action rotates to a secret of yours, read from the environment variable %s, which is unset "+
				"or empty. Set it in the environment of terraform (e.g. %s=\"whsec_$(openssl rand -base64 32)\"), give "+
				"the same secret to your receiver, then invoke the action again. Nothing was rotated.", env, env))
		return
	}
	if _, err := webhook.ParseEndpointSecret(value); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("secret_env"), "Invalid Webhook Signing Secret",
			fmt.Sprintf("The environment variable %s does not hold a signing secret the API accepts: %s. The value is not "+
				"shown here because it is a secret. Nothing was rotated.", env, strings.TrimPrefix(errText(err), "webhook: ")))
		return
	}
	secret := client.SecretString(value)
	ctx = tflog.MaskAllFieldValuesStrings(ctx, value)
	ctx = tflog.MaskMessageStrings(ctx, value)
	id := cfg.EndpointID.ValueString()
	in := client.RotateSecretRequest{Secret: secret}
	if !cfg.GracePeriod.IsNull() {
		in.GracePeriodSeconds = cfg.GracePeriod.ValueInt64Pointer()
	}
	rotated, err := a.client.RotateWebhookEndpointSecret(ctx, id, in)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Rotate Webhook Endpoint Secret",
			fmt.Sprintf("Rotating the secret of webhook endpoint %s failed: %s. The current secrets are unchanged; check "+
				"endpoint_id and the secret in "+env+" against the message above, then invoke the action again.", id, errText(err)))
		return
	}
	until := "no longer signs"
	if rotated.PreviousSecretExpiresAt != nil && cfg.GracePeriod.ValueInt64() != 0 {
		until = "signs until " + timestampValue(*rotated.PreviousSecretExpiresAt).ValueString()
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("Rotated the signing secret of webhook endpoint %s; "+
		"the previous secret %s.", id, until)})
}

// Invoke resends the event.
func (a *ResendEventAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var cfg resendEventModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := cfg.EventID.ValueString()
	out, err := a.client.ResendEvent(ctx, id, client.ResendEventRequest{EndpointID: cfg.EndpointID.ValueString()})
	if err != nil {
		what := "check event_id and endpoint_id against the message above, then invoke the action again."
		if client.IsNotFound(err) {
			what = "the merchant has no such event or endpoint (or the service has no event log): check event_id and endpoint_id."
		}
		resp.Diagnostics.AddError("Unable to Resend Event", fmt.Sprintf("Resending event %s failed: %s; %s", id, errText(err), what))
		return
	}
	if len(out.Deliveries) == 0 {
		resp.Diagnostics.AddWarning("Event Not Resent",
			fmt.Sprintf("Event %s has no destination now: no endpoint is subscribed to its type (nor a webhook_url set on "+
				"its payment or payout). Set endpoint_id to deliver it to one endpoint.", id))
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("Queued %d deliveries of event %s.", len(out.Deliveries), id)})
}
