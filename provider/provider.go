// Package provider is the Terraform provider `malipo`: webhook endpoints and payouts of the Malipo v1
// Collections & Payouts API as resources (with resource identities, and as list resources that
// `terraform query` searches), its reference data, webhook endpoints and status checks as data
// sources, rotating an endpoint's secret and resending an event as actions, and a webhook signing
// secret that is never stored as an ephemeral resource. It talks to the API only through
// openapi/client.
package provider

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// Environment variables the provider reads when its configuration leaves a setting out, so that keys
// can stay out of configuration files.
const (
	EnvBaseURL   = "MALIPO_BASE_URL"
	EnvPublicKey = "MALIPO_PUBLIC_KEY"
	EnvSecretKey = "MALIPO_SECRET_KEY"
)

// Defaults of the `retry` block and of `request_timeout_ms`, applied for each setting left out. They
// follow client.DefaultRetryPolicy: enough to ride out a restart or a short rate limit.
const (
	defaultRetryAttempts    = 3
	defaultRetryMinDelayMS  = 250
	defaultRetryMaxDelayMS  = 8000
	defaultRequestTimeoutMS = 30000
)

// Ensure MalipoProvider satisfies the framework's provider interfaces.
var (
	_ provider.Provider                       = &MalipoProvider{}
	_ provider.ProviderWithListResources      = &MalipoProvider{}
	_ provider.ProviderWithActions            = &MalipoProvider{}
	_ provider.ProviderWithEphemeralResources = &MalipoProvider{}
)

// MalipoProvider is the `malipo` provider. It builds one API client in Configure and hands it to every
// resource and data source, so that they share connections and the retry policy.
type MalipoProvider struct {
	// version is the provider's release ("dev" for local builds, "test" in acceptance tests); it goes
	// into the User-Agent so that the service's operators can tell provider versions apart.
	version string
}

// MalipoProviderModel is the provider block.
type MalipoProviderModel struct {
	BaseURL          types.String `tfsdk:"base_url"`
	PublicKey        types.String `tfsdk:"public_key"`
	SecretKey        types.String `tfsdk:"secret_key"`
	RequestTimeoutMS types.Int64  `tfsdk:"request_timeout_ms"`
	Retry            *RetryModel  `tfsdk:"retry"`
}

// RetryModel is the provider's `retry` block, modelled on terraform-provider-http's: how often and how
// patiently a failed request (connection error, 429, 5xx) is retried.
type RetryModel struct {
	Attempts   types.Int64 `tfsdk:"attempts"`
	MinDelayMS types.Int64 `tfsdk:"min_delay_ms"`
	MaxDelayMS types.Int64 `tfsdk:"max_delay_ms"`
}

// New returns a function that builds the provider, the shape providerserver and the acceptance tests'
// ProtoV6ProviderFactories expect. version is the release, "dev" or "test".
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &MalipoProvider{version: version}
	}
}

// Metadata names the provider `malipo`, the prefix of every resource and data source type.
func (p *MalipoProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "malipo"
	resp.Version = p.version
}

// Schema describes the provider block.
func (p *MalipoProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The `malipo` provider manages webhook endpoints and payouts of the Malipo v1 Collections & " +
			"Payouts API, and reads its reference data (countries, banks), its webhook endpoints and the status of " +
			"payouts and payments.\n\n" +
			"Every setting may come from the environment instead of the configuration: `" + EnvBaseURL + "`, `" +
			EnvPublicKey + "` and `" + EnvSecretKey + "`. A value in the configuration wins over the environment.",
		Attributes: map[string]schema.Attribute{
			"base_url": schema.StringAttribute{
				MarkdownDescription: "Base URL of the Malipo API, e.g. `http://127.0.0.1:8080` for a local `malipo sandbox`. " +
					"**Needed, with no default**: set it here or with the `" + EnvBaseURL + "` environment variable (it is " +
					"optional in the schema only so that the environment can give it); the provider fails without it.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.RegexMatches(httpURLPattern, "must be an absolute http or https URL")},
			},
			"public_key": schema.StringAttribute{
				MarkdownDescription: "The merchant's public key, sent in the `public-key` header. " +
					"May also be set with the `" + EnvPublicKey + "` environment variable.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"secret_key": schema.StringAttribute{
				MarkdownDescription: "The merchant's secret key, sent in the `secret-key` header. It is never logged. " +
					"May also be set with the `" + EnvSecretKey + "` environment variable, which keeps it out of the configuration.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"request_timeout_ms": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How long one attempt of a request may take, in milliseconds, before it is "+
					"abandoned and retried. Defaults to `%d`.", defaultRequestTimeoutMS),
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
		},
		Blocks: map[string]schema.Block{"retry": retryBlock()},
	}
}

// retryBlock describes the provider's `retry` block: how often and how far apart failed requests are
// tried again. Its limits are checked here; retryPolicy fills in the defaults.
func retryBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Retries of requests that failed with a connection error, `429` or a `5xx`. Only " +
			"requests that are safe to repeat are retried: reads, updates, deletes, and creates that carry an " +
			"`Idempotency-Key` (every create the provider sends does), so a retried payout is never paid twice. " +
			"Without this block the defaults below apply.",
		Attributes: map[string]schema.Attribute{
			"attempts": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("The number of times a request is retried. For example, with `2` "+
					"a request is tried at most 3 times; `0` disables retries. Defaults to `%d`.", defaultRetryAttempts),
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"min_delay_ms": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Minimum delay between attempts in milliseconds; each later retry "+
					"waits twice as long, with jitter. Defaults to `%d`.", defaultRetryMinDelayMS),
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"max_delay_ms": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Maximum delay between attempts in milliseconds, a `Retry-After` "+
					"from the service included. Defaults to `%d`, or to `min_delay_ms` when that is larger.",
					defaultRetryMaxDelayMS),
				Optional: true,
				Validators: []validator.Int64{
					int64validator.AtLeast(0),
					int64validator.AtLeastSumOf(path.MatchRelative().AtParent().AtName("min_delay_ms")),
				},
			},
		},
	}
}

// setting is one string setting of the provider block with its environment fallback, so that the
// missing- and unknown-value errors can name both.
type setting struct {
	attr  string
	env   string
	title string
	value types.String
}

// resolve returns the setting's value (configuration over environment) or adds an attribute error
// that names the attribute and its environment variable.
func (s setting) resolve(diags interface {
	AddAttributeError(path.Path, string, string)
}) string {
	if s.value.IsUnknown() {
		diags.AddAttributeError(path.Root(s.attr), "Unknown Malipo "+s.title,
			fmt.Sprintf("The provider cannot create the Malipo API client because %s is not known until apply. "+
				"Set it to a value known at plan time, or leave it out and set the %s environment variable.", s.attr, s.env))
		return ""
	}
	v := os.Getenv(s.env)
	if !s.value.IsNull() {
		v = s.value.ValueString()
	}
	if v == "" {
		diags.AddAttributeError(path.Root(s.attr), "Missing Malipo "+s.title,
			fmt.Sprintf("The provider cannot create the Malipo API client because %s is not set. "+
				"Set %s in the provider configuration or the %s environment variable.", s.attr, s.attr, s.env))
	}
	return v
}

// Configure builds the API client from the provider block and the environment.
func (p *MalipoProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg MalipoProviderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	baseURL := setting{"base_url", EnvBaseURL, "Base URL", cfg.BaseURL}.resolve(&resp.Diagnostics)
	publicKey := setting{"public_key", EnvPublicKey, "Public Key", cfg.PublicKey}.resolve(&resp.Diagnostics)
	secretKey := setting{"secret_key", EnvSecretKey, "Secret Key", cfg.SecretKey}.resolve(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	// The secret key is masked in every log line written through this context, as a field and
	// wherever it appears in a message or another field's value.
	ctx = tflog.SetField(ctx, "malipo_base_url", baseURL)
	ctx = tflog.SetField(ctx, "malipo_public_key", publicKey)
	ctx = tflog.SetField(ctx, "malipo_secret_key", secretKey)
	ctx = tflog.MaskFieldValuesWithFieldKeys(ctx, "malipo_secret_key")
	ctx = tflog.MaskAllFieldValuesStrings(ctx, secretKey)
	ctx = tflog.MaskMessageStrings(ctx, secretKey)
	tflog.Debug(ctx, "Creating Malipo API client")

	policy, timeout := retryPolicy(cfg)
	ua := fmt.Sprintf("terraform-provider-malipo/%s (+https://registry.terraform.io/providers/malipo/malipo) terraform/%s",
		p.version, req.TerraformVersion)
	c, err := client.New(baseURL, publicKey, secretKey,
		client.WithUserAgent(ua),
		client.WithRetryPolicy(policy),
		client.WithRequestTimeout(timeout),
		client.WithLogger(newTFLogLogger(secretKey)),
	)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Create Malipo API Client",
			"The provider settings were rejected: "+errText(err)+". Fix the setting named above in the provider "+
				"configuration or its environment variable.")
		return
	}
	tflog.Info(ctx, "Configured Malipo API client", map[string]any{"success": true})
	resp.DataSourceData = c
	resp.ResourceData = c
	resp.ListResourceData = c
	resp.ActionData = c
}

// retryPolicy turns the `retry` block and `request_timeout_ms` into the client's settings, filling in
// the defaults for whatever is left out.
func retryPolicy(cfg MalipoProviderModel) (client.RetryPolicy, time.Duration) {
	attempts := int64(defaultRetryAttempts)
	minMS, maxMS := int64(defaultRetryMinDelayMS), int64(defaultRetryMaxDelayMS)
	if r := cfg.Retry; r != nil {
		if !r.Attempts.IsNull() && !r.Attempts.IsUnknown() {
			attempts = r.Attempts.ValueInt64()
		}
		if !r.MinDelayMS.IsNull() && !r.MinDelayMS.IsUnknown() {
			minMS = r.MinDelayMS.ValueInt64()
		}
		if !r.MaxDelayMS.IsNull() && !r.MaxDelayMS.IsUnknown() {
			maxMS = r.MaxDelayMS.ValueInt64()
		} else {
			maxMS = max(maxMS, minMS)
		}
	}
	timeoutMS := int64(defaultRequestTimeoutMS)
	if !cfg.RequestTimeoutMS.IsNull() && !cfg.RequestTimeoutMS.IsUnknown() {
		timeoutMS = cfg.RequestTimeoutMS.ValueInt64()
	}
	return client.RetryPolicy{
		MaxAttempts: int(attempts) + 1,
		MinBackoff:  time.Duration(minMS) * time.Millisecond,
		MaxBackoff:  time.Duration(maxMS) * time.Millisecond,
	}, time.Duration(timeoutMS) * time.Millisecond
}

// Resources lists the provider's resource types.
func (p *MalipoProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewWebhookEndpointResource,
		NewPayoutResource,
	}
}

// ListResources lists the provider's list resource types (terraform query, Terraform 1.14 or later).
func (p *MalipoProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		NewWebhookEndpointListResource,
		NewPayoutListResource,
	}
}

// Actions lists the provider's action types (Terraform 1.14 or later).
func (p *MalipoProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		NewRotateSecretAction,
		NewResendEventAction,
	}
}

// EphemeralResources lists the provider's ephemeral resource types (Terraform 1.10 or later).
func (p *MalipoProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		NewWebhookSecretEphemeralResource,
	}
}

// DataSources lists the provider's data source types.
func (p *MalipoProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewCountriesDataSource,
		NewBanksDataSource,
		NewPayoutDataSource,
		NewTransactionDataSource,
		NewWebhookEndpointsDataSource,
	}
}

// clientFrom extracts the API client that Configure stored as provider data. ok is false (with no
// diagnostic) while the provider is not configured yet, which happens during validation.
func clientFrom(data any, diags interface{ AddError(string, string) }) (*client.Client, bool) {
	if data == nil {
		return nil, false
	}
	c, ok := data.(*client.Client)
	if !ok {
		diags.AddError("Unexpected Provider Data Type",
			fmt.Sprintf("Expected *client.Client, got %T. This is a bug in the provider; please report it.", data))
		return nil, false
	}
	return c, true
}
