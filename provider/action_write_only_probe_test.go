package provider

import (
	"context"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/action"
	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Why the rotate action reads its secret from the environment, shown on each engine that has actions:
// a provider built on this terraform-plugin-framework whose action has a write-only attribute, given an
// ephemeral value for it, is refused with the framework's message, whatever the engine (its
// ValidateActionConfig validates with WriteOnlyAttributesAllowed false; the guide says so). When this
// test fails because the value is accepted, the rotate action can take secret_wo.
func TestAccActions_writeOnlyRefusedByTheFramework(t *testing.T) {
	needs(t, featureActions)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"probe": providerserver.NewProtocol6WithError(&probeProvider{}),
		},
		Steps: []tfresource.TestStep{{
			Config: `
variable "secret" {
  type      = string
  ephemeral = true
  default   = "whsec_probe"
}

action "probe_write_only" "a" {
  config {
    secret = var.secret
  }
}

resource "terraform_data" "t" {
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.probe_write_only.a]
    }
  }
}
`,
			ExpectError: regexp.MustCompile(`(?s)WriteOnly Attribute Not Allowed.*Write-only attributes are only supported in\s+Terraform 1.11 and later`),
		}},
	})
}

// probeProvider has one action, probe_write_only, with one write-only attribute.
type probeProvider struct{}

func (p *probeProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "probe"
}
func (p *probeProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (p *probeProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (p *probeProvider) Resources(context.Context) []func() resource.Resource       { return nil }
func (p *probeProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }
func (p *probeProvider) Actions(context.Context) []func() action.Action {
	return []func() action.Action{func() action.Action { return probeAction{} }}
}

type probeAction struct{}

func (probeAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_write_only"
}

func (probeAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = actionschema.Schema{Attributes: map[string]actionschema.Attribute{
		"secret": actionschema.StringAttribute{Optional: true, WriteOnly: true},
	}}
}

func (probeAction) Invoke(context.Context, action.InvokeRequest, *action.InvokeResponse) {}
