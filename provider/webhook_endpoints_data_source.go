package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// Ensure WebhookEndpointsDataSource satisfies the framework's interfaces.
var (
	_ datasource.DataSource              = &WebhookEndpointsDataSource{}
	_ datasource.DataSourceWithConfigure = &WebhookEndpointsDataSource{}
)

// NewWebhookEndpointsDataSource builds the `malipo_webhook_endpoints` data source.
func NewWebhookEndpointsDataSource() datasource.DataSource {
	return &WebhookEndpointsDataSource{}
}

// WebhookEndpointsDataSource is `malipo_webhook_endpoints`: every webhook endpoint of the merchant,
// those made outside Terraform included, optionally filtered; the list that bulk adoption (import
// blocks with for_each) iterates over. It never shows a secret: the API lists endpoints without them.
type WebhookEndpointsDataSource struct {
	client *client.Client
}

// WebhookEndpointsDataSourceModel is the data source's state: the filters and what matched them.
type WebhookEndpointsDataSourceModel struct {
	URL       types.String                  `tfsdk:"url"`
	URLPrefix types.String                  `tfsdk:"url_prefix"`
	Event     types.String                  `tfsdk:"event"`
	Enabled   types.Bool                    `tfsdk:"enabled"`
	Endpoints []WebhookEndpointSummaryModel `tfsdk:"endpoints"`
}

// WebhookEndpointSummaryModel is one listed endpoint: what the API tells about it, without a secret.
type WebhookEndpointSummaryModel struct {
	ID          types.String `tfsdk:"id"`
	URL         types.String `tfsdk:"url"`
	Events      types.Set    `tfsdk:"events"`
	Description types.String `tfsdk:"description"`
	Enabled     types.Bool   `tfsdk:"enabled"`
	CreatedAt   types.String `tfsdk:"created_at"`
	UpdatedAt   types.String `tfsdk:"updated_at"`
}

// urlPrefixPattern is what url_prefix must look like: the start of an http or https URL, so that a
// prefix written without its scheme (which would match nothing) fails at plan time.
var urlPrefixPattern = regexp.MustCompile(`^https?://\S*$`)

// Metadata names the data source type.
func (d *WebhookEndpointsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_webhook_endpoints"
}

// Schema describes the data source.
//
// Longer than 60 lines on purpose, like the resources' Schema methods: one schema literal, an entry
// per filter and per listed attribute with its description and validators, read as the reference
// next to docs/data-sources/webhook_endpoints.md; the filtering logic lives in its own functions.
func (d *WebhookEndpointsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Every webhook endpoint of the merchant, those created outside Terraform included, " +
			"oldest first. The filters below narrow the list; an endpoint is listed when it matches every " +
			"filter that is set, and with no filter every endpoint is listed. No endpoint matching is not an " +
			"error: `endpoints` is then empty.\n\n" +
			"Secrets are never listed (the API does not return them). To bring existing endpoints under " +
			"Terraform's management all at once, use this data source with `import` blocks and `for_each` " +
			"(Terraform 1.7 or later, OpenTofu 1.7 or later), as the example below and the guide *Adopting existing webhook endpoints* show.",
		Attributes: map[string]schema.Attribute{
			"url": schema.StringAttribute{
				MarkdownDescription: "Only the endpoints whose `url` is exactly this URL (compared character by " +
					"character, case included). Cannot be combined with `url_prefix`.",
				Optional: true,
				Validators: append(webhookURLValidators(),
					stringvalidator.ConflictsWith(path.MatchRoot("url_prefix"))),
			},
			"url_prefix": schema.StringAttribute{
				MarkdownDescription: "Only the endpoints whose `url` starts with this text, e.g. " +
					"`https://payments.example.org/` for every endpoint of one receiving service. It must start " +
					"with `http://` or `https://`, as every endpoint's URL does; it is compared character by " +
					"character, case included.",
				Optional: true,
				Validators: []validator.String{
					stringvalidator.LengthAtMost(webhookURLMaxLength),
					stringvalidator.RegexMatches(urlPrefixPattern,
						"must be the start of an http or https URL, with its scheme and without spaces, e.g. https://payments.example.org/"),
				},
			},
			"event": schema.StringAttribute{
				MarkdownDescription: "Only the endpoints subscribed to this event type, one of " +
					quotedList(eventTypeValues()) + ".",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(eventTypeValues()...)},
			},
			"enabled": schema.BoolAttribute{
				MarkdownDescription: "Only the endpoints whose deliveries are on (`true`) or paused (`false`). " +
					"Leave it out to list both.",
				Optional: true,
			},
			"endpoints": schema.ListNestedAttribute{
				MarkdownDescription: "The matching endpoints, oldest first (the API's order). Key them by `id` " +
					"for `for_each`: `{ for e in data.malipo_webhook_endpoints.all.endpoints : e.id => e }`.",
				Computed: true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"id":  computed("The endpoint's id, e.g. `we_...`: what `import` takes for `malipo_webhook_endpoint`."),
						"url": computed("The URL that receives the deliveries."),
						"events": schema.SetAttribute{
							MarkdownDescription: "The event types delivered to `url`.",
							ElementType:         types.StringType,
							Computed:            true,
						},
						"description": computed("The endpoint's note; null when it has none."),
						"enabled": schema.BoolAttribute{
							MarkdownDescription: "Whether events are delivered; `false` when deliveries are paused.",
							Computed:            true,
						},
						"created_at": computed("When the endpoint was created (RFC 3339)."),
						"updated_at": computed("When the endpoint last changed (RFC 3339)."),
					},
				},
			},
		},
	}
}

// Configure receives the API client.
func (d *WebhookEndpointsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		d.client = c
	}
}

// Read lists the merchant's endpoints and keeps those that match the filters.
func (d *WebhookEndpointsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var state WebhookEndpointsDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	all, err := d.client.ListWebhookEndpoints(ctx)
	if err != nil {
		what := "Check the provider's base_url and keys, then run again."
		if client.IsNotFound(err) {
			what = "This Malipo service does not offer webhook endpoints (an optional part of the API); " +
				"point base_url at a service that does, or remove this data source."
		}
		resp.Diagnostics.AddError("Unable to List Webhook Endpoints",
			fmt.Sprintf("Listing the merchant's webhook endpoints failed: %s. %s", errText(err), what))
		return
	}
	filter := endpointFilterFrom(state)
	state.Endpoints = make([]WebhookEndpointSummaryModel, 0, len(all))
	for i := range all {
		e := &all[i]
		if !filter.matches(e) {
			continue
		}
		m, diags := endpointSummary(ctx, e)
		resp.Diagnostics.Append(diags...)
		state.Endpoints = append(state.Endpoints, m)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// endpointFilter is the data source's filters; a nil field filters nothing.
type endpointFilter struct {
	url, urlPrefix, event *string
	enabled               *bool
}

// endpointFilterFrom reads the filters that are set.
func endpointFilterFrom(m WebhookEndpointsDataSourceModel) endpointFilter {
	return endpointFilter{
		url:       m.URL.ValueStringPointer(),
		urlPrefix: m.URLPrefix.ValueStringPointer(),
		event:     m.Event.ValueStringPointer(),
		enabled:   m.Enabled.ValueBoolPointer(),
	}
}

// matches reports whether e passes every filter that is set.
func (f endpointFilter) matches(e *client.WebhookEndpoint) bool {
	switch {
	case f.url != nil && e.URL != *f.url:
		return false
	case f.urlPrefix != nil && !strings.HasPrefix(e.URL, *f.urlPrefix):
		return false
	case f.event != nil && !slices.Contains(enumStrings(e.Events), *f.event):
		return false
	case f.enabled != nil && e.Enabled != *f.enabled:
		return false
	}
	return true
}

// endpointSummary is one listed endpoint as the data source shows it. A description the API reports
// as empty is null, as the resource has it.
func endpointSummary(ctx context.Context, e *client.WebhookEndpoint) (WebhookEndpointSummaryModel, diag.Diagnostics) {
	events, diags := types.SetValueFrom(ctx, types.StringType, enumStrings(e.Events))
	description := types.StringNull()
	if e.Description != nil && *e.Description != "" {
		description = types.StringValue(*e.Description)
	}
	return WebhookEndpointSummaryModel{
		ID:          types.StringValue(e.ID),
		URL:         types.StringValue(e.URL),
		Events:      events,
		Description: description,
		Enabled:     types.BoolValue(e.Enabled),
		CreatedAt:   timestampValue(e.CreatedAt),
		UpdatedAt:   timestampValue(e.UpdatedAt),
	}, diags
}
