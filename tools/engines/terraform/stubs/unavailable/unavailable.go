// Package unavailable is the backend that stands in for the remote-state backends the Go module proxy
// does not serve (Terraform's go.mod replaces their modules with directories of its own repository).
// The provider's tests keep their state locally, so a build without them proves the provider. A
// configuration that names one of these backends is refused: with the message below when its block is
// empty, and as "Unsupported argument" when it has arguments, since the stub's schema has none (the
// backend's real schema lives in the module the proxy does not serve).
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
