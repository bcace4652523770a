package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// Ensure TransactionDataSource satisfies the framework's interfaces.
var (
	_ datasource.DataSource              = &TransactionDataSource{}
	_ datasource.DataSourceWithConfigure = &TransactionDataSource{}
)

// NewTransactionDataSource builds the `malipo_transaction` data source.
func NewTransactionDataSource() datasource.DataSource {
	return &TransactionDataSource{}
}

// TransactionDataSource is `malipo_transaction`: the status check of any payment or payout, by
// payment reference, payout id or merchant reference, e.g. to gate a rollout on a payment's success.
type TransactionDataSource struct {
	client *client.Client
}

// TransactionDataSourceModel is the data source's state.
type TransactionDataSourceModel struct {
	Reference         types.String  `tfsdk:"reference"`
	Type              types.String  `tfsdk:"type"`
	ID                types.String  `tfsdk:"id"`
	MerchantReference types.String  `tfsdk:"merchant_reference"`
	Status            types.String  `tfsdk:"status"`
	Final             types.Bool    `tfsdk:"final"`
	FailureReason     types.String  `tfsdk:"failure_reason"`
	Amount            types.Float64 `tfsdk:"amount"`
	Currency          types.String  `tfsdk:"currency"`
	CreatedAt         types.String  `tfsdk:"created_at"`
	UpdatedAt         types.String  `tfsdk:"updated_at"`
}

// Metadata names the data source type.
func (d *TransactionDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_transaction"
}

// Schema describes the data source.
func (d *TransactionDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The current status of a payment or a payout (the API's transaction status check).",
		Attributes: map[string]schema.Attribute{
			"reference": schema.StringAttribute{
				MarkdownDescription: "A payment's `paymentReference`, a payout's `payout_id`, or a merchant reference.",
				Required:            true,
				Validators:          objectIDValidators(),
			},
			"type":               computed("`payment` or `payout`: what `id` names."),
			"id":                 computed("The payment's `paymentReference` or the payout's `payout_id`."),
			"merchant_reference": computed("The merchant reference, when there is one."),
			"status":             computed("`pending`, `processing`, `success` or `failed`."),
			"final": schema.BoolAttribute{
				MarkdownDescription: "Whether `status` is final (`success` or `failed`) and will never change again.",
				Computed:            true,
			},
			"failure_reason": computed("Why a `failed` transaction failed: " + quotedList(failureReasonValues()) + ". Null otherwise."),
			"amount":         schema.Float64Attribute{MarkdownDescription: "Amount in major units of `currency`.", Computed: true},
			"currency":       computed("ISO 4217 code."),
			"created_at":     computed("When the payment or payout was created (RFC 3339)."),
			"updated_at":     computed("When it last changed (RFC 3339)."),
		},
	}
}

// Configure receives the API client.
func (d *TransactionDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		d.client = c
	}
}

// Read checks the transaction's status.
func (d *TransactionDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var state TransactionDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, err := d.client.GetTransactionStatus(ctx, state.Reference.ValueString())
	if err != nil {
		what := "Check reference and the provider's keys, then run again."
		if client.IsNotFound(err) {
			what = "No payment or payout of this merchant has this reference; check reference."
		}
		resp.Diagnostics.AddError("Unable to Read Transaction",
			fmt.Sprintf("Checking transaction %s failed: %s. %s", state.Reference.ValueString(), errText(err), what))
		return
	}
	state.Type = types.StringValue(string(t.Type))
	state.ID = types.StringValue(t.ID)
	state.MerchantReference = optionalString(t.Reference)
	state.Status = types.StringValue(string(t.Status))
	state.Final = types.BoolValue(t.Status.Final())
	state.FailureReason = optionalString(string(t.FailureReason))
	state.Amount = types.Float64Value(t.Amount)
	state.Currency = types.StringValue(t.Currency)
	state.CreatedAt = timestampValue(t.CreatedAt)
	state.UpdatedAt = timestampValue(t.UpdatedAt)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
