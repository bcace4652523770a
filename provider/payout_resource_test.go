package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

const payoutAddr = "malipo_payout.test"

var (
	uuidPattern   = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	objectPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)
)

// payoutTestValues are the document's test values: which account and wallet numbers succeed, and
// which fail with which reason.
type payoutTestValues struct {
	bankOK, bankFailed     openapi.BankPayoutTestValue
	mobileOK, mobileFailed openapi.MobilePayoutTestValue
}

func testValues(t testing.TB) payoutTestValues {
	t.Helper()
	spec, err := openapi.Default()
	require.NoError(t, err)
	tv, err := spec.TestValues()
	require.NoError(t, err)
	var out payoutTestValues
	for _, v := range tv.Payouts.Bank {
		switch {
		case v.Status == "success" && out.bankOK.AccountNumber == "":
			out.bankOK = v
		case v.Status == "failed" && out.bankFailed.AccountNumber == "":
			out.bankFailed = v
		}
	}
	for _, v := range tv.Payouts.MobileNumber {
		switch {
		case v.Status == "success" && out.mobileOK.MomoPhoneNumber == "":
			out.mobileOK = v
		case v.Status == "failed" && out.mobileFailed.MomoPhoneNumber == "":
			out.mobileFailed = v
		}
	}
	require.NotEmpty(t, out.bankOK.AccountNumber)
	require.NotEmpty(t, out.bankFailed.FailureReason)
	require.NotEmpty(t, out.mobileOK.MomoPhoneNumber)
	require.NotEmpty(t, out.mobileFailed.FailureReason)
	return out
}

// checkPayouts is a CheckDestroy for payouts: destroy reverses nothing (every payout is still in the
// sandbox) and exactly want payouts were ever made, so no create paid twice.
func (s *testSandbox) checkPayouts(want int) func(*terraform.State) error {
	return func(*terraform.State) error {
		if got := len(s.srv.Payouts(sandbox.DefaultPublicKey)); got != want {
			return fmt.Errorf("the sandbox has %d payouts, want exactly %d", got, want)
		}
		return nil
	}
}

func bankPayout(account string, amount int) string {
	return fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount         = %d
  country_id     = "ctry_zm"
  transfer_to    = "bank"
  bank_id        = "bank_zm_zanaco"
  account_number = %q
  narration      = "Supplier invoice 88"
}`, amount, account)
}

// A bank payout reaches success; it imports by payout id; changing an input replaces it (a new payout,
// the plan says so) and the re-plan after each apply is empty.
func TestAccPayoutResource_bank(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	newPayout := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(2),
		Steps: []resource.TestStep{
			{
				Config: sb.providerConfig() + bankPayout(tv.bankOK.AccountNumber, 2500),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(payoutAddr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("failure_reason"), knownvalue.Null()),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("payout_id"), knownvalue.StringRegexp(objectPattern)),
					statecheck.CompareValuePairs(payoutAddr, tfjsonpath.New("id"), payoutAddr, tfjsonpath.New("payout_id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("idempotency_key"), knownvalue.StringRegexp(uuidPattern)),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("created_at"), knownvalue.StringRegexp(timestampPattern)),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("wait_for_final_status"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("amount"), knownvalue.Int64Exact(2500)),
					newPayout.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
			{
				ResourceName:      payoutAddr,
				ImportState:       true,
				ImportStateVerify: true,
				// The API never returns the idempotency key.
				ImportStateVerifyIgnore: []string{"idempotency_key"},
			},
			{
				Config: sb.providerConfig() + bankPayout(tv.bankOK.AccountNumber, 2600),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(payoutAddr, plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectUnknownValue(payoutAddr, tfjsonpath.New("payout_id")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("amount"), knownvalue.Int64Exact(2600)),
					newPayout.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
		},
	})
}

// Mobile payouts to a wallet and to the merchant's own wallet (no momo_phone_number) reach success,
// and import.
func TestAccPayoutResource_mobile(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(2),
		Steps: []resource.TestStep{
			{
				Config: sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount            = 120
  country_id        = "ctry_zm"
  transfer_to       = "mobile_number"
  momo_phone_number = %q
}

resource "malipo_payout" "own_wallet" {
  amount      = 75
  country_id  = "ctry_zm"
  transfer_to = "mobile_number"
  narration   = "Float top-up"
}`, tv.mobileOK.MomoPhoneNumber),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("momo_phone_number"), knownvalue.StringExact(tv.mobileOK.MomoPhoneNumber)),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("bank_id"), knownvalue.Null()),
					statecheck.ExpectKnownValue("malipo_payout.own_wallet", tfjsonpath.New("status"), knownvalue.StringExact("success")),
					statecheck.ExpectKnownValue("malipo_payout.own_wallet", tfjsonpath.New("momo_phone_number"), knownvalue.Null()),
				},
			},
			{
				ResourceName:            "malipo_payout.own_wallet",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"idempotency_key"},
			},
		},
	})
}

// A payout that fails (the test value's account) is an error that names the reason; the failed payout
// is kept in state (tainted), so the next plan replaces it.
func TestAccPayoutResource_failed(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(1),
		Steps: []resource.TestStep{
			{
				Config:      sb.providerConfig() + bankPayout(tv.bankFailed.AccountNumber, 500),
				ExpectError: regexp.MustCompile(`(?s)Payout Failed.*failed with reason ` + regexp.QuoteMeta(tv.bankFailed.FailureReason)),
			},
			{
				Config:             sb.providerConfig() + bankPayout(tv.bankFailed.AccountNumber, 500),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true, // the tainted payout is replaced
			},
		},
	})
}

// wait_for_final_status = false stores the payout while it is processing; a refresh updates status.
func TestAccPayoutResource_refreshUpdatesStatus(t *testing.T) {
	sb := startSandbox(t, sandbox.WithTimings(sandbox.Timings{PayoutDelay: 1500 * time.Millisecond}))
	tv := testValues(t)
	config := sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount                = 300
  country_id            = "ctry_zm"
  transfer_to           = "mobile_number"
  momo_phone_number     = %q
  wait_for_final_status = false
}`, tv.mobileFailed.MomoPhoneNumber)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(1),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("processing")),
				},
			},
			{
				// The payout settles at the sandbox (failed) before this step's refresh reads it.
				PreConfig: func() { waitForPayouts(t, sb) },
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("failed")),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("failure_reason"), knownvalue.StringExact(tv.mobileFailed.FailureReason)),
				},
			},
		},
	})
}

// The sandbox loses the first response of the create after making the payout: the provider retries
// with the same Idempotency-Key, the service replays, and exactly one payout exists.
func TestAccPayoutResource_lostFirstResponseMakesOnePayout(t *testing.T) {
	faulty, err := faults.Options(faults.LoseFirstCreateResponse)
	require.NoError(t, err)
	sb := startSandbox(t, faulty...)
	tv := testValues(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(1),
		Steps: []resource.TestStep{
			{
				Config: sb.providerConfig() + bankPayout(tv.bankOK.AccountNumber, 1500),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
				},
				Check: func(st *terraform.State) error {
					all := sb.srv.Payouts(sandbox.DefaultPublicKey)
					if len(all) != 1 {
						return fmt.Errorf("the sandbox has %d payouts after a create whose first response was lost, want 1", len(all))
					}
					if id := st.RootModule().Resources[payoutAddr].Primary.Attributes["payout_id"]; id != all[0].PayoutID {
						return fmt.Errorf("state has payout %s, the sandbox %s", id, all[0].PayoutID)
					}
					return nil
				},
			},
		},
	})
}

// With an idempotency_key of the merchant's own, forgetting a payout and declaring it again (what a
// re-run after an interrupted apply does) gets the first payout back instead of paying twice.
func TestAccPayoutResource_explicitKeyNeverPaysTwice(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	config := sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount            = 640
  country_id        = "ctry_zm"
  transfer_to       = "mobile_number"
  momo_phone_number = %q
  idempotency_key   = "invoice-2026-0042"
}`, tv.mobileOK.MomoPhoneNumber)
	samePayout := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(1),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("idempotency_key"), knownvalue.StringExact("invoice-2026-0042")),
					samePayout.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
			{Config: sb.providerConfig()}, // removed from state only
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(payoutAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
					samePayout.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
		},
	})
}

// Bad input fails at plan time with an error that names the attribute; no payout is made.
func TestAccPayoutResource_invalidInput(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	account, wallet := tv.bankOK.AccountNumber, tv.mobileOK.MomoPhoneNumber
	step := func(body, want string) resource.TestStep {
		return resource.TestStep{
			Config:      sb.providerConfig() + "resource \"malipo_payout\" \"test\" {\n  country_id = \"ctry_zm\"\n" + body + "\n}",
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(0),
		Steps: []resource.TestStep{
			step(`amount = 0
			      transfer_to = "mobile_number"`, wrapped(`Payout Amount Too Small`).String()+`.*`+wrapped(`amount = 0, but a `+
				`payout's amount must be at least 1, a whole number of major units of the destination country's currency `+
				`(2500 pays 2,500 ZMW to Zambia). Set amount to 1 or more.`).String()),
			step(`amount = 10
			      transfer_to = "cash"`, `(?s)Attribute transfer_to value must be one of`),
			step(`amount = 10
			      transfer_to = "bank"
			      account_number = "`+account+`"`, `(?s)bank_id is required when transfer_to is "bank"`),
			step(`amount = 10
			      transfer_to = "bank"
			      bank_id = "bank_zm_zanaco"`, `(?s)account_number is required when transfer_to is "bank"`),
			step(`amount = 10
			      transfer_to = "bank"
			      bank_id = "bank_zm_zanaco"
			      account_number = "`+account+`"
			      momo_phone_number = "`+wallet+`"`, `(?s)momo_phone_number cannot be set when transfer_to is "bank"`),
			step(`amount = 10
			      transfer_to = "mobile_number"
			      account_number = "`+account+`"`, `(?s)account_number cannot be set when transfer_to is\s+"mobile_number"`),
			step(`amount = 10
			      transfer_to = "mobile_number"
			      momo_phone_number = "+`+wallet+`"`, `(?s)Attribute momo_phone_number must be an E.164 number`),
			step(`amount = 10
			      transfer_to = "bank"
			      bank_id = "bank_zm_zanaco"
			      account_number = "12"`, `(?s)Attribute account_number string length must be between 4 and 34`),
			step(`amount = 10
			      transfer_to = "mobile_number"
			      webhook_url = "not a url"`, `(?s)Attribute webhook_url`),
		},
	})
}

// payoutObject builds a raw malipo_payout object with the given attributes, the others null.
func payoutObject(t *testing.T, vals map[string]tftypes.Value) (tftypes.Value, fwresource.SchemaResponse) {
	t.Helper()
	ctx := context.Background()
	var sresp fwresource.SchemaResponse
	NewPayoutResource().Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	typ, ok := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	require.True(t, ok)
	raw := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		if v, ok := vals[name]; ok {
			raw[name] = v
		} else {
			raw[name] = tftypes.NewValue(at, nil)
		}
	}
	return tftypes.NewValue(typ, raw), sresp
}

func bankPayoutValues(t *testing.T, amount int64, key string) map[string]tftypes.Value {
	t.Helper()
	v := map[string]tftypes.Value{
		"amount":         tftypes.NewValue(tftypes.Number, amount),
		"country_id":     str("ctry_zm"),
		"transfer_to":    str("bank"),
		"bank_id":        str("bank_zm_zanaco"),
		"account_number": str(testValues(t).bankOK.AccountNumber),
		"payout_id":      str("po_1"),
		"id":             str("po_1"),
		"status":         str("success"),
	}
	if key != "" {
		v["idempotency_key"] = str(key)
	}
	return v
}

// Destroy forgets the payout with a warning that it cannot be reversed.
func TestPayoutDeleteWarnsThatNothingIsReversed(t *testing.T) {
	raw, sresp := payoutObject(t, bankPayoutValues(t, 2500, "k"))
	var resp fwresource.DeleteResponse
	NewPayoutResource().(*PayoutResource).Delete(context.Background(),
		fwresource.DeleteRequest{State: tfsdk.State{Schema: sresp.Schema, Raw: raw}}, &resp)
	require.False(t, resp.Diagnostics.HasError(), "%v", resp.Diagnostics)
	require.Len(t, resp.Diagnostics.Warnings(), 1)
	w := resp.Diagnostics.Warnings()[0]
	assert.Equal(t, "Payout Removed From State Only", w.Summary())
	assert.Contains(t, w.Detail(), "po_1")
	assert.Contains(t, w.Detail(), "cannot be reversed")
}

// The plan warns when a replacement would send a new payout (and under which key) and when a destroy
// reverses nothing, stays quiet when a key is only recorded after an import, and fails a replacement
// under the key the old payout was sent with.
func TestPayoutModifyPlanWarnings(t *testing.T) {
	withKey := func(v map[string]tftypes.Value, key tftypes.Value) map[string]tftypes.Value {
		v["idempotency_key"] = key
		return v
	}
	unknownKey := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	tests := []struct {
		name                  string
		state, plan, config   map[string]tftypes.Value
		destroy               bool
		wantSummary, wantWord string
		wantError             bool
	}{
		{name: "amount changes", state: bankPayoutValues(t, 2500, "k"), plan: bankPayoutValues(t, 2600, "k"), config: bankPayoutValues(t, 2600, ""),
			wantSummary: "Replacing a Payout Sends a New Payout", wantWord: "amount"},
		{name: "amount changes, generated key", state: bankPayoutValues(t, 2500, "k"), plan: bankPayoutValues(t, 2600, "k"), config: bankPayoutValues(t, 2600, ""),
			wantSummary: "Replacing a Payout Sends a New Payout", wantWord: "under a newly generated idempotency_key"},
		{name: "key changes", state: bankPayoutValues(t, 2500, "k1"), plan: bankPayoutValues(t, 2500, "k2"), config: bankPayoutValues(t, 2500, "k2"),
			wantSummary: "Replacing a Payout Sends a New Payout", wantWord: "idempotency_key"},
		{name: "amount and key change", state: bankPayoutValues(t, 2500, "k1"), plan: bankPayoutValues(t, 2600, "k2"), config: bankPayoutValues(t, 2600, "k2"),
			wantSummary: "Replacing a Payout Sends a New Payout", wantWord: `NEW payout under idempotency_key "k2"`},
		{name: "amount changes, key unknown", state: bankPayoutValues(t, 2500, "k1"), plan: withKey(bankPayoutValues(t, 2600, ""), unknownKey),
			config:      withKey(bankPayoutValues(t, 2600, ""), unknownKey),
			wantSummary: "Replacing a Payout Sends a New Payout", wantWord: `must differ from "k1"`},
		{name: "amount changes after import", state: bankPayoutValues(t, 2500, ""), plan: bankPayoutValues(t, 2600, "k"), config: bankPayoutValues(t, 2600, "k"),
			wantSummary: "Replacing a Payout Sends a New Payout", wantWord: "if payout po_1 was sent with that key, change it too"},
		{name: "amount changes, same key", state: bankPayoutValues(t, 2500, "k"), plan: bankPayoutValues(t, 2600, "k"), config: bankPayoutValues(t, 2600, "k"),
			wantError: true, wantSummary: "Replacing a Payout Needs a New Idempotency Key", wantWord: `idempotency_key is still "k"`},
		{name: "key recorded after import", state: bankPayoutValues(t, 2500, ""), plan: bankPayoutValues(t, 2500, "k"), config: bankPayoutValues(t, 2500, "k")},
		{name: "nothing changes", state: bankPayoutValues(t, 2500, "k"), plan: bankPayoutValues(t, 2500, "k"), config: bankPayoutValues(t, 2500, "")},
		{name: "destroy", state: bankPayoutValues(t, 2500, "k"), destroy: true,
			wantSummary: "Destroying a Payout Does Not Reverse It", wantWord: "po_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, sresp := payoutObject(t, tt.state)
			plan, _ := payoutObject(t, tt.plan)
			config, _ := payoutObject(t, tt.config)
			if tt.destroy {
				plan = tftypes.NewValue(plan.Type(), nil)
				config = tftypes.NewValue(config.Type(), nil)
			}
			req := fwresource.ModifyPlanRequest{
				State:  tfsdk.State{Schema: sresp.Schema, Raw: state},
				Plan:   tfsdk.Plan{Schema: sresp.Schema, Raw: plan},
				Config: tfsdk.Config{Schema: sresp.Schema, Raw: config},
			}
			resp := fwresource.ModifyPlanResponse{Plan: req.Plan}
			NewPayoutResource().(*PayoutResource).ModifyPlan(context.Background(), req, &resp)
			if tt.wantError {
				require.Len(t, resp.Diagnostics.Errors(), 1, "%v", resp.Diagnostics)
				assert.Empty(t, resp.Diagnostics.Warnings())
				assert.Equal(t, tt.wantSummary, resp.Diagnostics.Errors()[0].Summary())
				assert.Contains(t, resp.Diagnostics.Errors()[0].Detail(), tt.wantWord)
				return
			}
			require.False(t, resp.Diagnostics.HasError(), "%v", resp.Diagnostics)
			if tt.wantSummary == "" {
				assert.Empty(t, resp.Diagnostics.Warnings())
				return
			}
			require.Len(t, resp.Diagnostics.Warnings(), 1)
			assert.Equal(t, tt.wantSummary, resp.Diagnostics.Warnings()[0].Summary())
			assert.Contains(t, resp.Diagnostics.Warnings()[0].Detail(), tt.wantWord)
		})
	}
}

// A finished payout plans no change of status or failure_reason when only what does not touch it
// changes (wait_for_final_status, timeouts): its status can never change again, and "(known after
// apply)" on a money object reads as a possible change.
func TestAccPayoutResource_finishedPayoutPlansNoStatusChange(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	config := func(account, extra string) string {
		return sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount         = 2500
  country_id     = "ctry_zm"
  transfer_to    = "bank"
  bank_id        = "bank_zm_zanaco"
  account_number = %q
  %s
}`, account, extra)
	}
	unchanged := func(status string, reason knownvalue.Check) []plancheck.PlanCheck {
		return []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(payoutAddr, plancheck.ResourceActionUpdate),
			plancheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact(status)),
			plancheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("failure_reason"), reason),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(1),
		Steps: []resource.TestStep{
			{Config: config(tv.bankOK.AccountNumber, "")},
			{
				Config:           config(tv.bankOK.AccountNumber, "wait_for_final_status = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: unchanged("success", knownvalue.Null())},
			},
			{
				Config:           config(tv.bankOK.AccountNumber, "wait_for_final_status = false\n  timeouts = { create = \"2m\" }"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: unchanged("success", knownvalue.Null())},
			},
		},
	})
}

// reference is sent with the payout, read back on import, finds the payout through malipo_transaction,
// and is unique: a replacement under the same reference fails the plan, and a second payout under it is
// refused by the API with an error that names the payout holding it.
func TestAccPayoutResource_reference(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	config := func(amount int, reference string) string {
		return sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount         = %d
  country_id     = "ctry_zm"
  transfer_to    = "bank"
  bank_id        = "bank_zm_zanaco"
  account_number = %q
  reference      = %q
}

data "malipo_transaction" "by_reference" {
  reference = malipo_payout.test.reference
}
`, amount, tv.bankOK.AccountNumber, reference)
	}
	second := config(2500, "inv-88") + fmt.Sprintf(`
resource "malipo_payout" "again" {
  amount         = 10
  country_id     = "ctry_zm"
  transfer_to    = "mobile_number"
  momo_phone_number = %q
  reference      = "inv-88"
  depends_on     = [malipo_payout.test]
}`, tv.mobileOK.MomoPhoneNumber)
	const txn = "data.malipo_transaction.by_reference"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(1), // the refused second payout made none,
		Steps: []resource.TestStep{
			{
				Config:      config(2500, "not a reference"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)reference.*must start with a letter or digit`),
			},
			{
				Config: config(2500, "inv-88"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("reference"), knownvalue.StringExact("inv-88")),
					statecheck.CompareValuePairs(txn, tfjsonpath.New("id"), payoutAddr, tfjsonpath.New("payout_id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue(txn, tfjsonpath.New("merchant_reference"), knownvalue.StringExact("inv-88")),
					statecheck.ExpectKnownValue(txn, tfjsonpath.New("type"), knownvalue.StringExact("payout")),
				},
			},
			{
				ResourceName:            payoutAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"idempotency_key"},
			},
			{
				Config:      config(2600, "inv-88"),
				ExpectError: regexp.MustCompile(`(?s)Replacing a Payout Needs a New Reference.*reference is still "inv-88".*Nothing has\s+been\s+sent.*"inv-88-2"`),
			},
			{
				Config:      second,
				ExpectError: regexp.MustCompile(`(?s)Payout Reference Already Used.*no money moved.*po_[0-9a-f]+, another of this\s+merchant's`),
			},
			{Config: config(2500, "inv-88"), PlanOnly: true},
		},
	})
}
