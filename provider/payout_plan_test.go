package provider

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// Mistakes caught at plan time: a fractional amount, a replacement under the key the old payout was
// sent with, and a destination the API's reference data does not have.

// wrapped matches msg as Terraform prints it: the CLI wraps a diagnostic's detail at its own width, so
// every run of spaces in msg may be a line break. {line} stands for a line number of the configuration
// file the test harness writes, {payout} for a payout id the sandbox makes up.
func wrapped(msg string) *regexp.Regexp {
	words := strings.Fields(msg)
	for i, w := range words {
		w = regexp.QuoteMeta(w)
		w = strings.ReplaceAll(w, regexp.QuoteMeta("{line}"), `[0-9]+`)
		words[i] = strings.ReplaceAll(w, regexp.QuoteMeta("{payout}"), `[A-Za-z0-9_]+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(words, `\s+`))
}

func TestPayoutAmountProblem(t *testing.T) {
	tests := []struct {
		value   string
		summary string
		fix     string
	}{
		{"10.5", "Payout Amount Is Not a Whole Number", "amount = 10.5, but the Malipo API takes a payout's amount as a whole number of major units of the destination country's currency (2500 pays 2,500 ZMW to Zambia): a fraction of a unit cannot be paid out. Set amount to 10 or 11."},
		{"0.25", "Payout Amount Is Not a Whole Number", "Set amount to 1."},
		{"-3.5", "Payout Amount Is Not a Whole Number", "Set amount to 1."},
		{"9007199254740990.5", "Payout Amount Is Not a Whole Number", "Set amount to 9007199254740990 or 9007199254740991."},
		{"0", "Payout Amount Too Small", "amount = 0, but a payout's amount must be at least 1"},
		{"-7", "Payout Amount Too Small", "Set amount to 1 or more."},
		{"9007199254740992", "Payout Amount Too Large", "must be at most 9007199254740991"},
		{"1", "", ""},
		{"9007199254740991", "", ""},
	}
	for _, tt := range tests {
		f, _, err := big.ParseFloat(tt.value, 10, 512, big.ToNearestEven)
		require.NoError(t, err)
		summary, detail := payoutAmountProblem(f)
		assert.Equal(t, tt.summary, summary, tt.value)
		assert.Contains(t, detail, tt.fix, tt.value)
	}
}

// amount = 10.5 fails the plan with an error that names the attribute, the value and the fix, not the
// framework's "Value %!s(*big.Float=10.5) is not an integer"; nothing is sent.
func TestAccPayoutResource_fractionalAmount(t *testing.T) {
	sb := startSandbox(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(0),
		Steps: []resource.TestStep{
			{
				Config: sb.providerConfig() + `
resource "malipo_payout" "test" {
  amount      = 10.5
  country_id  = "ctry_zm"
  transfer_to = "mobile_number"
}`,
				PlanOnly: true,
				ExpectError: wrapped(`Error: Payout Amount Is Not a Whole Number with malipo_payout.test, on terraform_plugin_test.tf line {line}, ` +
					`in resource "malipo_payout" "test": {line}: amount = 10.5 ` +
					`amount = 10.5, but the Malipo API takes a payout's amount as a whole number of major units of the destination ` +
					`country's currency (2500 pays 2,500 ZMW to Zambia): a fraction of a unit cannot be paid out. Set amount to 10 or 11.`),
			},
		},
	})
}

// Changing amount or account_number of a payout whose idempotency_key stays the same fails at plan,
// saying why and what to do, and sends nothing (the old payout stays in state, the sandbox holds only
// it). The fix the message gives, a new key, plans a replacement and applies.
func TestAccPayoutResource_replacementNeedsNewKey(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	config := func(amount int, account, key string) string {
		return sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount          = %d
  country_id      = "ctry_zm"
  transfer_to     = "bank"
  bank_id         = "bank_zm_zanaco"
  account_number  = %q
  idempotency_key = %q
}`, amount, account, key)
	}
	// The message names the payout being replaced, whose id the sandbox makes up: {payout} stands for it.
	refused := func(changed string) *regexp.Regexp {
		return wrapped(fmt.Sprintf(`Error: Replacing a Payout Needs a New Idempotency Key `+
			`with malipo_payout.test, on terraform_plugin_test.tf line {line}, in resource "malipo_payout" "test": `+
			`{line}: idempotency_key = "invoice-2026-0077" `+
			`Changing %s forces replacement of payout {payout}, which sends a new payout, but idempotency_key is still `+
			`"invoice-2026-0077", the key payout {payout} was sent with. The Malipo API keeps a key for the payout it first `+
			`sent: it would refuse a different payout under it (%s) or, for the same one, replay the old payout instead `+
			`of sending a new one, and by then the old payout would already be gone from Terraform state. Nothing has `+
			`been sent. To send a new payout, change idempotency_key (for example to "invoice-2026-0077-2") or remove it `+
			`to have one generated. To keep payout {payout}, undo the change to %s.`,
			changed, api.CodeIdempotencyKeyReused, changed))
	}
	onePayout := func() {
		require.Len(t, sb.srv.Payouts(sandbox.DefaultPublicKey), 1, "a refused plan sent nothing")
	}
	original := statecheck.CompareValue(compare.ValuesSame())
	replaced := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(2),
		Steps: []resource.TestStep{
			{
				Config: config(640, tv.bankOK.AccountNumber, "invoice-2026-0077"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
					original.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
					replaced.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
			{
				Config:      config(650, tv.bankOK.AccountNumber, "invoice-2026-0077"),
				ExpectError: refused("amount"),
			},
			{
				PreConfig:   onePayout,
				Config:      config(640, tv.bankFailed.AccountNumber, "invoice-2026-0077"),
				ExpectError: refused("account_number"),
			},
			{
				// Nothing changed: the original payout is still the one in state.
				PreConfig: onePayout,
				Config:    config(640, tv.bankOK.AccountNumber, "invoice-2026-0077"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					original.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
			{
				// The fix the message gives: a new key sends the new payout.
				PreConfig: onePayout,
				Config:    config(650, tv.bankOK.AccountNumber, "invoice-2026-0077-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(payoutAddr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("amount"), knownvalue.Int64Exact(650)),
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("idempotency_key"), knownvalue.StringExact("invoice-2026-0077-2")),
					replaced.AddStateValue(payoutAddr, tfjsonpath.New("payout_id")),
				},
			},
		},
	})
}

// A failed payout sent with an idempotency_key of the merchant's own says to apply again with a new key:
// the tainted payout is planned as a create, so the plan cannot see that the key was used, and the API
// refuses a changed payout under it. With the new key the next apply sends the payout.
func TestAccPayoutResource_failedWithOwnKeyNeedsNewKey(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	config := func(account, key string) string {
		return sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount          = 500
  country_id      = "ctry_zm"
  transfer_to     = "bank"
  bank_id         = "bank_zm_zanaco"
  account_number  = %q
  idempotency_key = %q
}`, account, key)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(2),
		Steps: []resource.TestStep{
			{
				Config: config(tv.bankFailed.AccountNumber, "invoice-2026-0099"),
				ExpectError: wrapped(`Error: Payout Failed with malipo_payout.test, on terraform_plugin_test.tf line {line}, in resource ` +
					`"malipo_payout" "test": {line}: resource "malipo_payout" "test" { Payout {payout} failed with reason ` + tv.bankFailed.FailureReason +
					`; no money moved. Fix the cause (for example the destination account or wallet, or the merchant's ` +
					`balance) and apply again with a new idempotency_key (for example "invoice-2026-0099-2"): the failed ` +
					`payout is tainted and will be replaced by a new one, but the Malipo API keeps "invoice-2026-0099" for ` +
					`the failed payout and would replay its failure, or refuse a changed payout, under it.`),
			},
			{
				// What the message warns of: the account fixed, the key kept.
				Config:      config(tv.bankOK.AccountNumber, "invoice-2026-0099"),
				ExpectError: regexp.MustCompile(`Payout Conflicts With an Earlier Request`),
			},
			{
				Config: config(tv.bankOK.AccountNumber, "invoice-2026-0099-2"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
				},
			},
		},
	})
}

// countingProxy stands between the provider and a sandbox: it counts the requests of each operation
// and, while failing is set, answers the reference-data operations with 503 instead of forwarding them.
type countingProxy struct {
	url     string
	mu      sync.Mutex
	counts  map[string]int // by method and path
	failing bool
}

func startCountingProxy(t testing.TB, target string) *countingProxy {
	t.Helper()
	u, err := url.Parse(target)
	require.NoError(t, err)
	p := &countingProxy{counts: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.counts[r.Method+" "+r.URL.Path]++
		failing := p.failing && isReferenceData(r)
		p.mu.Unlock()
		if failing {
			http.Error(w, "reference data unavailable (test proxy)", http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	p.url = hs.URL
	return p
}

func isReferenceData(r *http.Request) bool {
	for _, op := range []api.Operation{api.OpListCountries(), api.OpListBanks()} {
		if r.Method == op.Method && r.URL.Path == op.URL() {
			return true
		}
	}
	return false
}

// count is the number of requests of op (an operation without path parameters) so far.
func (p *countingProxy) count(op api.Operation) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[op.Method+" "+op.URL()]
}

func (p *countingProxy) reset(failing bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts = map[string]int{}
	p.failing = failing
}

// behind is the sandbox as the provider sees it through the proxy.
func (p *countingProxy) behind(sb *testSandbox) *testSandbox {
	return &testSandbox{srv: sb.srv, url: p.url}
}

// A country that does not exist, a country code in place of its id, a bank of another country and a
// bank of no country fail the plan with errors that name the attribute, the value and the valid
// choices, read from the API's reference data; nothing is sent. A replacement's destination is checked
// as a create's is.
func TestAccPayoutResource_destinationCheckedAtPlan(t *testing.T) {
	sb := startSandbox(t)
	tv := testValues(t)
	payout := func(country, bank string) string {
		return sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount         = 2500
  country_id     = %q
  transfer_to    = "bank"
  bank_id        = %q
  account_number = %q
}`, country, bank, tv.bankOK.AccountNumber)
	}
	withKey := func(bank, key string) string {
		return sb.providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "test" {
  amount          = 2500
  country_id      = "ctry_zm"
  transfer_to     = "bank"
  bank_id         = %q
  account_number  = %q
  idempotency_key = %q
}`, bank, tv.bankOK.AccountNumber, key)
	}
	zambianBanks := `bank_zm_zanaco (Zambia National Commercial Bank), bank_zm_stanbic (Stanbic Bank Zambia), ` +
		`bank_zm_absa (Absa Bank Zambia), bank_zm_fnb (First National Bank Zambia)`
	wrongBank := `Error: Bank Not in the Payout's Country with malipo_payout.test, on ` +
		`terraform_plugin_test.tf line {line}, in resource "malipo_payout" "test": {line}: bank_id = "bank_ke_kcb" ` +
		`bank_id "bank_ke_kcb" is KCB Bank Kenya, a bank of Kenya (KE), but country_id "ctry_zm" is Zambia (ZM): ` +
		`a bank payout goes to a bank of its own country. Set bank_id to the id of a bank of Zambia ` +
		`(data.malipo_banks with country = "ZM"): ` + zambianBanks + `, or set country_id = "ctry_ke" to pay into Kenya.`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(1),
		Steps: []resource.TestStep{
			{
				Config:   payout("ctry_xx", "bank_zm_zanaco"),
				PlanOnly: true,
				ExpectError: wrapped(`Error: Unknown Country with malipo_payout.test, on terraform_plugin_test.tf line {line}, ` +
					`in resource "malipo_payout" "test": {line}: country_id = "ctry_xx" ` +
					`country_id "ctry_xx" is not a country of the Malipo API, which would reject the payout. Set country_id ` +
					`to the id of one of its countries (data.malipo_countries): ctry_zm (Zambia), ctry_gh (Ghana), ` +
					`ctry_ke (Kenya), ctry_ug (Uganda), ctry_rw (Rwanda), ctry_tz (Tanzania), ctry_mw (Malawi).`),
			},
			{
				Config:   payout("ZM", "bank_zm_zanaco"),
				PlanOnly: true,
				ExpectError: wrapped(`Error: Unknown Country with malipo_payout.test, on terraform_plugin_test.tf line {line}, ` +
					`in resource "malipo_payout" "test": {line}: country_id = "ZM" ` +
					`country_id "ZM" is not a country id of the Malipo API: country_id takes a country's id, and the id ` +
					`of Zambia (ZM) is ctry_zm. Set country_id = "ctry_zm".`),
			},
			{
				Config:      payout("ctry_zm", "bank_ke_kcb"),
				PlanOnly:    true,
				ExpectError: wrapped(wrongBank),
			},
			{
				Config:   payout("ctry_zm", "bank_zm_nowhere"),
				PlanOnly: true,
				ExpectError: wrapped(`Error: Unknown Bank with malipo_payout.test, on terraform_plugin_test.tf line {line}, ` +
					`in resource "malipo_payout" "test": {line}: bank_id = "bank_zm_nowhere" ` +
					`bank_id "bank_zm_nowhere" is not a bank of Zambia (ZM, country_id "ctry_zm") in the Malipo API, nor of ` +
					`any other of its countries, which would reject the payout. Set bank_id to the id of a bank of Zambia ` +
					`(data.malipo_banks with country = "ZM"): ` + zambianBanks + `.`),
			},
			// A replacement is checked too, in the same plan as its key: both mistakes are reported at once.
			{Config: withKey("bank_zm_zanaco", "invoice-2026-0123")},
			{
				Config:      withKey("bank_ke_kcb", "invoice-2026-0123"),
				ExpectError: regexp.MustCompile(wrapped(wrongBank).String() + `.*Error: Replacing a Payout Needs a New Idempotency Key`),
			},
			{
				Config:      withKey("bank_ke_kcb", "invoice-2026-0124"),
				ExpectError: wrapped(wrongBank),
			},
		},
	})
}

// planCheck adapts a function to plancheck.PlanCheck.
type planCheck func(context.Context, plancheck.CheckPlanRequest, *plancheck.CheckPlanResponse)

func (f planCheck) CheckPlan(ctx context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	f(ctx, req, resp)
}

// referenceReads checks, when the plan is made, how many times the countries and the banks were read.
func referenceReads(t *testing.T, proxy *countingProxy, countries, banks int) plancheck.PlanCheck {
	return planCheck(func(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
		gotCountries, gotBanks := proxy.count(api.OpListCountries()), proxy.count(api.OpListBanks())
		t.Logf("reference data reads during the plan: %d of the countries, %d of banks", gotCountries, gotBanks)
		if gotCountries != countries || gotBanks != banks {
			resp.Error = fmt.Errorf("the plan read the countries %d times and banks %d times, want %d and %d",
				gotCountries, gotBanks, countries, banks)
		}
	})
}

// A plan of 50 payouts, planned concurrently by Terraform, reads the countries once and Zambia's banks
// once: the provider instance caches the reference data. The apply sends the 50 payouts, each once.
func TestAccPayoutResource_referenceDataReadOncePerPlan(t *testing.T) {
	sb := startSandbox(t)
	proxy := startCountingProxy(t, sb.url)
	tv := testValues(t)
	config := proxy.behind(sb).providerConfig() + fmt.Sprintf(`
resource "malipo_payout" "bank" {
  count          = 40
  amount         = 100 + count.index
  country_id     = "ctry_zm"
  transfer_to    = "bank"
  bank_id        = "bank_zm_zanaco"
  account_number = %q
}

resource "malipo_payout" "wallet" {
  count             = 10
  amount            = 100 + count.index
  country_id        = "ctry_zm"
  transfer_to       = "mobile_number"
  momo_phone_number = %q
}`, tv.bankOK.AccountNumber, tv.mobileOK.MomoPhoneNumber)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(50),
		Steps: []resource.TestStep{
			{
				PreConfig: func() { proxy.reset(false) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{referenceReads(t, proxy, 1, 1)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("malipo_payout.bank[39]", tfjsonpath.New("status"), knownvalue.StringExact("success")),
					statecheck.ExpectKnownValue("malipo_payout.wallet[9]", tfjsonpath.New("status"), knownvalue.StringExact("success")),
				},
			},
			{
				// A plan that sends nothing reads no reference data.
				PreConfig: func() { proxy.reset(false) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), referenceReads(t, proxy, 0, 0)},
				},
			},
		},
	})
}

// Reference data that cannot be read does not stop the plan: the check is skipped with a warning (see
// TestCheckPayoutDestinationWarnsWhenReferenceDataIsUnreadable), and the API checks the payout when it is
// sent.
func TestAccPayoutResource_unreadableReferenceDataDoesNotFailThePlan(t *testing.T) {
	sb := startSandbox(t)
	proxy := startCountingProxy(t, sb.url)
	tv := testValues(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(1),
		Steps: []resource.TestStep{
			{
				PreConfig: func() { proxy.reset(true) },
				Config:    proxy.behind(sb).providerConfig() + bankPayout(tv.bankOK.AccountNumber, 900),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(payoutAddr, tfjsonpath.New("status"), knownvalue.StringExact("success")),
				},
				Check: func(*terraform.State) error {
					if proxy.count(api.OpListCountries()) == 0 {
						return fmt.Errorf("the plan did not try to read the countries")
					}
					return nil
				},
			},
		},
	})
}

// testClient is an API client of url with quick retries.
func testClient(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.New(url, sandbox.DefaultPublicKey, sandbox.DefaultSecretKey,
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}))
	require.NoError(t, err)
	return c
}

func destination(country, transferTo, bank string) PayoutResourceModel {
	m := PayoutResourceModel{CountryID: types.StringValue(country), TransferTo: types.StringValue(transferTo), BankID: types.StringNull()}
	if bank != "" {
		m.BankID = types.StringValue(bank)
	}
	return m
}

// Many payouts checked at once, across two countries, read the countries once and each country's banks
// once; a second provider instance (another client) reads them again.
func TestCheckPayoutDestinationReadsEachReferenceOnce(t *testing.T) {
	sb := startSandbox(t)
	proxy := startCountingProxy(t, sb.url)
	c := testClient(t, proxy.url)
	var wg sync.WaitGroup
	diagsOf := make([]diag.Diagnostics, 60)
	for i := range diagsOf {
		m := destination("ctry_zm", "bank", "bank_zm_zanaco")
		switch i % 3 {
		case 1:
			m = destination("ctry_ke", "bank", "bank_ke_kcb")
		case 2:
			m = destination("ctry_zm", "mobile_number", "")
		}
		wg.Go(func() { checkPayoutDestination(t.Context(), c, m, &diagsOf[i]) })
	}
	wg.Wait()
	for _, d := range diagsOf {
		assert.Empty(t, d)
	}
	assert.Equal(t, 1, proxy.count(api.OpListCountries()))
	assert.Equal(t, 2, proxy.count(api.OpListBanks()), "Zambia's banks once, Kenya's once")

	var d diag.Diagnostics
	checkPayoutDestination(t.Context(), testClient(t, proxy.url), destination("ctry_zm", "bank", "bank_zm_zanaco"), &d)
	assert.Empty(t, d)
	assert.Equal(t, 2, proxy.count(api.OpListCountries()), "another provider instance has its own cache")
}

// Unknown values are not checked and read nothing: the API checks them when the payout is sent.
func TestCheckPayoutDestinationSkipsUnknownValues(t *testing.T) {
	sb := startSandbox(t)
	proxy := startCountingProxy(t, sb.url)
	c := testClient(t, proxy.url)
	var d diag.Diagnostics
	m := destination("", "bank", "bank_zm_zanaco")
	m.CountryID = types.StringUnknown()
	checkPayoutDestination(t.Context(), c, m, &d)
	m = destination("ctry_zm", "bank", "")
	m.BankID = types.StringUnknown()
	checkPayoutDestination(t.Context(), c, m, &d)
	checkPayoutDestination(t.Context(), nil, destination("ctry_xx", "bank", "bank_zm_zanaco"), &d) // provider not configured
	assert.Empty(t, d)
	assert.Equal(t, 0, proxy.count(api.OpListBanks()))
}

// When the reference data cannot be read, the check is skipped with a warning that says so and why,
// never an error; the failed read is not repeated for every payout.
func TestCheckPayoutDestinationWarnsWhenReferenceDataIsUnreadable(t *testing.T) {
	sb := startSandbox(t)
	proxy := startCountingProxy(t, sb.url)
	proxy.reset(true)
	c := testClient(t, proxy.url)
	diagsOf := make([]diag.Diagnostics, 5)
	for i := range diagsOf {
		checkPayoutDestination(t.Context(), c, destination("ctry_zm", "bank", "bank_zm_zanaco"), &diagsOf[i])
		require.False(t, diagsOf[i].HasError(), "%v", diagsOf[i])
		require.Len(t, diagsOf[i].Warnings(), 1, "payout %d", i)
	}
	w := diagsOf[4].Warnings()[0]
	assert.Equal(t, "Payout Destination Not Checked", w.Summary())
	assert.Regexp(t, `^The plan could not read the Malipo API's countries \(.*503.*\), so the check of country_id "ctry_zm" `+
		`against them was skipped\. The API still checks the destination when the payout is sent, and rejects a wrong one `+
		`without moving money\.$`, w.Detail())
	assert.Equal(t, 2, proxy.count(api.OpListCountries()), "one read of two attempts (the client's retry), for all five payouts")
}

// A read that failed because the first caller's plan was cancelled is not kept: the next caller reads
// again. Any other failure is kept, so that a plan of many payouts asks once.
func TestReferenceDataForgetsACancelledRead(t *testing.T) {
	rd := &referenceData{fetches: map[string]*fetch{}}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	loads := 0
	load := func() (any, error) { loads++; return nil, cancelled.Err() }
	_, err := rd.get(cancelled, "countries", load)
	require.ErrorIs(t, err, context.Canceled)
	v, err := rd.get(context.Background(), "countries", func() (any, error) { loads++; return "read", nil })
	require.NoError(t, err)
	assert.Equal(t, "read", v)
	assert.Equal(t, 2, loads)

	failing := func() (any, error) { loads++; return nil, errors.New("503") }
	_, err = rd.get(context.Background(), "banks:ZM", failing)
	require.Error(t, err)
	_, err = rd.get(context.Background(), "banks:ZM", failing)
	require.Error(t, err)
	assert.Equal(t, 3, loads, "a failure of the service is read once")
}

// One mistake is one error: a batch of payouts that share a wrong country_id (or bank_id) fails the
// plan with one error for it, not one per payout; a different mistake has its own error.
func TestCheckPayoutDestinationReportsEachMistakeOnce(t *testing.T) {
	sb := startSandbox(t)
	c := testClient(t, sb.url)
	// Each payout has diagnostics of its own, as each resource has in Terraform (diag.Diagnostics would
	// fold identical diagnostics of one list into one).
	var perPayout []diag.Diagnostics
	check := func(m PayoutResourceModel) {
		var d diag.Diagnostics
		checkPayoutDestination(t.Context(), c, m, &d)
		perPayout = append(perPayout, d)
	}
	for range 4 {
		check(destination("ctry_xx", "bank", "bank_zm_zanaco"))
		check(destination("ctry_zm", "bank", "bank_zm_nowhere"))
	}
	check(destination("ctry_yy", "mobile_number", ""))
	var summaries []string
	for _, d := range perPayout {
		for _, e := range d.Errors() {
			summaries = append(summaries, e.Summary()+": "+e.Detail()[:20])
		}
	}
	assert.Equal(t, []string{`Unknown Country: country_id "ctry_xx"`, `Unknown Bank: bank_id "bank_zm_now`,
		`Unknown Country: country_id "ctry_yy"`}, summaries)

	var other diag.Diagnostics
	checkPayoutDestination(t.Context(), testClient(t, sb.url), destination("ctry_xx", "bank", "bank_zm_zanaco"), &other)
	assert.Len(t, other.Errors(), 1, "another provider instance (another plan) reports it again")
}
