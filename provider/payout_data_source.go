package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// Ensure PayoutDataSource satisfies the framework's interfaces.
var (
	_ datasource.DataSource              = &PayoutDataSource{}
	_ datasource.DataSourceWithConfigure = &PayoutDataSource{}
)

// NewPayoutDataSource builds the `malipo_payout` data source.
func NewPayoutDataSource() datasource.DataSource {
	return &PayoutDataSource{}
}

// PayoutDataSource is `malipo_payout` (data): any payout of the merchant by id, also those made
// outside Terraform, without managing it.
type PayoutDataSource struct {
	client *client.Client
}

// PayoutDataSourceModel is the data source's state.
type PayoutDataSourceModel struct {
	PayoutID        types.String `tfsdk:"payout_id"`
	Reference       types.String `tfsdk:"reference"`
	Amount          types.Int64  `tfsdk:"amount"`
	Currency        types.String `tfsdk:"currency"`
	CountryID       types.String `tfsdk:"country_id"`
	TransferTo      types.String `tfsdk:"transfer_to"`
	BankID          types.String `tfsdk:"bank_id"`
	AccountNumber   types.String `tfsdk:"account_number"`
	MomoPhoneNumber types.String `tfsdk:"momo_phone_number"`
	Narration       types.String `tfsdk:"narration"`
	WebhookURL      types.String `tfsdk:"webhook_url"`
	Status          types.String `tfsdk:"status"`
	FailureReason   types.String `tfsdk:"failure_reason"`
	CreatedAt       types.String `tfsdk:"created_at"`
	UpdatedAt       types.String `tfsdk:"updated_at"`
}

// Metadata names the data source type.
func (d *PayoutDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_payout"
}

// Schema describes the data source.
func (d *PayoutDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads one payout of the merchant by id, including payouts made outside Terraform.",
		Attributes: map[string]schema.Attribute{
			"payout_id": schema.StringAttribute{
				MarkdownDescription: "The payout's id, e.g. `po_...`.",
				Required:            true,
				Validators:          objectIDValidators(),
			},
			"reference":         computed("The merchant reference, when one was given."),
			"amount":            schema.Int64Attribute{MarkdownDescription: "Amount in major units of `currency`.", Computed: true},
			"currency":          computed("ISO 4217 code of the payout's country."),
			"country_id":        computed("Id of the destination country."),
			"transfer_to":       computed("Destination kind: " + quotedList(transferToValues()) + "."),
			"bank_id":           computed("The bank's id (bank payouts)."),
			"account_number":    computed("The destination account (bank payouts)."),
			"momo_phone_number": computed("The receiving wallet (mobile payouts); null for the merchant's own wallet."),
			"narration":         computed("The payout's purpose, as sent."),
			"webhook_url":       computed("The payout's webhook URL, as sent."),
			"status":            computed("`processing`, `success` or `failed`."),
			"failure_reason":    computed("Why a `failed` payout failed: " + quotedList(failureReasonValues()) + ". Null otherwise."),
			"created_at":        computed("When the payout was created (RFC 3339)."),
			"updated_at":        computed("When the payout last changed (RFC 3339)."),
		},
	}
}

// Configure receives the API client.
func (d *PayoutDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		d.client = c
	}
}

// Read reads the payout.
func (d *PayoutDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var state PayoutDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p, err := d.client.GetPayout(ctx, state.PayoutID.ValueString())
	if err != nil {
		what := "Check payout_id and the provider's keys, then run again."
		if client.IsNotFound(err) {
			what = "No payout of this merchant has this id; check payout_id."
		}
		resp.Diagnostics.AddError("Unable to Read Payout",
			fmt.Sprintf("Reading payout %s failed: %s. %s", state.PayoutID.ValueString(), errText(err), what))
		return
	}
	state = PayoutDataSourceModel{
		PayoutID:        types.StringValue(p.PayoutID),
		Reference:       optionalString(p.Reference),
		Amount:          types.Int64Value(p.Amount),
		Currency:        types.StringValue(p.Currency),
		CountryID:       types.StringValue(p.CountryID),
		TransferTo:      types.StringValue(string(p.TransferTo)),
		BankID:          optionalString(p.BankID),
		AccountNumber:   optionalStringPtr(p.AccountNumber),
		MomoPhoneNumber: optionalString(p.MomoPhoneNumber),
		Narration:       optionalString(p.Narration),
		WebhookURL:      optionalString(p.WebhookURL),
		Status:          types.StringValue(string(p.Status)),
		FailureReason:   optionalString(string(p.FailureReason)),
		CreatedAt:       timestampValue(p.CreatedAt),
		UpdatedAt:       timestampValue(p.UpdatedAt),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
