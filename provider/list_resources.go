package provider

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// List resources (Terraform 1.14 or later): `list` blocks in a .tfquery.hcl file find existing objects
// for `terraform query`, which prints them and, with -generate-config-out, writes an import block (by
// identity) and a resource block for each. They adopt what was made outside Terraform; the data source
// malipo_webhook_endpoints with import blocks and for_each stays for engines without them.

// Ensure the list resources satisfy the framework's interfaces.
var (
	_ list.ListResourceWithConfigure = &WebhookEndpointListResource{}
	_ list.ListResourceWithConfigure = &PayoutListResource{}
)

// NewWebhookEndpointListResource builds the `malipo_webhook_endpoint` list resource.
func NewWebhookEndpointListResource() list.ListResource { return &WebhookEndpointListResource{} }

// NewPayoutListResource builds the `malipo_payout` list resource.
func NewPayoutListResource() list.ListResource { return &PayoutListResource{} }

// WebhookEndpointListResource lists the merchant's webhook endpoints, with the filters of the
// malipo_webhook_endpoints data source (the same code), never a secret.
type WebhookEndpointListResource struct {
	client *client.Client
}

// PayoutListResource lists the merchant's finished payouts. The API has no operation that lists
// payouts; it finds them through the event log (every payout that reached success or failed has a
// payout.success or payout.failed event) and reads each one. A payout still processing has no such
// event yet and is not listed.
type PayoutListResource struct {
	client *client.Client
}

// Metadata names the list resource after the resource it lists.
func (r *WebhookEndpointListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_webhook_endpoint"
}

// Metadata names the list resource after the resource it lists.
func (r *PayoutListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_payout"
}

// Configure receives the API client.
func (r *WebhookEndpointListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		r.client = c
	}
}

// Configure receives the API client.
func (r *PayoutListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		r.client = c
	}
}

// ListResourceConfigSchema describes the list block's config: the data source's filters.
func (r *WebhookEndpointListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Finds the merchant's webhook endpoints, those made outside Terraform included, for " +
			"`terraform query` (Terraform 1.14 or later; OpenTofu has no list resources): each result carries the " +
			"endpoint's identity (`id`), its `url` as the display name, and, with `include_resource`, its settings, " +
			"never a secret. Every filter that is set must match; none lists every endpoint.",
		Attributes: map[string]schema.Attribute{
			"url": schema.StringAttribute{
				MarkdownDescription: "Only the endpoints whose `url` is exactly this URL. Cannot be combined with `url_prefix`.",
				Optional:            true,
				Validators:          append(webhookURLValidators(), stringvalidator.ConflictsWith(path.MatchRoot("url_prefix"))),
			},
			"url_prefix": schema.StringAttribute{
				MarkdownDescription: "Only the endpoints whose `url` starts with this text, e.g. `https://payments.example.org/`.",
				Optional:            true,
				Validators: []validator.String{
					stringvalidator.LengthAtMost(webhookURLMaxLength),
					stringvalidator.RegexMatches(urlPrefixPattern,
						"must be the start of an http or https URL, with its scheme and without spaces, e.g. https://payments.example.org/"),
				},
			},
			"event": schema.StringAttribute{
				MarkdownDescription: "Only the endpoints subscribed to this event type, one of " + quotedList(eventTypeValues()) + ".",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(eventTypeValues()...)},
			},
			"enabled": schema.BoolAttribute{
				MarkdownDescription: "Only the endpoints whose deliveries are on (`true`) or paused (`false`).",
				Optional:            true,
			},
		},
	}
}

// endpointListConfig is the list block's config.
type endpointListConfig struct {
	URL       types.String `tfsdk:"url"`
	URLPrefix types.String `tfsdk:"url_prefix"`
	Event     types.String `tfsdk:"event"`
	Enabled   types.Bool   `tfsdk:"enabled"`
}

// List streams the matching endpoints, oldest first, at most req.Limit of them.
func (r *WebhookEndpointListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg endpointListConfig
	if diags := req.Config.Get(ctx, &cfg); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	all, err := r.client.ListWebhookEndpoints(ctx)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Unable to List Webhook Endpoints",
			fmt.Sprintf("Listing the merchant's webhook endpoints failed: %s. Check the provider's base_url and keys, then run terraform query again.", errText(err)))
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	filter := endpointFilterFrom(WebhookEndpointsDataSourceModel{URL: cfg.URL, URLPrefix: cfg.URLPrefix, Event: cfg.Event, Enabled: cfg.Enabled})
	stream.Results = func(push func(list.ListResult) bool) {
		var sent int64
		for i := range all {
			e := &all[i]
			if !filter.matches(e) {
				continue
			}
			if req.Limit > 0 && sent >= req.Limit {
				return
			}
			sent++
			result := req.NewListResult(ctx)
			result.DisplayName = e.URL
			result.Diagnostics.Append(result.Identity.Set(ctx, endpointIdentity{ID: types.StringValue(e.ID)})...)
			if req.IncludeResource {
				m := WebhookEndpointResourceModel{SecretRotation: types.StringNull(), Secret: types.StringNull(),
					SecretWO: types.StringNull(), SecretWOVersion: types.Int64Null(), GracePeriod: types.Int64Null()}
				result.Diagnostics.Append(m.setFrom(ctx, e)...)
				result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
			}
			if !push(result) {
				return
			}
		}
	}
}

// ListResourceConfigSchema describes the list block's config: which finished payouts.
func (r *PayoutListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Finds the merchant's finished payouts (`success` or `failed`), those sent outside " +
			"Terraform included, for `terraform query` (Terraform 1.14 or later; OpenTofu has no list resources): each " +
			"result carries the payout's identity (`payout_id`), a display name with its reference (or id), amount and " +
			"status, and, with `include_resource`, its inputs as the API echoes them (the idempotency key cannot be " +
			"read back). The API has no operation that lists payouts, so they are found through the event log: a " +
			"payout still `processing` is not listed yet, nor one whose events the service no longer keeps.",
		Attributes: map[string]schema.Attribute{
			"status": schema.StringAttribute{
				MarkdownDescription: "Only the payouts with this final status, `success` or `failed`. Leave it out to list both.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(string(api.PayoutStatusSuccess), string(api.PayoutStatusFailed))},
			},
			"created_after": schema.StringAttribute{
				MarkdownDescription: "Only the payouts that finished at or after this time (RFC 3339, e.g. `2026-11-01T00:00:00Z`).",
				Optional:            true,
				Validators:          []validator.String{rfc3339Validator{}},
			},
		},
	}
}

// payoutListConfig is the list block's config.
type payoutListConfig struct {
	Status       types.String `tfsdk:"status"`
	CreatedAfter types.String `tfsdk:"created_after"`
}

// List streams the finished payouts, newest first (the event log's order), each once.
func (r *PayoutListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg payoutListConfig
	if diags := req.Config.Get(ctx, &cfg); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	var after time.Time
	if s := cfg.CreatedAfter.ValueString(); s != "" {
		after, _ = time.Parse(time.RFC3339, s) // the validator made sure it parses
	}
	eventTypes := []api.EventType{api.EventTypePayoutSuccess, api.EventTypePayoutFailed}
	switch cfg.Status.ValueString() {
	case string(api.PayoutStatusSuccess):
		eventTypes = eventTypes[:1]
	case string(api.PayoutStatusFailed):
		eventTypes = eventTypes[1:]
	}
	stream.Results = r.results(ctx, req, eventTypes, after)
}

// results reads the payout events of each type, page by page, and each payout they name once.
func (r *PayoutListResource) results(ctx context.Context, req list.ListRequest, eventTypes []api.EventType, after time.Time) iter.Seq[list.ListResult] {
	return func(push func(list.ListResult) bool) {
		seen := map[string]bool{}
		for _, t := range eventTypes {
			params := client.ListEventsParams{Type: t, CreatedAfter: after, Limit: 100}
			for {
				page, err := r.client.ListEvents(ctx, params)
				if err != nil {
					push(listError("Unable to List Payouts", fmt.Sprintf("Reading the merchant's %s events failed: %s. Payouts are "+
						"found through the event log; check the provider's base_url and keys, and that the service offers "+
						"the event log, then run terraform query again.", t, errText(err))))
					return
				}
				for _, e := range page.Items {
					if seen[e.ObjectID] {
						continue
					}
					seen[e.ObjectID] = true
					if req.Limit > 0 && int64(len(seen)) > req.Limit {
						return
					}
					if !push(r.result(ctx, req, e.ObjectID)) {
						return
					}
				}
				if !page.HasMore {
					break
				}
				params.Cursor = page.NextCursor
			}
		}
	}
}

// result is one payout as a list result.
func (r *PayoutListResource) result(ctx context.Context, req list.ListRequest, payoutID string) list.ListResult {
	p, err := r.client.GetPayout(ctx, payoutID)
	if err != nil {
		return listError("Unable to Read Payout", fmt.Sprintf("Reading payout %s, which the event log names, failed: %s. "+
			"Run terraform query again.", payoutID, errText(err)))
	}
	result := req.NewListResult(ctx)
	name := p.PayoutID
	if p.Reference != "" {
		name = p.Reference + " (" + p.PayoutID + ")"
	}
	result.DisplayName = fmt.Sprintf("%s: %d %s, %s", name, p.Amount, p.Currency, p.Status)
	result.Diagnostics.Append(result.Identity.Set(ctx, payoutIdentity{PayoutID: types.StringValue(p.PayoutID)})...)
	if req.IncludeResource {
		m := PayoutResourceModel{IdempotencyKey: types.StringNull(), WaitForFinalStatus: types.BoolValue(true),
			Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType})}}
		m.setInputs(p)
		m.setComputed(p)
		result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
	}
	return result
}

// listError is a list result that carries only an error.
func listError(summary, detail string) list.ListResult {
	var diags diag.Diagnostics
	diags.AddError(summary, detail)
	return list.ListResult{Diagnostics: diags}
}

// rfc3339Validator checks that a string is an RFC 3339 time.
type rfc3339Validator struct{}

// Description says what a valid value is.
func (rfc3339Validator) Description(context.Context) string {
	return "must be an RFC 3339 time, e.g. 2026-11-01T00:00:00Z"
}

// MarkdownDescription is Description.
func (v rfc3339Validator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

// ValidateString checks a known value.
func (v rfc3339Validator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := time.Parse(time.RFC3339, req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Time",
			fmt.Sprintf("%q %s.", req.ConfigValue.ValueString(), v.Description(ctx)))
	}
}
