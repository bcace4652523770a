package provider

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// Ensure WebhookEndpointResource satisfies the framework's interfaces.
var (
	_ resource.Resource                = &WebhookEndpointResource{}
	_ resource.ResourceWithConfigure   = &WebhookEndpointResource{}
	_ resource.ResourceWithImportState = &WebhookEndpointResource{}
	_ resource.ResourceWithModifyPlan  = &WebhookEndpointResource{}
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
	CreatedAt      types.String `tfsdk:"created_at"`
}

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
			"`description` or `enabled`. Changing `secret_rotation` rotates the secret in place; the previous " +
			"secret stays valid for the service's grace period (24 hours), so receivers can roll keys without " +
			"dropping events.\n\n" +
			"The API returns the secret only when the endpoint is created or its secret rotated. The provider " +
			"keeps it in state (as a sensitive value) from then on. **After `terraform import` the secret is " +
			"unknown to Terraform** and `secret` is null. To get one Terraform knows, rotate it: an imported " +
			"endpoint has no `secret_rotation` in state, so a configured `secret_rotation` rotates the secret on " +
			"the first apply after the import (the plan shows it), as does any later change of the value.",
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
				MarkdownDescription: "The event types delivered to `url`, at least one of " + quotedList(eventTypeValues()) + ".",
				Required:            true,
				ElementType:         types.StringType,
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(stringvalidator.OneOf(eventTypeValues()...)),
				},
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
				MarkdownDescription: "A trigger: any change of this value (for example to the `id` of a `time_rotating` " +
					"resource, or to a date) rotates the signing secret in place. Setting it on create does not " +
					"rotate: a new endpoint gets a fresh secret anyway.",
				Optional: true,
			},
			"secret": schema.StringAttribute{
				MarkdownDescription: "The `whsec_` signing secret, to verify deliveries. Returned by the API only at " +
					"creation and rotation; kept from state on refresh. Null after `terraform import` (the API " +
					"cannot tell it again): change `secret_rotation` to get a new one.",
				Computed:  true,
				Sensitive: true,
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

// ModifyPlan plans the secret: unknown on create and when secret_rotation changes (a rotation will
// return a new one), otherwise exactly what the state holds, null after an import included, so that
// a plan never shows a secret change that will not happen.
func (r *WebhookEndpointResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return // create (the secret stays unknown) or destroy
	}
	var plan, state WebhookEndpointResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if rotates(plan.SecretRotation, state.SecretRotation) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("secret"), types.StringUnknown())...)
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("secret"), state.Secret)...)
}

// rotates reports whether a change of secret_rotation from state to plan asks for a rotation.
func rotates(plan, state types.String) bool {
	return plan.IsUnknown() || !plan.Equal(state)
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
	created, err := r.client.CreateWebhookEndpoint(ctx, in)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Create Webhook Endpoint",
			"The Malipo API rejected or did not answer the request: "+errText(err)+
				". Check url and events against the message above, then run apply again.")
		return
	}
	tflog.Trace(ctx, "Created webhook endpoint", map[string]any{"id": created.ID})

	endpoint := created.Endpoint()
	resp.Diagnostics.Append(plan.setFrom(ctx, &endpoint)...)
	plan.Secret = types.StringValue(created.Secret)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
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

	plan.ID, plan.CreatedAt, plan.Secret = state.ID, state.CreatedAt, state.Secret
	if changed {
		got, err := r.client.UpdateWebhookEndpoint(ctx, id, patch)
		if err != nil {
			resp.Diagnostics.AddError("Unable to Update Webhook Endpoint",
				fmt.Sprintf("Updating webhook endpoint %s failed: %s. Check the new settings against the message above, then run apply again.", id, errText(err)))
			return
		}
		resp.Diagnostics.Append(plan.setFrom(ctx, got)...)
	}
	if rotates(plan.SecretRotation, state.SecretRotation) {
		rotated, err := r.client.RotateWebhookEndpointSecret(ctx, id, client.RotateSecretRequest{})
		if err != nil {
			// Keep what was updated, with the old secret, so that state matches the service.
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
			resp.Diagnostics.AddError("Unable to Rotate Webhook Endpoint Secret",
				fmt.Sprintf("Rotating the secret of webhook endpoint %s failed: %s. The old secret is still valid; run apply again to retry the rotation.", id, errText(err)))
			return
		}
		tflog.Trace(ctx, "Rotated webhook endpoint secret", map[string]any{"id": id})
		endpoint := rotated.Endpoint()
		resp.Diagnostics.Append(plan.setFrom(ctx, &endpoint)...)
		plan.Secret = types.StringValue(rotated.Secret)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
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

// ImportState imports an endpoint by id. Its secret cannot be read back and stays null.
func (r *WebhookEndpointResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
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
