package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// testAccProtoV6ProviderFactories serves the provider in-process to the Terraform CLI that the
// acceptance tests run (TF_ACC_TERRAFORM_PATH); nothing is downloaded.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"malipo": providerserver.NewProtocol6WithError(New("test")()),
}

// TestMain makes sure acceptance tests use the local terraform binary and never download one: it fills
// TF_ACC_TERRAFORM_PATH from PATH when unset, and refuses TF_ACC_TERRAFORM_VERSION (which downloads).
func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") != "" {
		if os.Getenv("TF_ACC_TERRAFORM_VERSION") != "" {
			fmt.Fprintln(os.Stderr, "provider tests: unset TF_ACC_TERRAFORM_VERSION; it makes terraform-plugin-testing download Terraform. Use TF_ACC_TERRAFORM_PATH.")
			os.Exit(2)
		}
		if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
			p, err := exec.LookPath("terraform")
			if err != nil {
				fmt.Fprintln(os.Stderr, "provider tests: TF_ACC is set but no terraform binary is on PATH and TF_ACC_TERRAFORM_PATH is unset; acceptance tests never download Terraform.")
				os.Exit(2)
			}
			_ = os.Setenv("TF_ACC_TERRAFORM_PATH", p)
		}
		_ = os.Setenv("CHECKPOINT_DISABLE", "1")
		// No CLI configuration, whatever TF_CLI_CONFIG_FILE says: a developer's dev_overrides must not
		// replace the provider under test, and when the file it names is missing OpenTofu prints its
		// warning on stdout, where terraform-plugin-testing then fails to read the version.
		_ = os.Setenv("TF_CLI_CONFIG_FILE", os.DevNull)
	}
	os.Exit(m.Run())
}

// testSandbox is an in-process sandbox on httptest for one acceptance test.
type testSandbox struct {
	srv *sandbox.Server
	url string
}

// testTimings are the sandbox timings of the acceptance tests: milliseconds, so that payouts settle
// before the first status poll or soon after.
var testTimings = sandbox.Timings{PromptDelay: 20 * time.Millisecond, PayoutDelay: 20 * time.Millisecond}

// startSandbox starts a sandbox with the default merchant (without seed data) and fast timings; opts
// come last and win.
// Its webhook deliveries can reach only loopback addresses, so no test talks to the network.
func startSandbox(t testing.TB, opts ...sandbox.Option) *testSandbox {
	t.Helper()
	base := []sandbox.Option{
		sandbox.WithTimings(testTimings),
		sandbox.WithRetrySchedule(nil),
		sandbox.WithWebhookTimeout(200 * time.Millisecond),
		sandbox.WithHTTPClient(&http.Client{Transport: loopbackOnlyTransport()}),
		// The tests count the payouts and endpoints they make and reuse the docs' references
		// (order-1042): start from an empty store, without the seed data of internal/sandbox/seed.go.
		sandbox.WithSeedData(false),
	}
	srv, err := sandbox.New(append(base, opts...)...)
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return &testSandbox{srv: srv, url: hs.URL}
}

// loopbackOnlyTransport refuses to dial anything but 127.0.0.1 / ::1 / localhost, before any DNS
// lookup, so that a webhook URL in a test can never leave the machine.
func loopbackOnlyTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: time.Second}
	tr.Proxy = nil
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" {
			return nil, fmt.Errorf("test sandbox: refusing to deliver a webhook to %s (loopback only)", addr)
		}
		return dialer.DialContext(ctx, network, addr)
	}
	return tr
}

// providerConfig is the provider block aimed at the sandbox, with quick retries.
func (s *testSandbox) providerConfig() string {
	return fmt.Sprintf(`
provider "malipo" {
  base_url           = %q
  public_key         = %q
  secret_key         = %q
  request_timeout_ms = 5000
  retry {
    attempts     = 3
    min_delay_ms = 10
    max_delay_ms = 100
  }
}
`, s.url, sandbox.DefaultPublicKey, sandbox.DefaultSecretKey)
}

// client is an API client of the sandbox, for set-up and out-of-band changes in tests.
func (s *testSandbox) client(t testing.TB) *client.Client {
	t.Helper()
	c, err := client.New(s.url, sandbox.DefaultPublicKey, sandbox.DefaultSecretKey)
	require.NoError(t, err)
	return c
}

// configureProvider runs the provider's Configure with the given provider-block attributes (others
// null), as Terraform would, and returns the response.
func configureProvider(ctx context.Context, t *testing.T, attrs map[string]tftypes.Value) provider.ConfigureResponse {
	t.Helper()
	p := New("test")()
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	require.False(t, sresp.Diagnostics.HasError(), "%v", sresp.Diagnostics)
	typ, ok := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	require.True(t, ok)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		if v, ok := attrs[name]; ok {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(at, nil)
		}
	}
	cfg := tfsdk.Config{Raw: tftypes.NewValue(typ, vals), Schema: sresp.Schema}
	var resp provider.ConfigureResponse
	p.Configure(ctx, provider.ConfigureRequest{Config: cfg, TerraformVersion: "1.11.4"}, &resp)
	return resp
}

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

func clearMalipoEnv(t *testing.T) {
	t.Setenv(EnvBaseURL, "")
	t.Setenv(EnvPublicKey, "")
	t.Setenv(EnvSecretKey, "")
}

func TestProviderConfigureMissingSettingsNameAttributeAndVariable(t *testing.T) {
	tests := []struct {
		name    string
		attrs   map[string]tftypes.Value
		missing []string // attribute names whose errors must appear
	}{
		{"nothing set", nil, []string{"base_url", "public_key", "secret_key"}},
		{"no secret key", map[string]tftypes.Value{"base_url": str("http://127.0.0.1:1"), "public_key": str("pk")}, []string{"secret_key"}},
		{"no base url", map[string]tftypes.Value{"public_key": str("pk"), "secret_key": str("sk")}, []string{"base_url"}},
		{"unknown public key", map[string]tftypes.Value{"base_url": str("http://127.0.0.1:1"),
			"public_key": tftypes.NewValue(tftypes.String, tftypes.UnknownValue), "secret_key": str("sk")}, []string{"public_key"}},
	}
	envOf := map[string]string{"base_url": EnvBaseURL, "public_key": EnvPublicKey, "secret_key": EnvSecretKey}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearMalipoEnv(t)
			resp := configureProvider(t.Context(), t, tt.attrs)
			require.True(t, resp.Diagnostics.HasError())
			assert.Len(t, resp.Diagnostics.Errors(), len(tt.missing))
			for _, attr := range tt.missing {
				found := false
				for _, d := range resp.Diagnostics.Errors() {
					if strings.Contains(d.Detail(), attr) && strings.Contains(d.Detail(), envOf[attr]) {
						found = true
						assert.Contains(t, d.Summary(), "Malipo")
					}
				}
				assert.True(t, found, "no error names %s and %s: %v", attr, envOf[attr], resp.Diagnostics)
			}
			assert.Nil(t, resp.ResourceData)
		})
	}
}

func TestProviderConfigureFromEnvironment(t *testing.T) {
	sb := startSandbox(t)
	t.Setenv(EnvBaseURL, sb.url)
	t.Setenv(EnvPublicKey, sandbox.DefaultPublicKey)
	t.Setenv(EnvSecretKey, sandbox.DefaultSecretKey)
	resp := configureProvider(t.Context(), t, nil)
	require.False(t, resp.Diagnostics.HasError(), "%v", resp.Diagnostics)
	c, ok := resp.ResourceData.(*client.Client)
	require.True(t, ok)
	countries, err := c.ListCountries(t.Context())
	require.NoError(t, err)
	assert.NotEmpty(t, countries)
}

func TestProviderConfigurationWinsOverEnvironment(t *testing.T) {
	sb := startSandbox(t)
	t.Setenv(EnvBaseURL, "http://127.0.0.1:1") // nothing listens there
	t.Setenv(EnvPublicKey, "pk_wrong")
	t.Setenv(EnvSecretKey, "sk_wrong")
	resp := configureProvider(t.Context(), t, map[string]tftypes.Value{
		"base_url": str(sb.url), "public_key": str(sandbox.DefaultPublicKey), "secret_key": str(sandbox.DefaultSecretKey)})
	require.False(t, resp.Diagnostics.HasError(), "%v", resp.Diagnostics)
	c, ok := resp.ResourceData.(*client.Client)
	require.True(t, ok)
	_, err := c.ListWebhookEndpoints(t.Context())
	require.NoError(t, err, "the configured keys, not the environment's, must be used")
}

func TestProviderConfigureRejectsBadBaseURL(t *testing.T) {
	clearMalipoEnv(t)
	t.Setenv(EnvBaseURL, "ftp://example.org")
	resp := configureProvider(t.Context(), t, map[string]tftypes.Value{"public_key": str("pk"), "secret_key": str("sk")})
	require.True(t, resp.Diagnostics.HasError())
	assert.Contains(t, resp.Diagnostics.Errors()[0].Detail(), "base URL")
}

// The secret key never reaches Terraform's log: not as a field of Configure's log lines, not through
// the API client's logger, not even when a message or another field contains it.
func TestSecretKeyIsMaskedInLogs(t *testing.T) {
	sb := startSandbox(t)
	clearMalipoEnv(t)
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(t.Context(), &buf)
	resp := configureProvider(ctx, t, map[string]tftypes.Value{
		"base_url": str(sb.url), "public_key": str(sandbox.DefaultPublicKey), "secret_key": str(sandbox.DefaultSecretKey)})
	require.False(t, resp.Diagnostics.HasError(), "%v", resp.Diagnostics)
	c, ok := resp.ResourceData.(*client.Client)
	require.True(t, ok)
	_, err := c.ListWebhookEndpoints(ctx) // logged through the client's slog → tflog bridge
	require.NoError(t, err)
	newTFLogLogger(sandbox.DefaultSecretKey).InfoContext(ctx, "echo "+sandbox.DefaultSecretKey, "header", sandbox.DefaultSecretKey)

	logs := buf.String()
	assert.Contains(t, logs, "Creating Malipo API client")
	assert.Contains(t, logs, "malipo_secret_key")
	assert.Contains(t, logs, "malipo: request", "the client's request log should reach tflog")
	assert.Contains(t, logs, "***")
	assert.NotContains(t, logs, sandbox.DefaultSecretKey)
}

func TestRetryPolicyDefaultsAndBlock(t *testing.T) {
	p, timeout := retryPolicy(MalipoProviderModel{})
	assert.Equal(t, client.RetryPolicy{MaxAttempts: 4, MinBackoff: 250 * time.Millisecond, MaxBackoff: 8 * time.Second}, p)
	assert.Equal(t, 30*time.Second, timeout)

	p, _ = retryPolicy(MalipoProviderModel{Retry: &RetryModel{Attempts: i64(0)}})
	assert.Equal(t, 1, p.MaxAttempts, "attempts = 0 disables retries")

	p, _ = retryPolicy(MalipoProviderModel{Retry: &RetryModel{MinDelayMS: i64(20000)}})
	assert.Equal(t, 20*time.Second, p.MaxBackoff, "max_delay_ms follows a larger min_delay_ms")
}

func TestTFLogHandlerGroupsAndAttrs(t *testing.T) {
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(t.Context(), &buf)
	l := newTFLogLogger("s3cr3t").With("a", 1).WithGroup("g").With("b", "s3cr3t")
	l.WarnContext(ctx, "hello", "c", 3)
	l.ErrorContext(ctx, "bad")
	logs := buf.String()
	assert.Contains(t, logs, `"a":1`)
	assert.Contains(t, logs, `"g.b":"***"`)
	assert.Contains(t, logs, `"g.c":3`)
	assert.Contains(t, logs, `"@level":"warn"`)
	assert.Contains(t, logs, `"@level":"error"`)
	assert.NotContains(t, logs, "s3cr3t")
	assert.NoError(t, slog.New(&tflogHandler{}).Handler().Handle(context.Background(), slog.Record{}))
}

func TestClientFromRejectsWrongProviderData(t *testing.T) {
	var diags fakeDiags
	_, ok := clientFrom("not a client", &diags)
	assert.False(t, ok)
	assert.Contains(t, diags.summary, "Unexpected Provider Data Type")
	_, ok = clientFrom(nil, &diags)
	assert.False(t, ok)
}

type fakeDiags struct{ summary string }

func (f *fakeDiags) AddError(summary, _ string) { f.summary = summary }

var errAny = errors.New("any")

func TestPayoutCreateErrorSaysWhetherMoneyMoved(t *testing.T) {
	tests := []struct {
		err     error
		summary string
		detail  string
	}{
		{&client.APIError{StatusCode: 400, Code: api.CodeValidationFailed}, "Payout Rejected", "no money moved"},
		{&client.APIError{StatusCode: 409, Code: api.CodeIdempotencyKeyReused}, "Payout Conflicts With an Earlier Request", "new idempotency_key"},
		{&client.APIError{StatusCode: 401}, "Payout Rejected", "keys"},
		{&client.APIError{StatusCode: 503}, "Payout Outcome Unknown", `idempotency_key = "k-1"`},
		{errAny, "Payout Outcome Unknown", `idempotency_key = "k-1"`},
	}
	for _, tt := range tests {
		summary, detail := payoutCreateError(tt.err, "k-1")
		assert.Equal(t, tt.summary, summary, tt.err.Error())
		assert.Contains(t, detail, tt.detail)
	}
}

func i64(v int64) types.Int64 { return types.Int64Value(v) }

// waitForPayouts waits until every payout of the sandbox has a final status.
func waitForPayouts(t testing.TB, s *testSandbox) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, p := range s.srv.Payouts(sandbox.DefaultPublicKey) {
			if p.Status != "success" && p.Status != "failed" {
				return false
			}
		}
		return true
	}, 10*time.Second, 10*time.Millisecond, "a payout of the sandbox is not final 10 s on; its settlement timer did not fire")
}

// Through Terraform: a missing setting is an error on the attribute that names its environment
// variable; the environment fills in what the configuration leaves out.
func TestAccProvider_settingsFromConfigurationAndEnvironment(t *testing.T) {
	sb := startSandbox(t)
	clearMalipoEnv(t) // not parallel: the in-process provider reads this process's environment
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
provider "malipo" {
  base_url = %q
}
data "malipo_countries" "all" {}`, sb.url),
				ExpectError: regexp.MustCompile(`(?s)Missing Malipo Public Key.*public_key.*MALIPO_PUBLIC_KEY`),
			},
			{
				PreConfig: func() {
					t.Setenv(EnvPublicKey, sandbox.DefaultPublicKey)
					t.Setenv(EnvSecretKey, sandbox.DefaultSecretKey)
				},
				Config: fmt.Sprintf(`
provider "malipo" {
  base_url = %q
}
data "malipo_countries" "all" {}`, sb.url),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.malipo_countries.all", tfjsonpath.New("countries"), knownvalue.NotNull()),
				},
			},
		},
	})
}
