package provider

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/faultproxy"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The network of the fault tests: the provider talks to the sandbox through a faultproxy that breaks
// a share of the requests in every way it knows. Its limits fit the provider settings below, so that
// every call gets through and the tests can demand exactly one payout per create:
//   - at most faultsInARow faults in a row for one request, against faultRetries+1 attempts (the spare
//     attempts cover a genuine answer that misses the time-out on a loaded machine);
//   - a 429 asks for faultRetryAfter, which max_delay_ms lets the client wait in full;
//   - a slow answer is held far beyond request_timeout_ms, so the client gives up on it (the proxy
//     lets go as soon as it does).
const (
	faultRate           = 0.3
	faultsInARow        = 4
	faultRetries        = 8
	faultRetryAfter     = time.Second
	faultRequestTimeout = time.Second
	faultMaxDelay       = time.Second
)

// startFaultProxy puts a faultproxy with every fault in front of the sandbox.
func startFaultProxy(t testing.TB, sb *testSandbox, seed uint64) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start(faultproxy.Config{
		Target:         sb.url,
		Seed:           seed,
		Rate:           faultRate,
		MaxConsecutive: faultsInARow,
		RetryAfter:     faultRetryAfter,
		SlowDelay:      time.Minute,
	})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

// faultProviderConfig is the provider block of the fault tests, aimed at the proxy.
func faultProviderConfig(proxyURL string) string {
	return fmt.Sprintf(`
provider "malipo" {
  base_url           = %q
  public_key         = %q
  secret_key         = %q
  request_timeout_ms = %d
  retry {
    attempts     = %d
    min_delay_ms = 10
    max_delay_ms = %d
  }
}
`, proxyURL, sandbox.DefaultPublicKey, sandbox.DefaultSecretKey, faultRequestTimeout.Milliseconds(), faultRetries,
		faultMaxDelay.Milliseconds())
}

// faultNarration tags the payout of create i, so that the sandbox's payouts can be matched to creates.
func faultNarration(i int) string { return fmt.Sprintf("fault run %04d", i) }

// payoutsByNarration groups the sandbox's payouts by narration.
func payoutsByNarration(sb *testSandbox) map[string][]sandbox.Payout {
	out := map[string][]sandbox.Payout{}
	for _, p := range sb.srv.Payouts(sandbox.DefaultPublicKey) {
		out[p.Narration] = append(out[p.Narration], p)
	}
	return out
}

// createOutcome is what one Create returned.
type createOutcome struct {
	payoutID, key, status string
	problems              []string // error and warning diagnostics
}

// 1,000 payout creates, 16 at a time, through the provider's own client (Configure with the provider
// block above, aimed at the proxy) and the resource's own Create (a generated Idempotency-Key, then
// polling for the final status), while the proxy resets connections before and after the sandbox
// acted, answers 502, 503 and 429 and holds answers past the time-out. Every create succeeds, and the
// sandbox holds exactly 1,000 payouts: one per create, the one the create reported, none twice.
func TestPayoutCreatesAreExactUnderNetworkFaults(t *testing.T) {
	t.Parallel() // it mostly waits (back-offs, Retry-After, abandoned slow answers): let other tests run meanwhile
	const creates, workers = 1_000, 16
	started := time.Now()
	sb := startSandbox(t, sandbox.WithTimings(sandbox.Timings{}))
	proxy := startFaultProxy(t, sb, 1)
	ctx := context.Background()
	tv := testValues(t)

	num := func(v int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, v) }
	retryType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"attempts": tftypes.Number, "min_delay_ms": tftypes.Number, "max_delay_ms": tftypes.Number}}
	cresp := configureProvider(ctx, t, map[string]tftypes.Value{
		"base_url":           str(proxy.URL),
		"public_key":         str(sandbox.DefaultPublicKey),
		"secret_key":         str(sandbox.DefaultSecretKey),
		"request_timeout_ms": num(faultRequestTimeout.Milliseconds()),
		"retry": tftypes.NewValue(retryType, map[string]tftypes.Value{
			"attempts": num(faultRetries), "min_delay_ms": num(10), "max_delay_ms": num(faultMaxDelay.Milliseconds())}),
	})
	require.False(t, cresp.Diagnostics.HasError(), "%v", cresp.Diagnostics)
	res := NewPayoutResource().(*PayoutResource)
	var rcresp fwresource.ConfigureResponse
	res.Configure(ctx, fwresource.ConfigureRequest{ProviderData: cresp.ResourceData}, &rcresp)
	require.False(t, rcresp.Diagnostics.HasError(), "%v", rcresp.Diagnostics)

	// The plans Terraform would send: the inputs set, wait_for_final_status at its default, the
	// computed attributes (idempotency_key among them) unknown. Half bank, half mobile payouts.
	unknown := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	plans := make([]tfsdk.Plan, creates)
	var schemaResp fwresource.SchemaResponse
	for i := range plans {
		vals := map[string]tftypes.Value{
			"amount":                num(int64(2500 + i)),
			"country_id":            str("ctry_zm"),
			"narration":             str(faultNarration(i)),
			"wait_for_final_status": tftypes.NewValue(tftypes.Bool, true),
			"idempotency_key":       unknown, "id": unknown, "payout_id": unknown, "status": unknown,
			"failure_reason": unknown, "created_at": unknown,
		}
		if i%2 == 0 {
			vals["transfer_to"] = str(string(api.TransferToBank))
			vals["bank_id"] = str("bank_zm_zanaco")
			vals["account_number"] = str(tv.bankOK.AccountNumber)
		} else {
			vals["transfer_to"] = str(string(api.TransferToMobileNumber))
			vals["momo_phone_number"] = str(tv.mobileOK.MomoPhoneNumber)
		}
		var raw tftypes.Value
		raw, schemaResp = payoutObject(t, vals)
		plans[i] = tfsdk.Plan{Schema: schemaResp.Schema, Raw: raw}
	}

	outcomes := make([]createOutcome, creates)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				resp := fwresource.CreateResponse{State: tfsdk.State{Schema: schemaResp.Schema,
					Raw: tftypes.NewValue(plans[i].Raw.Type(), nil)}}
				res.Create(ctx, fwresource.CreateRequest{Plan: plans[i]}, &resp)
				var o createOutcome
				for _, d := range resp.Diagnostics {
					o.problems = append(o.problems, fmt.Sprintf("%s: %s: %s", d.Severity(), d.Summary(), d.Detail()))
				}
				var m PayoutResourceModel
				if !resp.State.Raw.IsNull() {
					if diags := resp.State.Get(ctx, &m); diags.HasError() {
						o.problems = append(o.problems, fmt.Sprint(diags))
					}
				}
				o.payoutID, o.key, o.status = m.PayoutID.ValueString(), m.IdempotencyKey.ValueString(), m.Status.ValueString()
				outcomes[i] = o
			}
		}()
	}
	for i := range creates {
		next <- i
	}
	close(next)
	wg.Wait()

	// Every create succeeded, each with a key and a payout of its own.
	succeeded := 0
	keys, ids := map[string]int{}, map[string]int{}
	for i, o := range outcomes {
		if assert.Empty(t, o.problems, "create %d", i) && assert.Equal(t, string(api.PayoutStatusSuccess), o.status, "create %d", i) {
			succeeded++
		}
		require.NotEmpty(t, o.payoutID, "create %d returned no payout", i)
		require.NotEmpty(t, o.key, "create %d recorded no idempotency_key", i)
		keys[o.key]++
		ids[o.payoutID]++
	}
	assert.Len(t, keys, creates, "every create has an idempotency key of its own")
	assert.Len(t, ids, creates, "every create reported a payout of its own")

	// The sandbox holds exactly one payout per create, the one the create reported.
	all := sb.srv.Payouts(sandbox.DefaultPublicKey)
	byNarration := payoutsByNarration(sb)
	duplicates := 0
	for i, o := range outcomes {
		got := byNarration[faultNarration(i)]
		if len(got) > 1 {
			duplicates += len(got) - 1
		}
		if assert.Len(t, got, 1, "payouts of create %d", i) {
			assert.Equal(t, o.payoutID, got[0].PayoutID, "create %d", i)
		}
	}
	assert.Len(t, all, creates, "payouts in the sandbox")
	assert.Zero(t, duplicates, "payouts made twice")

	st := proxy.Stats()
	for _, k := range faultproxy.Kinds() {
		assert.Positive(t, st.Faults[k], "the proxy injected no %s; the test would not cover it", k)
	}
	t.Logf("creates: %d sent, %d succeeded; proxy: %s", creates, succeeded, st)
	t.Logf("payouts found: %d, distinct creates matched: %d, duplicates: %d; took %s",
		len(all), len(ids), duplicates, time.Since(started).Round(time.Millisecond))
}

// faultPayoutCount is how many payouts the Terraform fault test applies at once.
const faultPayoutCount = 50

// faultPayouts is faultPayoutCount payouts with count, each tagged by its index.
func faultPayouts(tv payoutTestValues) string {
	return fmt.Sprintf(`
resource "malipo_payout" "test" {
  count          = %d
  amount         = 2500 + count.index
  country_id     = "ctry_zm"
  transfer_to    = "bank"
  bank_id        = "bank_zm_zanaco"
  account_number = %q
  narration      = format("fault run %%04d", count.index)
}
`, faultPayoutCount, tv.bankOK.AccountNumber)
}

// terraform apply of 50 payouts through the faulty network ends with 50 payouts in the sandbox, each
// once and each the one in state, and the next plan is empty.
func TestAccPayoutResource_exactUnderNetworkFaults(t *testing.T) {
	started := time.Now()
	sb := startSandbox(t, sandbox.WithTimings(sandbox.Timings{}))
	proxy := startFaultProxy(t, sb, 2)
	tv := testValues(t)
	config := faultProviderConfig(proxy.URL) + faultPayouts(tv)
	var found, duplicates int
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkPayouts(faultPayoutCount),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(st *terraform.State) error {
					byNarration := payoutsByNarration(sb)
					found = len(sb.srv.Payouts(sandbox.DefaultPublicKey))
					var problems []string
					for i := range faultPayoutCount {
						addr := fmt.Sprintf("malipo_payout.test.%d", i)
						rs := st.RootModule().Resources[addr]
						if rs == nil {
							problems = append(problems, addr+" is not in state")
							continue
						}
						got := byNarration[faultNarration(i)]
						if len(got) > 1 {
							duplicates += len(got) - 1
						}
						switch {
						case len(got) != 1:
							problems = append(problems, fmt.Sprintf("%s: the sandbox has %d payouts for it, want 1", addr, len(got)))
						case got[0].PayoutID != rs.Primary.Attributes["payout_id"]:
							problems = append(problems, fmt.Sprintf("%s: state has payout %s, the sandbox %s", addr,
								rs.Primary.Attributes["payout_id"], got[0].PayoutID))
						case rs.Primary.Attributes["status"] != string(api.PayoutStatusSuccess):
							problems = append(problems, fmt.Sprintf("%s: status %s", addr, rs.Primary.Attributes["status"]))
						}
					}
					if found != faultPayoutCount {
						problems = append(problems, fmt.Sprintf("the sandbox has %d payouts, want exactly %d", found, faultPayoutCount))
					}
					if len(problems) > 0 {
						sort.Strings(problems)
						return fmt.Errorf("after apply through the faulty network: %v", problems)
					}
					return nil
				},
			},
			{Config: config, PlanOnly: true}, // a second plan, through the same faults, is empty
		},
	})
	st := proxy.Stats()
	t.Logf("creates: %d payouts applied; proxy: %s", faultPayoutCount, st)
	t.Logf("payouts found: %d, duplicates: %d; took %s", found, duplicates, time.Since(started).Round(time.Millisecond))
}
