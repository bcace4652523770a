package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// Ensure CountriesDataSource satisfies the framework's interfaces.
var (
	_ datasource.DataSource              = &CountriesDataSource{}
	_ datasource.DataSourceWithConfigure = &CountriesDataSource{}
)

// NewCountriesDataSource builds the `malipo_countries` data source.
func NewCountriesDataSource() datasource.DataSource {
	return &CountriesDataSource{}
}

// CountriesDataSource is `malipo_countries`: the countries payouts can be sent to, whose ids payouts
// take as country_id and whose codes malipo_banks takes.
type CountriesDataSource struct {
	client *client.Client
}

// CountriesDataSourceModel is the data source's state.
type CountriesDataSourceModel struct {
	Countries []CountryModel `tfsdk:"countries"`
}

// CountryModel is one country.
type CountryModel struct {
	ID           types.String `tfsdk:"id"`
	Name         types.String `tfsdk:"name"`
	CountryCode  types.String `tfsdk:"country_code"`
	CurrencyCode types.String `tfsdk:"currency_code"`
}

// Metadata names the data source type.
func (d *CountriesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_countries"
}

// Schema describes the data source.
func (d *CountriesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The countries payouts can be sent to. A payout takes a country's `id` as `country_id`; " +
			"`malipo_banks` takes its `country_code`.",
		Attributes: map[string]schema.Attribute{
			"countries": schema.ListNestedAttribute{
				MarkdownDescription: "Every country, in the API's order.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"id":            schema.StringAttribute{MarkdownDescription: "The id payouts take as `country_id`, e.g. `ctry_zm`.", Computed: true},
						"name":          schema.StringAttribute{MarkdownDescription: "English name.", Computed: true},
						"country_code":  schema.StringAttribute{MarkdownDescription: "ISO 3166-1 alpha-2 code, e.g. `ZM`.", Computed: true},
						"currency_code": schema.StringAttribute{MarkdownDescription: "ISO 4217 code of the country's payouts, e.g. `ZMW`.", Computed: true},
					},
				},
			},
		},
	}
}

// Configure receives the API client.
func (d *CountriesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		d.client = c
	}
}

// Read lists the countries.
func (d *CountriesDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	countries, err := d.client.ListCountries(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Unable to List Countries",
			"Listing countries failed: "+errText(err)+". Check the provider's base_url and public_key, then run again.")
		return
	}
	state := CountriesDataSourceModel{Countries: make([]CountryModel, 0, len(countries))}
	for _, c := range countries {
		state.Countries = append(state.Countries, CountryModel{
			ID:           types.StringValue(c.ID),
			Name:         types.StringValue(c.Name),
			CountryCode:  types.StringValue(c.CountryCode),
			CurrencyCode: types.StringValue(c.CurrencyCode),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
