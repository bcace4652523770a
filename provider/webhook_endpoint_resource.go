package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/malipo/terraform-provider-malipo/openapi/client"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Ensure WebhookEndpointResource satisfies the framework's interfaces.
var (
	_ resource.Resource                   = &WebhookEndpointResource{}
	_ resource.ResourceWithConfigure      = &WebhookEndpointResource{}
	_ resource.ResourceWithImportState    = &WebhookEndpointResource{}
	_ resource.ResourceWithModifyPlan     = &WebhookEndpointResource{}
	_ resource.ResourceWithValidateConfig = &WebhookEndpointResource{}
)

// NewWebhookEndpointResource builds the `malipo_webhook_endpoint` resource.
func NewWebhookEndpointResource() resource.Resource {
	return &WebhookEndpointResource{}
}

// WebhookEndpointResource is `malipo_webhook_endpoint`: a URL that receives the events it subscribes
// to, signed with its own secret. Every setting changes in place (PATCH); the secret rotates in place.
type WebhookEndpointResource struct {
	client *client.Client
}

// WebhookEndpointResourceModel is the resource's state.
type WebhookEndpointResourceModel struct {
	ID             types.String `tfsdk:"id"`
	URL            types.String `tfsdk:"url"`
	Events         types.Set    `tfsdk:"events"`
	Description    types.String `tfsdk:"description"`
	Enabled        types.Bool   `tfsdk:"enabled"`
	SecretRotation types.String `tfsdk:"secret_rotation"`
	Secret         types.String `tfsdk:"secret"`
	// SecretWO is write-only: null in every plan and state; its value is only in the configuration.
	SecretWO        types.String `tfsdk:"secret_wo"`
	SecretWOVersion types.Int64  `tfsdk:"secret_wo_version"`
	// GracePeriod is how long a rotation keeps the previous secret valid; null sends none (the
	// service's default).
	GracePeriod types.Int64  `tfsdk:"secret_grace_period_seconds"`
	CreatedAt   types.String `tfsdk:"created_at"`
}

// writeOnly reports whether the endpoint's secret is one of the configuration's (secret_wo), which the
// provider sends and never stores, rather than one the API generates and the provider keeps in secret.
func (m *WebhookEndpointResourceModel) writeOnly() bool { return !m.SecretWOVersion.IsNull() }

// Metadata names the resource type.
func (r *WebhookEndpointResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_webhook_endpoint"
}

// Schema describes the resource.
//
// Longer than 60 lines on purpose: it is one schema literal, an entry per attribute with its
// description, validators and plan modifiers, and it is read as the resource's reference next to
// docs/resources/webhook_endpoint.md. Splitting the attribute map across functions would only
// scatter that reference; no part of it has a job of its own.
func (r *WebhookEndpointResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A webhook endpoint: a URL that receives every event of the types it subscribes to, " +
			"signed (Standard Webhooks) with the endpoint's own `whsec_` secret.\n\n" +
			"Every setting changes in place; the endpoint is never replaced by a change of `url`, `events`, " +
			"`description` or `enabled`, nor by a rotation of its secret. After a rotation the previous " +
			"secret stays valid for `secret_grace_period_seconds` (the service's default, 24 hours, when unset), so " +
			"receivers can roll keys without dropping events; after a leak, set it to `0` to end the old secret at " +
			"once (or run the `malipo_webhook_endpoint_rotate_secret` action, on engines that have actions).\n\n" +
			"The secret comes one of two ways. **Your own, write-only** (`secret_wo` with `secret_wo_version`, " +
			"Terraform 1.11 or later, OpenTofu 1.11 or later): you make " +
			"the secret (for example in a secret manager, read through an ephemeral resource or an ephemeral " +
			"input variable) and the provider sends it to the API without storing it anywhere: `secret_wo` is " +
			"never in the plan or the state, and `secret` stays null. Change `secret_wo_version` to send a new " +
			"`secret_wo` (a rotation). Terraform cannot see a change of `secret_wo` itself.\n\n" +
			"Or **generated by the API** (neither is set): the API returns the secret when the endpoint is " +
			"created or its secret rotated, and the provider keeps it in state as the sensitive `secret`. " +
			"Changing `secret_rotation` rotates it.\n\n" +
			"**After `terraform import` the secret is unknown to Terraform** (the API never returns it again) " +
			"and `secret` is null. An imported endpoint has neither `secret_rotation` nor `secret_wo_version` in " +
			"state, so a configured `secret_rotation` rotates the secret to a generated one, and a configured " +
			"`secret_wo_version` sends `secret_wo`, on the first apply after the import (the plan shows the " +
			"update), as does any later change of the value.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The endpoint's id, e.g. `we_...`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"url": schema.StringAttribute{
				MarkdownDescription: "The absolute `http` or `https` URL that receives the deliveries.",
				Required:            true,
				Validators:          webhookURLValidators(),
			},
			"events": schema.SetAttribute{
				MarkdownDescription: "The event types delivered to `url`, at least one: " + quotedList(eventTypeValues()) + ", " +
					"or a type the API added later, which this provider does not know: a warning says so and it is sent as it is.",
				Required:    true,
				ElementType: types.StringType,
				Validators:  eventTypesValidators(),
			},
			"description": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("A note for people reading the configuration, at most %d characters. "+
					"Removing it clears it.", descriptionMaxLength),
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthBetween(1, descriptionMaxLength)},
			},
			"enabled": schema.BoolAttribute{
				MarkdownDescription: "Whether events are delivered; `false` pauses deliveries without losing the " +
					"configuration. Defaults to `true`.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
			},
			"secret_rotation": schema.StringAttribute{
				MarkdownDescription: "For a secret the API generates: a trigger, any change of which (for example to the " +
					"`id` of a `time_rotating` resource, or to a date) rotates the signing secret in place. Setting it " +
					"on create does not rotate: a new endpoint gets a fresh secret anyway. Cannot be used with " +
					"`secret_wo`: to rotate a write-only secret, change `secret_wo` and `secret_wo_version`.",
				Optional: true,
			},
			"secret": schema.StringAttribute{
				MarkdownDescription: "The `whsec_` signing secret the API generated, to verify deliveries. Returned by the " +
					"API only at creation and rotation; kept from state on refresh. Null when the secret is your own " +
					"(`secret_wo`: the provider never stores it), and after `terraform import` (the API cannot tell " +
					"it again): change `secret_rotation` to get a new one.",
				Computed:  true,
				Sensitive: true,
			},
			"secret_wo": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("A signing secret of your own, **write-only**: sent to the API when the "+
					"endpoint is created and whenever `secret_wo_version` changes, and never stored by Terraform, in "+
					"the plan or the state (`secret` stays null). Requires Terraform 1.11 or later, or OpenTofu 1.11 or later: earlier versions "+
					"cannot send write-only attributes and refuse a configuration that sets it. It must be `whsec_` "+
					"followed by the standard base64, `=` padding included, of %d to %d random bytes (the Standard "+
					"Webhooks strength), for example `\"whsec_\"` and the output of `openssl rand -base64 32`. Pass it "+
					"from a secret manager through an ephemeral resource, or through an ephemeral input variable, so "+
					"that it is in no file either. Requires `secret_wo_version`; cannot be used with `secret_rotation`. "+
					"It is checked, and needed, only when it is sent (create, or a change of `secret_wo_version`): a "+
					"plan that sends nothing, `terraform destroy` included, needs no secret.",
					webhook.MinSecretBytes, webhook.MaxSecretBytes),
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
			},
			"secret_wo_version": schema.Int64Attribute{
				MarkdownDescription: "The version of `secret_wo` (so, like it, for Terraform 1.11 or later, or OpenTofu 1.11 or later): set it with " +
					"`secret_wo` (for example to 1) and change " +
					"it (for example increase it) whenever `secret_wo` changes. Terraform never stores `secret_wo`, " +
					"so this number is how it sees a new secret: a change rotates the endpoint's secret to the " +
					"current `secret_wo`, in place, and the previous one stays valid for `secret_grace_period_seconds`. " +
					"An imported endpoint has no version in state, so a configured one sends `secret_wo` on the " +
					"first apply after the import. Removing it (with `secret_wo`) keeps the endpoint's current " +
					"secret, which Terraform then does not know; set `secret_rotation` to have the API generate one.",
				Optional: true,
			},
			"secret_grace_period_seconds": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How long, in seconds, the previous secret keeps verifying deliveries "+
					"after a rotation (`secret_rotation` or `secret_wo_version` changed), from `0` to `%d` (7 days). "+
					"Unset, the service's default applies (`%d`, 24 hours). Set `0` after a leak: the old secret stops "+
					"signing at once, as do secrets retired by earlier rotations. Changing it alone rotates nothing.",
					gracePeriodMaxSeconds, gracePeriodDefault),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, gracePeriodMaxSeconds)},
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "When the endpoint was created (RFC 3339).",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

// Configure receives the API client.
func (r *WebhookEndpointResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		r.client = c
	}
}

// ValidateConfig checks that the engine can send secret_wo at all, and how the secret attributes
// combine: secret_wo needs secret_wo_version, and neither goes with secret_rotation. Each error names the attribute to change and says how. Whether
// secret_wo is there and well formed is checked by ModifyPlan, and only when it will be sent: Terraform
// validates the configuration for a destroy too, which must not need the secret.
func (r *WebhookEndpointResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var secretWO, rotation types.String
	var version types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("secret_wo"), &secretWO)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("secret_wo_version"), &version)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("secret_rotation"), &rotation)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !secretWO.IsNull() && !req.ClientCapabilities.WriteOnlyAttributesAllowed {
		// terraform-plugin-framework adds its own error, which names only Terraform's version.
		resp.Diagnostics.AddAttributeError(path.Root("secret_wo"), "Engine Cannot Send secret_wo",
			"secret_wo is write-only, and this engine cannot send write-only attributes: they need Terraform 1.11 "+
				"or later, or OpenTofu 1.11 or later. Upgrade the engine, or remove secret_wo and secret_wo_version to "+
				"have the API generate the secret (kept in state as the sensitive secret, rotated by secret_rotation).")
	}
	if !secretWO.IsNull() && version.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("secret_wo_version"), "Missing secret_wo_version",
			"secret_wo is set without secret_wo_version. Terraform never stores secret_wo, so it cannot see when the "+
				"value changes: set secret_wo_version (for example to 1) next to secret_wo, and change it whenever you "+
				"change secret_wo; that change is what sends the new secret.")
	}
	if !rotation.IsNull() && (!secretWO.IsNull() || !version.IsNull()) {
		resp.Diagnostics.AddAttributeError(path.Root("secret_rotation"), "Conflicting Secret Settings",
			"secret_rotation rotates to a secret the API generates, which the provider keeps in state; secret_wo sends "+
				"a secret of your own and keeps none. Use one of them: remove secret_rotation, and change secret_wo and "+
				"secret_wo_version together to rotate a write-only secret.")
	}
}

// ModifyPlan plans the secret: null while the secret is write-only (secret_wo, which is never stored,
// and is checked here when this plan sends it);
// otherwise unknown on create and when secret_rotation changes (a rotation will return a new one), and
// else exactly what the state holds, null after an import included, so that a plan never shows a
// secret change that will not happen.
func (r *WebhookEndpointResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var plan, state WebhookEndpointResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if plan.writeOnly() {
		if req.State.Raw.IsNull() || rotatesWriteOnly(plan.SecretWOVersion, state.SecretWOVersion) {
			checkSecretToSend(ctx, req.Config, &resp.Diagnostics)
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("secret"), types.StringNull())...)
		return
	}
	if req.State.Raw.IsNull() {
		return // create: the API generates the secret, unknown until then
	}
	if rotates(plan.SecretRotation, state.SecretRotation) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("secret"), types.StringUnknown())...)
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("secret"), state.Secret)...)
}

// checkSecretToSend checks secret_wo when the plan will send it: it must be given (unknown is checked
// at apply) and be a secret the API accepts. The error never shows the value.
func checkSecretToSend(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) {
	var secret types.String
	diags.Append(config.GetAttribute(ctx, path.Root("secret_wo"), &secret)...)
	switch {
	case diags.HasError() || secret.IsUnknown():
	case secret.IsNull():
		diags.AddAttributeError(path.Root("secret_wo"), "Missing secret_wo",
			"secret_wo_version is set (or changed) without secret_wo, so there is no secret to send. Set secret_wo to "+
				"the whsec_ secret of your own, or remove secret_wo_version to have the API generate the secret.")
	default:
		var resp validator.StringResponse
		endpointSecretValidator{}.ValidateString(ctx, validator.StringRequest{Path: path.Root("secret_wo"), ConfigValue: secret}, &resp)
		diags.Append(resp.Diagnostics...)
	}
}

// gracePeriod is the rotation request's grace period: nil, the service's default, when unset.
func (m *WebhookEndpointResourceModel) gracePeriod() *int64 {
	if m.GracePeriod.IsNull() || m.GracePeriod.IsUnknown() {
		return nil
	}
	return m.GracePeriod.ValueInt64Pointer()
}

// rotates reports whether a change of secret_rotation from state to plan asks for a rotation.
func rotates(plan, state types.String) bool {
	return plan.IsUnknown() || !plan.Equal(state)
}

// rotatesWriteOnly reports whether a change of secret_wo_version from state to plan asks for secret_wo
// to be sent; removing the version sends nothing.
func rotatesWriteOnly(plan, state types.Int64) bool {
	return !plan.IsNull() && (plan.IsUnknown() || !plan.Equal(state))
}

// secretFromConfig returns secret_wo, which only the configuration holds (write-only values are null in
// plans and states), and a context whose logs mask it, so that no tflog line of the call can carry it.
// ok is false when the configuration has none.
func secretFromConfig(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) (context.Context, client.SecretString, bool) {
	var secret types.String
	diags.Append(config.GetAttribute(ctx, path.Root("secret_wo"), &secret)...)
	if diags.HasError() || secret.IsNull() || secret.IsUnknown() || secret.ValueString() == "" {
		return ctx, "", false
	}
	ctx = tflog.MaskAllFieldValuesStrings(ctx, secret.ValueString())
	ctx = tflog.MaskMessageStrings(ctx, secret.ValueString())
	return ctx, client.SecretString(secret.ValueString()), true
}

// Create creates the endpoint and stores its secret.
func (r *WebhookEndpointResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan WebhookEndpointResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	events, diags := eventsFrom(ctx, plan.Events)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	in := client.WebhookEndpointCreateRequest{
		URL:         plan.URL.ValueString(),
		Events:      events,
		Description: nonEmpty(plan.Description.ValueString()),
		Enabled:     plan.Enabled.ValueBoolPointer(),
	}
	if plan.writeOnly() {
		var ok bool
		if ctx, in.Secret, ok = secretFromConfig(ctx, req.Config, &resp.Diagnostics); !ok {
			resp.Diagnostics.AddAttributeError(path.Root("secret_wo"), "Missing secret_wo",
				"secret_wo_version is set, but the configuration gives no secret_wo to send. Set secret_wo, then run apply again.")
			return
		}
	}
	created, err := r.client.CreateWebhookEndpoint(ctx, in)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Create Webhook Endpoint",
			"The Malipo API rejected or did not answer the request: "+errText(err)+
				". Check url, events and secret_wo against the message above, then run apply again.")
		return
	}
	tflog.Trace(ctx, "Created webhook endpoint", map[string]any{"id": created.ID, "secret": secretSource(in.Secret)})

	endpoint := created.Endpoint()
	resp.Diagnostics.Append(plan.setFrom(ctx, &endpoint)...)
	plan.Secret = types.StringValue(created.Secret)
	if plan.writeOnly() {
		plan.Secret = types.StringNull() // the caller's own: never stored
	}
	plan.SecretWO = types.StringNull()
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	setIdentity(ctx, resp.Identity, endpointIdentity{ID: plan.ID}, &resp.Diagnostics)
}

// secretSource says, for logs, where an endpoint's new secret came from.
func secretSource(supplied client.SecretString) string {
	if supplied != "" {
		return "secret_wo"
	}
	return "generated by the API"
}

// Read refreshes the endpoint; the secret is kept from state. An endpoint deleted out of band is
// removed from state, so that the next plan creates it again.
func (r *WebhookEndpointResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state WebhookEndpointResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	got, err := r.client.GetWebhookEndpoint(ctx, state.ID.ValueString())
	if client.IsNotFound(err) {
		tflog.Warn(ctx, "Webhook endpoint not found; removing it from state", map[string]any{"id": state.ID.ValueString()})
		// The framework wants an identity even for a removed resource (v1.19.0); it is the gone one's.
		setIdentity(ctx, resp.Identity, endpointIdentity{ID: state.ID}, &resp.Diagnostics)
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read Webhook Endpoint",
			fmt.Sprintf("Reading webhook endpoint %s failed: %s. Check the provider's base_url and keys, then refresh again.",
				state.ID.ValueString(), errText(err)))
		return
	}
	resp.Diagnostics.Append(state.setFrom(ctx, got)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	setIdentity(ctx, resp.Identity, endpointIdentity{ID: state.ID}, &resp.Diagnostics)
}

// Update changes the settings that differ (PATCH) and rotates the secret when secret_rotation changed.
func (r *WebhookEndpointResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state WebhookEndpointResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	// The identity never changes; it is set first so that every return below keeps it.
	setIdentity(ctx, resp.Identity, endpointIdentity{ID: state.ID}, &resp.Diagnostics)

	var patch client.WebhookEndpointUpdateRequest
	changed := false
	if !plan.URL.Equal(state.URL) {
		patch.URL, changed = plan.URL.ValueStringPointer(), true
	}
	if !plan.Events.Equal(state.Events) {
		events, diags := eventsFrom(ctx, plan.Events)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		patch.Events, changed = events, true
	}
	if !plan.Description.Equal(state.Description) {
		d := plan.Description.ValueString() // "" clears it
		patch.Description, changed = &d, true
	}
	if !plan.Enabled.Equal(state.Enabled) {
		patch.Enabled, changed = plan.Enabled.ValueBoolPointer(), true
	}

	plan.ID, plan.CreatedAt, plan.Secret, plan.SecretWO = state.ID, state.CreatedAt, state.Secret, types.StringNull()
	if plan.writeOnly() {
		plan.Secret = types.StringNull() // the caller's own, or a generated one given up for it: never stored
	}
	if changed {
		got, err := r.client.UpdateWebhookEndpoint(ctx, id, patch)
		if err != nil {
			resp.Diagnostics.AddError("Unable to Update Webhook Endpoint",
				fmt.Sprintf("Updating webhook endpoint %s failed: %s. Check the new settings against the message above, then run apply again.", id, errText(err)))
			return
		}
		resp.Diagnostics.Append(plan.setFrom(ctx, got)...)
	}
	switch {
	case plan.writeOnly() && rotatesWriteOnly(plan.SecretWOVersion, state.SecretWOVersion):
		r.rotateWriteOnly(ctx, req, resp, &plan, &state)
		return
	case !plan.writeOnly() && rotates(plan.SecretRotation, state.SecretRotation):
		rotated, err := r.client.RotateWebhookEndpointSecret(ctx, id, client.RotateSecretRequest{GracePeriodSeconds: plan.gracePeriod()})
		if err != nil {
			// Keep what was updated, with the old secret and the old secret_rotation, so that state
			// matches the service and the next plan asks for the rotation again.
			kept := plan
			kept.SecretRotation, kept.Secret = state.SecretRotation, state.Secret
			resp.Diagnostics.Append(resp.State.Set(ctx, &kept)...)
			resp.Diagnostics.AddError("Unable to Rotate Webhook Endpoint Secret",
				fmt.Sprintf("Rotating the secret of webhook endpoint %s failed: %s. The old secret is still valid; run apply again to retry the rotation.", id, errText(err)))
			return
		}
		tflog.Trace(ctx, "Rotated webhook endpoint secret", map[string]any{"id": id, "secret": secretSource("")})
		endpoint := rotated.Endpoint()
		resp.Diagnostics.Append(plan.setFrom(ctx, &endpoint)...)
		plan.Secret = types.StringValue(rotated.Secret)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// rotateWriteOnly sends secret_wo as the endpoint's new secret, because secret_wo_version changed. A
// failed rotation keeps the old version in state, so that the next apply plans it again.
func (r *WebhookEndpointResource) rotateWriteOnly(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse, plan, state *WebhookEndpointResourceModel) {
	id := state.ID.ValueString()
	ctx, secret, ok := secretFromConfig(ctx, req.Config, &resp.Diagnostics)
	var err error
	var rotated *client.WebhookEndpointWithSecret
	if ok {
		rotated, err = r.client.RotateWebhookEndpointSecret(ctx, id, client.RotateSecretRequest{Secret: secret, GracePeriodSeconds: plan.gracePeriod()})
	}
	if !ok || err != nil {
		kept := *plan
		kept.SecretWOVersion, kept.Secret = state.SecretWOVersion, state.Secret
		resp.Diagnostics.Append(resp.State.Set(ctx, &kept)...)
		if !ok {
			resp.Diagnostics.AddAttributeError(path.Root("secret_wo"), "Missing secret_wo",
				"secret_wo_version changed, but the configuration gives no secret_wo to send. Set secret_wo, then run apply again.")
			return
		}
		resp.Diagnostics.AddError("Unable to Rotate Webhook Endpoint Secret",
			fmt.Sprintf("Sending secret_wo as the new secret of webhook endpoint %s failed: %s. The old secret is still "+
				"valid; check secret_wo against the message above, then run apply again.", id, errText(err)))
		return
	}
	tflog.Trace(ctx, "Rotated webhook endpoint secret", map[string]any{"id": id, "secret": secretSource(secret)})
	endpoint := rotated.Endpoint()
	resp.Diagnostics.Append(plan.setFrom(ctx, &endpoint)...)
	plan.Secret = types.StringNull()
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// endpointSecretValidator checks secret_wo as the API will (webhook.ParseEndpointSecret). Its error says
// what is wrong and how to make a good secret, and never shows the value.
type endpointSecretValidator struct{}

var _ validator.String = endpointSecretValidator{}

// Description says what the validator checks, for people.
func (endpointSecretValidator) Description(context.Context) string {
	return fmt.Sprintf("must be whsec_ followed by the standard base64 (with = padding) of %d to %d random bytes",
		webhook.MinSecretBytes, webhook.MaxSecretBytes)
}

// MarkdownDescription is Description.
func (v endpointSecretValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

// ValidateString checks a known value; an unknown one is checked when it is known.
func (endpointSecretValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := webhook.ParseEndpointSecret(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Webhook Signing Secret",
			req.Path.String()+" is not a signing secret the API accepts: "+strings.TrimPrefix(errText(err), "webhook: ")+
				". The value is not shown here because it is a secret.")
	}
}

// Delete deletes the endpoint; one that is already gone counts as deleted.
func (r *WebhookEndpointResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state WebhookEndpointResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	err := r.client.DeleteWebhookEndpoint(ctx, state.ID.ValueString())
	if err != nil && !client.IsNotFound(err) {
		resp.Diagnostics.AddError("Unable to Delete Webhook Endpoint",
			fmt.Sprintf("Deleting webhook endpoint %s failed: %s. Run destroy again once the API is reachable.", state.ID.ValueString(), errText(err)))
	}
}

// ImportState imports an endpoint by id, or by identity (an import block's identity = { id = ... }). Its
// secret cannot be read back and stays null.
func (r *WebhookEndpointResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByIDOrIdentity(ctx, "id", req, resp, "id")
}

// setFrom copies what the API returned into the model. A description the API reports as empty is
// null, as it is in a configuration that leaves it out.
func (m *WebhookEndpointResourceModel) setFrom(ctx context.Context, e *client.WebhookEndpoint) (diags diag.Diagnostics) {
	m.ID = types.StringValue(e.ID)
	m.URL = types.StringValue(e.URL)
	events := enumStrings(e.Events)
	slices.Sort(events)
	set, d := types.SetValueFrom(ctx, types.StringType, events)
	diags.Append(d...)
	m.Events = set
	m.Description = optionalStringPtr(e.Description)
	m.Enabled = types.BoolValue(e.Enabled)
	m.CreatedAt = timestampValue(e.CreatedAt)
	return diags
}

// nonEmpty is a pointer to s, or nil for "": an optional request field that is left out rather than
// sent empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// eventsFrom converts the events set to the client's type.
func eventsFrom(ctx context.Context, set types.Set) ([]client.EventType, diag.Diagnostics) {
	var names []string
	diags := set.ElementsAs(ctx, &names, false)
	out := make([]client.EventType, len(names))
	for i, n := range names {
		out[i] = client.EventType(n)
	}
	slices.Sort(out)
	return out, diags
}

// timestampValue renders a timestamp the way the API sends it: RFC 3339 in UTC.
func timestampValue(t time.Time) types.String {
	if t.IsZero() {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}
