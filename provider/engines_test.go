package provider

import (
	"context"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// terraformVersion finds a statement of a Terraform version ("Terraform 1.11", "Terraform ≥ 1.14").
var terraformVersion = regexp.MustCompile(`Terraform (≥ |>= )?1\.\d+`)

// Every description that names a Terraform version also names OpenTofu's: the provider runs on both
// engines, and a reader on OpenTofu must not have to guess whether a feature is there for them: the
// description gives OpenTofu's version, or says that OpenTofu has no such feature.
func TestDescriptionsNameOpenTofuWhereTheyNameTerraformVersions(t *testing.T) {
	server, err := providerserver.NewProtocol6WithError(New("test")())()
	require.NoError(t, err)
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	require.NoError(t, err)
	require.Empty(t, resp.Diagnostics)
	texts := map[string]string{}
	var walk func(where string, b *tfprotov6.SchemaBlock)
	walk = func(where string, b *tfprotov6.SchemaBlock) {
		if b == nil {
			return
		}
		texts[where] = b.Description
		for _, a := range b.Attributes {
			texts[where+"."+a.Name] = a.Description
		}
		for _, nb := range b.BlockTypes {
			walk(where+"."+nb.TypeName, nb.Block)
		}
	}
	walk("provider", resp.Provider.Block)
	for name, s := range resp.ResourceSchemas {
		walk("resource "+name, s.Block)
	}
	for name, s := range resp.DataSourceSchemas {
		walk("data source "+name, s.Block)
	}
	for name, s := range resp.ListResourceSchemas {
		walk("list resource "+name, s.Block)
	}
	for name, s := range resp.ActionSchemas {
		walk("action "+name, s.Schema.Block)
	}
	checked := 0
	for where, text := range texts {
		if terraformVersion.MatchString(text) {
			checked++
			assert.Regexp(t, `OpenTofu( (≥ |>= )?1\.\d+| has no)`, text, "%s names a Terraform version but not OpenTofu's", where)
		}
	}
	assert.NotZero(t, checked, "no description names a Terraform version: the test checks nothing")
}

// base_url is optional in the schema (the environment may give it) but needed: its description says so,
// since Configure fails without it (TestProviderConfigureMissingSettingsNameAttributeAndVariable).
func TestProviderSchemaSaysBaseURLIsNeeded(t *testing.T) {
	var resp provider.SchemaResponse
	New("test")().Schema(context.Background(), provider.SchemaRequest{}, &resp)
	desc := resp.Schema.Attributes["base_url"].GetMarkdownDescription()
	assert.Contains(t, desc, "no default")
	assert.Contains(t, desc, EnvBaseURL)
}

// An engine that cannot send write-only attributes (Terraform before 1.11, OpenTofu before 1.11) is
// told which versions can, OpenTofu's included: the framework's own error names only Terraform's.
func TestWriteOnlySecretNamesBothEnginesVersions(t *testing.T) {
	ctx := context.Background()
	r := NewWebhookEndpointResource().(*WebhookEndpointResource)
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	vals["url"] = tftypes.NewValue(tftypes.String, "https://merchant.example.org/h")
	vals["secret_wo"] = tftypes.NewValue(tftypes.String, "whsec_x")
	vals["secret_wo_version"] = tftypes.NewValue(tftypes.Number, 1)
	config := tfsdk.Config{Raw: tftypes.NewValue(typ, vals), Schema: sresp.Schema}
	for _, allowed := range []bool{false, true} {
		var resp fwresource.ValidateConfigResponse
		r.ValidateConfig(ctx, fwresource.ValidateConfigRequest{Config: config,
			ClientCapabilities: fwresource.ValidateConfigClientCapabilities{WriteOnlyAttributesAllowed: allowed}}, &resp)
		if allowed {
			assert.False(t, resp.Diagnostics.HasError(), "%v", resp.Diagnostics)
			continue
		}
		require.Len(t, resp.Diagnostics.Errors(), 1)
		assert.Contains(t, resp.Diagnostics.Errors()[0].Detail(), "Terraform 1.11 or later, or OpenTofu 1.11 or later")
	}
}
