package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// Ensure BanksDataSource satisfies the framework's interfaces.
var (
	_ datasource.DataSource              = &BanksDataSource{}
	_ datasource.DataSourceWithConfigure = &BanksDataSource{}
)

// NewBanksDataSource builds the `malipo_banks` data source.
func NewBanksDataSource() datasource.DataSource {
	return &BanksDataSource{}
}

// BanksDataSource is `malipo_banks`: the banks of one country, whose ids bank payouts take as bank_id.
type BanksDataSource struct {
	client *client.Client
}

// BanksDataSourceModel is the data source's state.
type BanksDataSourceModel struct {
	Country types.String `tfsdk:"country"`
	Banks   []BankModel  `tfsdk:"banks"`
}

// BankModel is one bank.
type BankModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	CountryCode types.String `tfsdk:"country_code"`
}

// Metadata names the data source type.
func (d *BanksDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_banks"
}

// Schema describes the data source.
func (d *BanksDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The banks of one country that accept payouts. A bank payout takes a bank's `id` as `bank_id`.",
		Attributes: map[string]schema.Attribute{
			"country": schema.StringAttribute{
				MarkdownDescription: "ISO 3166-1 alpha-2 code of the country, e.g. `ZM` (`country_code` of `malipo_countries`).",
				Required:            true,
				Validators:          countryCodeValidators(),
			},
			"banks": schema.ListNestedAttribute{
				MarkdownDescription: "Every bank of the country, in the API's order.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"id":           schema.StringAttribute{MarkdownDescription: "The id bank payouts take as `bank_id`, e.g. `bank_zm_zanaco`.", Computed: true},
						"name":         schema.StringAttribute{MarkdownDescription: "The bank's name.", Computed: true},
						"country_code": schema.StringAttribute{MarkdownDescription: "The bank's country, ISO 3166-1 alpha-2.", Computed: true},
					},
				},
			},
		},
	}
}

// Configure receives the API client.
func (d *BanksDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		d.client = c
	}
}

// Read lists the banks of the country.
func (d *BanksDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var state BanksDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	banks, err := d.client.ListBanks(ctx, state.Country.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Unable to List Banks",
			fmt.Sprintf("Listing the banks of %s failed: %s. Check country against the country_code values of "+
				"data.malipo_countries, then run again.", state.Country.ValueString(), errText(err)))
		return
	}
	state.Banks = make([]BankModel, 0, len(banks))
	for _, b := range banks {
		state.Banks = append(state.Banks, BankModel{
			ID:          types.StringValue(b.ID),
			Name:        types.StringValue(b.Name),
			CountryCode: types.StringValue(b.CountryCode),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
