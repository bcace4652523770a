package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// benchCount is how many payouts the benchmark declares.
const benchCount = 200

// endpointCap points at the document's cap on a merchant's webhook endpoints (the list's maxItems):
// the benchmark declares that many endpoints.
const endpointCap = "#/components/schemas/WebhookEndpointListResponse/properties/data/maxItems"

// BenchmarkTerraformPlanApply times `terraform plan -out` + `terraform apply` of as many webhook
// endpoints as a merchant may have (the document's cap, 100) and 200 payouts (half bank, half mobile,
// each waiting for its final status) against an in-process sandbox, next to the same number of
// Terraform's built-in terraform_data resources with the same inputs, which is what Terraform itself
// costs. It reports both times per run and their ratio. Each run is a merchant of its own, since the
// endpoints of earlier runs are never destroyed. It uses the terraform binary of TF_ACC_TERRAFORM_PATH
// or PATH and is skipped without one.
func BenchmarkTerraformPlanApply(b *testing.B) {
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		var err error
		if tf, err = exec.LookPath("terraform"); err != nil {
			b.Skip("no terraform binary on PATH (or TF_ACC_TERRAFORM_PATH); the benchmark never downloads one")
		}
	}
	if os.Getenv("TF_LOG") == "" {
		// In-process, nothing filters the provider's logs (Terraform does that for a plugin process):
		// keep them off unless asked for.
		for _, v := range []string{"TF_LOG_PROVIDER", "TF_LOG_PROVIDER_MALIPO", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"} {
			b.Setenv(v, "off")
		}
	}
	spec, err := openapi.Default()
	require.NoError(b, err)
	endpoints, err := spec.Bound(endpointCap)
	require.NoError(b, err)
	var opts []sandbox.Option
	for i := range b.N {
		opts = append(opts, sandbox.WithMerchant(benchKeys(i)))
	}
	sb := startSandbox(b, opts...)
	reattach := serveProviderInProcess(b)
	cliConfig := filepath.Join(b.TempDir(), "empty.tfrc")
	require.NoError(b, os.WriteFile(cliConfig, nil, 0o600))
	env := append(os.Environ(), "TF_REATTACH_PROVIDERS="+reattach, "CHECKPOINT_DISABLE=1",
		"TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "TF_LOG=")

	tv := testValues(b)
	data := benchTerraformDataConfig(tv, endpoints)
	var malipoTime, dataTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pub, sec := benchKeys(i)
		malipo := fmt.Sprintf(`
provider "malipo" {
  base_url           = %q
  public_key         = %q
  secret_key         = %q
  request_timeout_ms = 5000
}
`, sb.url, pub, sec) + benchMalipoConfig(tv, endpoints)
		malipoTime += planApply(b, tf, env, malipo)
		dataTime += planApply(b, tf, env, data)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(malipoTime.Seconds()/n, "malipo-s/op")
	b.ReportMetric(dataTime.Seconds()/n, "terraform_data-s/op")
	b.ReportMetric(malipoTime.Seconds()/dataTime.Seconds(), "ratio")
	b.Logf("plan+apply of %d webhook endpoints + %d payouts: %.2fs; %d terraform_data: %.2fs; ratio %.1f",
		endpoints, benchCount, malipoTime.Seconds()/n, endpoints+benchCount, dataTime.Seconds()/n, malipoTime.Seconds()/dataTime.Seconds())
	for i := range b.N {
		pub, _ := benchKeys(i)
		if got := len(sb.srv.Payouts(pub)); got != benchCount {
			b.Fatalf("run %d's merchant has %d payouts, want %d", i, got, benchCount)
		}
	}
}

// benchKeys are the keys of the merchant of run i.
func benchKeys(i int) (public, secret string) {
	return fmt.Sprintf("pk_test_bench_%d", i), fmt.Sprintf("sk_test_bench_%d", i)
}

// planApply writes config into a fresh directory, runs terraform init (not timed), then times
// `terraform plan -out` and `terraform apply` of the plan.
func planApply(b *testing.B, tf string, env []string, config string) time.Duration {
	b.Helper()
	dir := b.TempDir()
	require.NoError(b, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600))
	run := func(args ...string) {
		cmd := exec.Command(tf, args...)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			b.Fatalf("terraform %v: %v\n%s", args, err, out.String())
		}
	}
	b.StopTimer()
	run("init", "-input=false", "-backend=false")
	b.StartTimer()
	start := time.Now()
	run("plan", "-input=false", "-out=tfplan")
	run("apply", "-input=false", "tfplan")
	return time.Since(start)
}

// serveProviderInProcess serves the provider in this process, as terraform-plugin-testing does, and
// returns the TF_REATTACH_PROVIDERS value that makes terraform use it.
func serveProviderInProcess(b *testing.B) string {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	configCh := make(chan *plugin.ReattachConfig)
	closeCh := make(chan struct{})
	const addr = "registry.terraform.io/malipo/malipo"
	go func() {
		err := tf6server.Serve(addr, providerserver.NewProtocol6(New("bench")()),
			tf6server.WithDebug(ctx, configCh, closeCh),
			tf6server.WithGoPluginLogger(hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})),
			tf6server.WithoutLogStderrOverride())
		if err != nil {
			b.Errorf("serve the provider: %v", err)
		}
	}()
	var config *plugin.ReattachConfig
	select {
	case config = <-configCh:
	case <-time.After(10 * time.Second):
		b.Fatal("the in-process provider did not start")
	}
	b.Cleanup(func() {
		cancel()
		<-closeCh
	})
	reattach, err := json.Marshal(map[string]any{addr: map[string]any{
		"Protocol":        config.Protocol,
		"ProtocolVersion": config.ProtocolVersion,
		"Pid":             config.Pid,
		"Test":            config.Test,
		"Addr":            map[string]string{"Network": config.Addr.Network(), "String": config.Addr.String()},
	}})
	require.NoError(b, err)
	return string(reattach)
}

// benchMalipoConfig: the endpoints subscribe to payment events only, so that the payouts trigger no
// webhook deliveries; payouts alternate between bank and mobile, to the document's succeeding account
// and wallet.
func benchMalipoConfig(tv payoutTestValues, endpoints int) string {
	return fmt.Sprintf(`
terraform {
  required_providers {
    malipo = { source = "registry.terraform.io/malipo/malipo" }
  }
}

resource "malipo_webhook_endpoint" "bench" {
  count       = %[4]d
  url         = "http://127.0.0.1:9/hooks/${count.index}"
  events      = ["payment.success", "payment.failed"]
  description = "bench ${count.index}"
}

resource "malipo_payout" "bench" {
  count             = %[1]d
  amount            = 100 + count.index
  country_id        = "ctry_zm"
  transfer_to       = count.index %% 2 == 0 ? "bank" : "mobile_number"
  bank_id           = count.index %% 2 == 0 ? "bank_zm_zanaco" : null
  account_number    = count.index %% 2 == 0 ? %[2]q : null
  momo_phone_number = count.index %% 2 == 0 ? null : %[3]q
  narration         = "bench ${count.index}"
}
`, benchCount, tv.bankOK.AccountNumber, tv.mobileOK.MomoPhoneNumber, endpoints)
}

// benchTerraformDataConfig: the same inputs in Terraform's built-in terraform_data resource.
func benchTerraformDataConfig(tv payoutTestValues, endpoints int) string {
	return fmt.Sprintf(`
resource "terraform_data" "endpoint" {
  count = %[4]d
  input = {
    url         = "http://127.0.0.1:9/hooks/${count.index}"
    events      = ["payment.success", "payment.failed"]
    description = "bench ${count.index}"
  }
}

resource "terraform_data" "payout" {
  count = %[1]d
  input = {
    amount            = 100 + count.index
    country_id        = "ctry_zm"
    transfer_to       = count.index %% 2 == 0 ? "bank" : "mobile_number"
    bank_id           = count.index %% 2 == 0 ? "bank_zm_zanaco" : null
    account_number    = count.index %% 2 == 0 ? %[2]q : null
    momo_phone_number = count.index %% 2 == 0 ? null : %[3]q
    narration         = "bench ${count.index}"
  }
}
`, benchCount, tv.bankOK.AccountNumber, tv.mobileOK.MomoPhoneNumber, endpoints)
}
