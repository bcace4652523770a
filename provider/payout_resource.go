package provider

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/numberplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// Ensure PayoutResource satisfies the framework's interfaces.
var (
	_ resource.Resource                     = &PayoutResource{}
	_ resource.ResourceWithConfigure        = &PayoutResource{}
	_ resource.ResourceWithImportState      = &PayoutResource{}
	_ resource.ResourceWithConfigValidators = &PayoutResource{}
	_ resource.ResourceWithModifyPlan       = &PayoutResource{}
)

// defaultPayoutCreateTimeout bounds a create (sending the payout and waiting for its final status)
// when the configuration has no timeouts.create.
const defaultPayoutCreateTimeout = 10 * time.Minute

// Polling of a payout's status while waiting: the first check soon (a sandbox or a fast network settles
// in milliseconds), then doubling, so that a slow bank is not polled more than every few seconds.
const (
	payoutPollFirst = 50 * time.Millisecond
	payoutPollMax   = 5 * time.Second
)

// NewPayoutResource builds the `malipo_payout` resource.
func NewPayoutResource() resource.Resource {
	return &PayoutResource{pollFirst: payoutPollFirst, pollMax: payoutPollMax}
}

// PayoutResource is `malipo_payout`: one payout to a bank account or a mobile-money wallet. Payouts
// move money and cannot be changed or reversed: every input forces replacement (a new payout), and
// destroy only forgets the payout.
type PayoutResource struct {
	client             *client.Client
	pollFirst, pollMax time.Duration
}

// PayoutResourceModel is the resource's state.
type PayoutResourceModel struct {
	Amount             types.Number   `tfsdk:"amount"`
	CountryID          types.String   `tfsdk:"country_id"`
	TransferTo         types.String   `tfsdk:"transfer_to"`
	BankID             types.String   `tfsdk:"bank_id"`
	AccountNumber      types.String   `tfsdk:"account_number"`
	MomoPhoneNumber    types.String   `tfsdk:"momo_phone_number"`
	Narration          types.String   `tfsdk:"narration"`
	WebhookURL         types.String   `tfsdk:"webhook_url"`
	Reference          types.String   `tfsdk:"reference"`
	IdempotencyKey     types.String   `tfsdk:"idempotency_key"`
	WaitForFinalStatus types.Bool     `tfsdk:"wait_for_final_status"`
	ID                 types.String   `tfsdk:"id"`
	PayoutID           types.String   `tfsdk:"payout_id"`
	Status             types.String   `tfsdk:"status"`
	FailureReason      types.String   `tfsdk:"failure_reason"`
	CreatedAt          types.String   `tfsdk:"created_at"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
}

// payoutInputs are the attributes sent to the API: changing any of them means a new payout.
var payoutInputs = []string{"amount", "country_id", "transfer_to", "bank_id", "account_number",
	"momo_phone_number", "narration", "webhook_url", "reference", "idempotency_key"}

// Metadata names the resource type.
func (r *PayoutResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_payout"
}

// Schema describes the resource.
//
// Longer than 60 lines on purpose: it is one schema literal, an entry per attribute with its
// description, validators and plan modifiers, and it is read as the resource's reference next to
// docs/resources/payout.md. Splitting the attribute map across functions would only scatter that
// reference; no part of it has a job of its own. The logic it refers to lives outside it
// (keyChangeSendsNewPayout, the validators in validators.go).
func (r *PayoutResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A payout to a bank account (`transfer_to = \"bank\"`) or a mobile-money wallet " +
			"(`transfer_to = \"mobile_number\"`).\n\n" +
			"**Payouts move money and cannot be changed or reversed.** Every input forces replacement, and the plan " +
			"says so: replacing a payout sends a *new* payout. Destroying a payout only removes it from Terraform " +
			"state, with a warning; the money stays sent.\n\n" +
			"The plan catches what the service would reject: a fractional `amount`, a `country_id` that is not one of " +
			"the API's countries, a `bank_id` that is not a bank of that country (both checked against the API's " +
			"reference data, read once per plan), and a replacement under an unchanged `idempotency_key`.\n\n" +
			"Creates are safe to retry: the provider sends an `Idempotency-Key` (`idempotency_key`, generated when " +
			"unset) and retries a create whose answer was lost with the same key, so the service replays the first " +
			"payout instead of paying twice. Set `idempotency_key` yourself (for example to an invoice number) to " +
			"make even a re-run after an interrupted apply safe: the key then stays the same across runs. A key " +
			"belongs to one payout: change it whenever you change the payout.\n\n" +
			"With `wait_for_final_status` (the default) apply waits until the payout is `success` or `failed`; a " +
			"`failed` payout is an error naming its `failure_reason`, and the resource is then tainted, so the next " +
			"apply sends it again (after you fixed the cause, and under a new `idempotency_key` if you set one). A " +
			"payout still `processing` when `timeouts.create` ends is kept with a warning, never sent again; refresh " +
			"updates its `status`.",
		Attributes: map[string]schema.Attribute{
			"amount": schema.NumberAttribute{
				MarkdownDescription: fmt.Sprintf("Amount in major units of the country's currency: a whole number from %d to %d "+
					"(`2500` pays 2,500 ZMW to Zambia). A fraction such as `10.5` fails the plan.", payoutAmountMinimum, payoutAmountMaximum),
				Required:      true,
				Validators:    payoutAmountValidators(),
				PlanModifiers: []planmodifier.Number{numberplanmodifier.RequiresReplace()},
			},
			"country_id": schema.StringAttribute{
				MarkdownDescription: "Id of the destination country (`id` of `data.malipo_countries`, e.g. `ctry_zm`), not its code. " +
					"Checked during plan against the API's countries.",
				Required:      true,
				Validators:    objectIDValidators(),
				PlanModifiers: replace,
			},
			"transfer_to": schema.StringAttribute{
				MarkdownDescription: "Destination kind: " + quotedList(transferToValues()) + ".",
				Required:            true,
				Validators:          []validator.String{stringvalidator.OneOf(transferToValues()...)},
				PlanModifiers:       replace,
			},
			"bank_id": schema.StringAttribute{
				MarkdownDescription: "Id of the bank (`data.malipo_banks`), of the same country: checked during plan " +
					"against the API's banks of `country_id`. Required when `transfer_to` is `bank`; not allowed for `mobile_number`.",
				Optional:      true,
				Validators:    objectIDValidators(),
				PlanModifiers: replace,
			},
			"account_number": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Destination account number, %d to %d letters and digits. Required when "+
					"`transfer_to` is `bank`; not allowed for `mobile_number`.", accountNumberMinLength, accountNumberMaxLength),
				Optional:      true,
				Validators:    accountNumberValidators(),
				PlanModifiers: replace,
			},
			"momo_phone_number": schema.StringAttribute{
				MarkdownDescription: "Receiving wallet, E.164 digits without `+` (e.g. `260971234567`), for `transfer_to = " +
					"\"mobile_number\"`. Leave it out to pay the merchant's own wallet. Not allowed for `bank`.",
				Optional:      true,
				Validators:    phoneNumberValidators(),
				PlanModifiers: replace,
			},
			"narration": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("The payout's purpose, 1 to %d characters.", narrationMaxLength),
				Optional:            true,
				Validators:          narrationValidators(),
				PlanModifiers:       replace,
			},
			"webhook_url": schema.StringAttribute{
				MarkdownDescription: "URL that receives this payout's status changes, signed with the merchant's secret key.",
				Optional:            true,
				Validators:          webhookURLValidators(),
				PlanModifiers:       replace,
			},
			"reference": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Your own reference for the payout, e.g. the invoice it pays (`inv-88`): 1 to %d "+
					"letters, digits and `_ . : -`, starting with a letter or digit. The API keeps it unique among the "+
					"merchant's payments and payouts, and refuses a second payout under it, so it reconciles payouts "+
					"with invoices: `data.malipo_transaction` finds the payout by it, and `terraform import` reads it "+
					"back. Changing it forces replacement; a replacement needs a new reference, since the old payout "+
					"keeps its own (the plan fails otherwise).", merchantReferenceMaxLen),
				Optional: true,
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, merchantReferenceMaxLen),
					stringvalidator.RegexMatches(merchantReferencePattern, "must start with a letter or digit and contain only letters, digits and _ . : -"),
				},
				PlanModifiers: replace,
			},
			"idempotency_key": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("The `Idempotency-Key` sent with the create, 1 to %d characters. "+
					"Generated (a random UUID) when unset, and kept in state. A create retried with the same key is "+
					"replayed by the service instead of paying twice. Changing it forces replacement. A key belongs to "+
					"one payout: when another input changes (a replacement sends a new payout), a key you set must "+
					"change too, or the plan fails, since the service refuses a different payout under a key it has "+
					"already used. Unknown after `terraform import`: setting it then only records it.", idempotencyKeyMaxLen),
				Optional: true,
				Computed: true,
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, idempotencyKeyMaxLen),
					stringvalidator.RegexMatches(singleLinePattern, "must be one line"),
				},
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
					stringplanmodifier.RequiresReplaceIf(keyChangeSendsNewPayout,
						"A different key after create sends a new payout; recording a key after import does not.",
						"A different key after create sends a new payout; recording a key after import does not."),
				},
			},
			"wait_for_final_status": schema.BoolAttribute{
				MarkdownDescription: "Whether create waits until the payout is `success` or `failed` (at most " +
					"`timeouts.create`). Defaults to `true`. Changing it does not touch the payout.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
			},
			"id": schema.StringAttribute{
				MarkdownDescription: "The payout's id, the same as `payout_id`; what Terraform shows and `terraform import` takes.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"payout_id": schema.StringAttribute{
				MarkdownDescription: "The payout's id, e.g. `po_...`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "`processing`, `success` or `failed`. Refreshed on every read.",
				Computed:            true,
			},
			"failure_reason": schema.StringAttribute{
				MarkdownDescription: "Why a `failed` payout failed: " + quotedList(failureReasonValues()) + ". Null otherwise.",
				Computed:            true,
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "When the payout was created (RFC 3339).",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true}),
		},
	}
}

// keyChangeSendsNewPayout: a changed idempotency_key replaces the payout, except when the state has
// no key (after an import), where the configured key is only recorded.
func keyChangeSendsNewPayout(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull() && !req.ConfigValue.IsNull()
}

// ConfigValidators check, at plan time, the fields each transfer_to needs and forbids.
func (r *PayoutResource) ConfigValidators(_ context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		whenEquals{attr: "transfer_to", value: string(api.TransferToBank),
			required: []string{"bank_id", "account_number"}, forbidden: []string{"momo_phone_number"}},
		whenEquals{attr: "transfer_to", value: string(api.TransferToMobileNumber),
			forbidden: []string{"bank_id", "account_number"}},
	}
}

// Configure receives the API client.
func (r *PayoutResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c, ok := clientFrom(req.ProviderData, &resp.Diagnostics); ok {
		r.client = c
	}
}

// ModifyPlan catches in the plan, where it is reviewed, what would otherwise go wrong at apply or go
// unnoticed. A payout moves money that cannot be called back, so a mistake here sends money twice or
// to the wrong place: each kind of plan has its own step, and each step says why it does what it does.
//
//   - a create (planCreate): the destination is one the API has;
//   - a destroy (planDestroy): a warning that nothing is reversed;
//   - an update, which for a payout is a replacement or nothing (planReplace): the destination again,
//     an error when the new payout would reuse the old one's idempotency key, and a warning that new
//     money is sent.
func (r *PayoutResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	switch {
	case req.State.Raw.IsNull():
		r.planCreate(ctx, req, resp)
	case req.Plan.Raw.IsNull():
		planDestroy(ctx, req, resp)
	default:
		r.planReplace(ctx, req, resp)
	}
}

// planCreate checks a new payout's destination against the API's reference data, so that a country
// or bank the API does not have fails the plan rather than the apply. Terraform also plans a
// replacement's new payout this way, with no prior state.
func (r *PayoutResource) planCreate(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var plan PayoutResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	checkPayoutDestination(ctx, r.client, plan, &resp.Diagnostics)
}

// planDestroy warns that destroying a payout only forgets it: someone who destroys to "undo" a
// payout, and applies again, would otherwise send the money a second time believing the first was
// called back.
func planDestroy(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var state PayoutResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.AddWarning("Destroying a Payout Does Not Reverse It",
		fmt.Sprintf("Payout %s will only be removed from Terraform state. Payouts cannot be reversed: its money stays sent.",
			state.PayoutID.ValueString()))
}

// planReplace handles an update, which for a payout is nothing (no input changed) or a replacement,
// which sends a new payout. Its new payout's destination is checked here too, although
// Terraform plans the new payout as a create next (planCreate), because it does so only when this plan
// has no error: checking here reports a wrong destination together with a reused key, and neither
// with a warning about a replacement that will not happen. A reused key is an error and a fresh one a
// warning, since the replacement sends money again.
func (r *PayoutResource) planReplace(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var state PayoutResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	changed := changedPayoutInputs(ctx, req, &resp.Diagnostics)
	if len(changed) == 0 {
		keepFinalStatus(ctx, state, resp)
		return
	}
	var plan, config PayoutResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	checkPayoutDestination(ctx, r.client, plan, &resp.Diagnostics)
	what := strings.Join(changed, ", ")
	refuseReusedKey(config.IdempotencyKey, state, what, &resp.Diagnostics)
	refuseReusedReference(plan.Reference, state, what, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	warnNewPayout(config.IdempotencyKey, state, what, &resp.Diagnostics)
}

// keepFinalStatus plans a payout that nothing replaces (only wait_for_final_status, timeouts or a key
// recorded after import changed) with the status and failure_reason of its state when that status is
// final: it can never change again, and "(known after apply)" on a money object reads as a possible
// change. A payout still processing keeps them unknown, since the update's refresh may find it settled.
func keepFinalStatus(ctx context.Context, state PayoutResourceModel, resp *resource.ModifyPlanResponse) {
	if !api.PayoutStatus(state.Status.ValueString()).Final() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), state.Status)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("failure_reason"), state.FailureReason)...)
}

// refuseReusedReference fails the plan when a replacement would send its new payout under the old
// payout's reference: the API keeps a reference unique among the merchant's payouts, and the old payout
// keeps it after Terraform forgets it, so the create would be refused only after the old payout left
// the state.
func refuseReusedReference(planned types.String, state PayoutResourceModel, what string, diags *diag.Diagnostics) {
	if planned.IsNull() || planned.IsUnknown() || !planned.Equal(state.Reference) {
		return
	}
	diags.AddAttributeError(path.Root("reference"), "Replacing a Payout Needs a New Reference",
		fmt.Sprintf("Changing %s forces replacement of payout %s, which sends a new payout, but reference is still %q, "+
			"the reference of payout %s. The Malipo API keeps a reference unique among the merchant's payouts, and "+
			"payout %s keeps it, so the new payout would be refused (%s). Nothing has been sent. Set a new reference "+
			"(for example %q), or undo the change to %s to keep payout %s.", what, state.PayoutID.ValueString(),
			planned.ValueString(), state.PayoutID.ValueString(), state.PayoutID.ValueString(), api.CodeDuplicateReference,
			planned.ValueString()+"-2", what, state.PayoutID.ValueString()))
}

// changedPayoutInputs names the inputs (payoutInputs) whose planned value differs from the state's:
// each forces a replacement, that is a new payout. An idempotency_key the state does not have (after
// an import) or the configuration leaves out is not a change: no new payout is sent for it.
func changedPayoutInputs(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) []string {
	var changed []string
	for _, name := range payoutInputs {
		var planned, prior, config attr.Value
		diags.Append(req.Plan.GetAttribute(ctx, path.Root(name), &planned)...)
		diags.Append(req.State.GetAttribute(ctx, path.Root(name), &prior)...)
		diags.Append(req.Config.GetAttribute(ctx, path.Root(name), &config)...)
		if planned == nil || prior == nil || config == nil {
			continue
		}
		if name == "idempotency_key" && (prior.IsNull() || config.IsNull()) {
			continue // recorded after import, or left to the state: no new payout
		}
		if !planned.Equal(prior) {
			changed = append(changed, name)
		}
	}
	return changed
}

// refuseReusedKey fails the plan when a replacement would send its new payout under the key the old
// payout was sent with. The API would refuse a different payout under it, or replay the old payout
// for the same one, and either way only after the old payout is gone from state: failing the plan
// sends nothing and says which key to change.
func refuseReusedKey(configKey types.String, state PayoutResourceModel, what string, diags *diag.Diagnostics) {
	oldKey, payoutID := state.IdempotencyKey, state.PayoutID.ValueString()
	if configKey.IsNull() || configKey.IsUnknown() || !configKey.Equal(oldKey) {
		return
	}
	diags.AddAttributeError(path.Root("idempotency_key"), "Replacing a Payout Needs a New Idempotency Key",
		fmt.Sprintf("Changing %s forces replacement of payout %s, which sends a new payout, but idempotency_key is "+
			"still %q, the key payout %s was sent with. The Malipo API keeps a key for the payout it first sent: it "+
			"would refuse a different payout under it (%s) or, for the same one, replay the old payout instead of "+
			"sending a new one, and by then the old payout would already be gone from Terraform state. Nothing has "+
			"been sent. To send a new payout, change idempotency_key (for example to %q) or remove it to have one "+
			"generated. To keep payout %s, undo the change to %s.", what, payoutID, oldKey.ValueString(), payoutID,
			api.CodeIdempotencyKeyReused, oldKey.ValueString()+"-2", payoutID, what))
}

// warnNewPayout warns that applying a replacement sends new money, under which key: a replacement
// reads like an edit in the plan, but the old payout stays sent and the new one is paid on top.
func warnNewPayout(configKey types.String, state PayoutResourceModel, what string, diags *diag.Diagnostics) {
	oldKey, payoutID := state.IdempotencyKey, state.PayoutID.ValueString()
	var newKey string
	switch {
	case configKey.IsNull():
		newKey = "under a newly generated idempotency_key"
	case oldKey.IsNull(): // imported: the key the payout was sent with is not known
		newKey = fmt.Sprintf("under idempotency_key %q (if payout %s was sent with that key, change it too: the API "+
			"refuses a different payout under it)", configKey.ValueString(), payoutID)
	case configKey.IsUnknown():
		newKey = fmt.Sprintf("under the idempotency_key the configuration gives, which must differ from %q", oldKey.ValueString())
	default:
		newKey = fmt.Sprintf("under idempotency_key %q", configKey.ValueString())
	}
	diags.AddWarning("Replacing a Payout Sends a New Payout",
		fmt.Sprintf("Changing %s forces replacement of payout %s. Applying this plan forgets that payout (payouts "+
			"cannot be reversed: its money stays sent) and sends a NEW payout %s. Review the amount and destination "+
			"before you apply. A key belongs to one payout: the Malipo API refuses a different payout under a key it "+
			"has already used, so an idempotency_key you set yourself must change whenever the payout does.",
			what, payoutID, newKey))
}

// Create sends the payout with its idempotency key and, unless told not to, waits for its final status.
func (r *PayoutResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan PayoutResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	createTimeout, diags := plan.Timeouts.Create(ctx, defaultPayoutCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, createTimeout)
	defer cancel()

	key := plan.IdempotencyKey.ValueString()
	ownKey := !plan.IdempotencyKey.IsNull() && !plan.IdempotencyKey.IsUnknown()
	if !ownKey {
		key = newUUID()
	}
	plan.IdempotencyKey = types.StringValue(key)

	var meta client.Meta
	payout, err := r.client.ProcessPayout(ctx, plan.request(), client.WithIdempotencyKey(key), client.WithMeta(&meta))
	if err != nil {
		resp.Diagnostics.AddError(payoutCreateError(err, key))
		return
	}
	tflog.Info(ctx, "Created payout", map[string]any{"payout_id": payout.PayoutID, "replayed": meta.Replayed, "attempts": meta.Attempts})
	plan.setComputed(payout)

	if plan.WaitForFinalStatus.ValueBool() && !payout.Status.Final() {
		final, err := r.waitForFinalStatus(ctx, payout.PayoutID)
		if final != nil {
			plan.setComputed(final)
		}
		if err != nil {
			// The payout exists: keep it (an error would taint it, and the next apply would pay again).
			resp.Diagnostics.AddWarning("Payout Still Processing",
				fmt.Sprintf("Payout %s was created but did not reach a final status: %s. It is kept in state with status %q "+
					"and will not be sent again; refresh (or the next plan) updates its status. Raise timeouts.create to wait longer.",
					payout.PayoutID, err, plan.Status.ValueString()))
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	setIdentity(ctx, resp.Identity, payoutIdentity{PayoutID: plan.PayoutID}, &resp.Diagnostics)
	if plan.Status.ValueString() == string(api.PayoutStatusFailed) {
		again := "apply again: the failed payout is tainted and will be replaced by a new one."
		if ownKey {
			// A tainted payout is planned as a create, so the plan cannot catch a reused key: say it here.
			again = fmt.Sprintf("apply again with a new idempotency_key (for example %q): the failed payout is tainted "+
				"and will be replaced by a new one, but the Malipo API keeps %q for the failed payout and would replay "+
				"its failure, or refuse a changed payout, under it.", key+"-2", key)
		}
		resp.Diagnostics.AddError("Payout Failed",
			fmt.Sprintf("Payout %s failed with reason %s; no money moved. Fix the cause (for example the destination "+
				"account or wallet, or the merchant's balance) and %s", plan.PayoutID.ValueString(),
				plan.FailureReason.ValueString(), again))
	}
}

// payoutCreateError turns a failed create into a diagnostic that says whether money may have moved
// and how to retry safely.
func payoutCreateError(err error, key string) (string, string) {
	var apiErr *client.APIError
	switch {
	case client.IsValidation(err):
		return "Payout Rejected", "The Malipo API rejected the payout, so no money moved: " + errText(err) +
			". Fix the attribute the message names and apply again."
	case errors.As(err, &apiErr) && apiErr.Code == api.CodeDuplicateReference:
		holder := "Another payment or payout of this merchant"
		if apiErr.ExistingID != "" {
			holder = apiErr.ExistingID + ", another of this merchant's payments or payouts,"
		}
		return "Payout Reference Already Used", "The Malipo API refused the payout, so no money moved: " + errText(err) +
			". " + holder + " already has this reference, and references are unique: set a reference of its own (for " +
			"example the invoice number with a suffix), or import the payout that has it instead of sending another."
	case client.IsConflict(err):
		return "Payout Conflicts With an Earlier Request", "The Malipo API refused the payout: " + errText(err) +
			fmt.Sprintf(". idempotency_key %q was already used with a different payout (or the merchant reference is taken); "+
				"use a new idempotency_key for a new payout.", key)
	case errors.As(err, &apiErr) && apiErr.StatusCode < 500 && apiErr.StatusCode != 429:
		return "Payout Rejected", "The Malipo API rejected the payout, so no money moved: " + errText(err) +
			". Check the provider's keys and the payout's attributes, then apply again."
	default:
		return "Payout Outcome Unknown", fmt.Sprintf("No final answer arrived for the payout (%s), so it may or may "+
			"not have been created. It was sent with idempotency_key %q: set idempotency_key = %q in the configuration "+
			"and apply again. The service then replays the first payout instead of paying twice.", errText(err), key, key)
	}
}

// waitForFinalStatus polls the payout until it is success or failed, or ctx ends. It returns the last
// payout read, if any, and an error when no final status was seen.
func (r *PayoutResource) waitForFinalStatus(ctx context.Context, payoutID string) (*client.Payout, error) {
	delay := r.pollFirst
	var last *client.Payout
	for {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return last, fmt.Errorf("waiting for a final status: %w", ctx.Err())
		case <-t.C:
		}
		p, err := r.client.GetPayout(ctx, payoutID)
		if err != nil {
			return last, err
		}
		last = p
		if p.Status.Final() {
			return p, nil
		}
		delay = min(delay*2, r.pollMax)
	}
}

// Read refreshes the payout, its status above all. A payout the API no longer knows is removed from
// state.
func (r *PayoutResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state PayoutResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	payout, err := r.client.GetPayout(ctx, state.PayoutID.ValueString())
	if client.IsNotFound(err) {
		tflog.Warn(ctx, "Payout not found; removing it from state", map[string]any{"payout_id": state.PayoutID.ValueString()})
		// The framework wants an identity even for a removed resource (v1.19.0); it is the gone one's.
		setIdentity(ctx, resp.Identity, payoutIdentity{PayoutID: state.PayoutID}, &resp.Diagnostics)
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read Payout",
			fmt.Sprintf("Reading payout %s failed: %s. Check the provider's base_url and keys, then refresh again.",
				state.PayoutID.ValueString(), errText(err)))
		return
	}
	state.setInputs(payout)
	state.setComputed(payout)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	setIdentity(ctx, resp.Identity, payoutIdentity{PayoutID: state.PayoutID}, &resp.Diagnostics)
}

// Update changes only what does not touch the payout (wait_for_final_status, timeouts, a key recorded
// after import) and refreshes the status.
func (r *PayoutResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state PayoutResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID, plan.PayoutID, plan.CreatedAt = state.ID, state.PayoutID, state.CreatedAt
	setIdentity(ctx, resp.Identity, payoutIdentity{PayoutID: state.PayoutID}, &resp.Diagnostics)
	plan.Status, plan.FailureReason = state.Status, state.FailureReason
	if payout, err := r.client.GetPayout(ctx, state.PayoutID.ValueString()); err == nil {
		plan.setComputed(payout)
	} else {
		tflog.Warn(ctx, "Could not refresh payout status during update", map[string]any{"error": err.Error()})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete forgets the payout: the API cannot reverse one.
func (r *PayoutResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state PayoutResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.AddWarning("Payout Removed From State Only",
		fmt.Sprintf("Payout %s (%d, status %s) was removed from Terraform state. Payouts cannot be reversed: its money "+
			"stays sent. To pay again, add a new malipo_payout.", state.PayoutID.ValueString(), state.amount(),
			state.Status.ValueString()))
}

// ImportState imports a payout by payout id, or by identity (an import block's identity = { payout_id =
// ... }); Read fills in the rest. The idempotency key is unknown.
func (r *PayoutResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByIDOrIdentity(ctx, "payout_id", req, resp, "id", "payout_id")
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("wait_for_final_status"), true)...)
}

// request builds the API request from the plan.
func (m *PayoutResourceModel) request() client.PayoutRequest {
	if m.TransferTo.ValueString() == string(api.TransferToBank) {
		return client.BankPayout{
			Amount:        m.amount(),
			CountryID:     m.CountryID.ValueString(),
			BankID:        m.BankID.ValueString(),
			AccountNumber: m.AccountNumber.ValueString(),
			Narration:     m.Narration.ValueString(),
			Reference:     m.Reference.ValueString(),
			WebhookURL:    m.WebhookURL.ValueString(),
		}
	}
	return client.MobilePayout{
		Amount:          m.amount(),
		CountryID:       m.CountryID.ValueString(),
		MomoPhoneNumber: m.MomoPhoneNumber.ValueString(),
		Narration:       m.Narration.ValueString(),
		Reference:       m.Reference.ValueString(),
		WebhookURL:      m.WebhookURL.ValueString(),
	}
}

// amount is the amount as the API takes it; the validators made sure that it is a whole number in range.
func (m *PayoutResourceModel) amount() int64 {
	f := m.Amount.ValueBigFloat()
	if f == nil {
		return 0
	}
	i, _ := f.Int64()
	return i
}

// setComputed copies what the API decides into the model.
func (m *PayoutResourceModel) setComputed(p *client.Payout) {
	m.ID = types.StringValue(p.PayoutID)
	m.PayoutID = types.StringValue(p.PayoutID)
	m.Status = types.StringValue(string(p.Status))
	m.FailureReason = optionalString(string(p.FailureReason))
	m.CreatedAt = timestampValue(p.CreatedAt)
}

// setInputs copies the payout's inputs as the API echoes them, so that a refresh shows drift and an
// import fills them in.
func (m *PayoutResourceModel) setInputs(p *client.Payout) {
	m.Amount = types.NumberValue(new(big.Float).SetInt64(p.Amount))
	m.CountryID = types.StringValue(p.CountryID)
	m.TransferTo = types.StringValue(string(p.TransferTo))
	m.BankID = optionalString(p.BankID)
	m.AccountNumber = optionalStringPtr(p.AccountNumber)
	m.MomoPhoneNumber = optionalString(p.MomoPhoneNumber)
	m.Narration = optionalString(p.Narration)
	m.WebhookURL = optionalString(p.WebhookURL)
	m.Reference = optionalString(p.Reference)
}

// optionalString is null for "", the API's way of leaving an optional field out.
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// optionalStringPtr is optionalString for an optional field that the generated types make a pointer
// (the document lets "" differ from absent there): nil and "" are both null, as an attribute left out of
// the configuration is.
func optionalStringPtr(s *string) types.String {
	if s == nil {
		return types.StringNull()
	}
	return optionalString(*s)
}

// newUUID returns a random (version 4) UUID, the idempotency key of a payout without one.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
