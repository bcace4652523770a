// Package unavailable is the backend that stands in for the remote-state backends the Go module proxy
// does not serve (Terraform's go.mod replaces their modules with directories of its own repository).
// The provider's tests keep their state locally, so a build without them proves the provider; a
// configuration that names one of them is refused with a message that says why and what to use.
package unavailable

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/configs/configschema"
	"github.com/hashicorp/terraform/internal/tfdiags"
	"github.com/zclconf/go-cty/cty"
)

// New returns a backend that refuses every configuration.
func New() backend.Backend { return missing{} }

// missing implements only what Terraform calls before it gives up on a backend's configuration.
type missing struct{ backend.Backend }

func (missing) ConfigSchema() *configschema.Block { return &configschema.Block{} }

func (missing) PrepareConfig(v cty.Value) (cty.Value, tfdiags.Diagnostics) {
	var diags tfdiags.Diagnostics
	return v, diags.Append(tfdiags.Sourceless(tfdiags.Error, "State backend not built in",
		"This Terraform was built by tools/engines/terraform from the Go module proxy, which does not serve "+
			"this backend's module. Use the local backend, or an official Terraform release."))
}
