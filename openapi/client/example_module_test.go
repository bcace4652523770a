package client_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/embedded"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// docs/contract.md's example of using the client from another module (examples/client, a module of its own
// that requires this one) builds and pays out against a sandbox: a merchant's backend can import the
// client, and what it prints shows a payout's optional members as values.
func TestExampleFromAnotherModule(t *testing.T) {
	target, stop, err := embedded.Start()
	require.NoError(t, err)
	spec, err := openapi.Default()
	require.NoError(t, err)
	values, err := spec.TestValues()
	require.NoError(t, err)
	credited, ok := values.Find(string(api.PayoutStatusSuccess), "", openapi.TestValueBankPayouts)
	require.True(t, ok, "the document lists no credited bank account")
	t.Cleanup(func() { assert.NoError(t, stop()) })
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = filepath.Join("..", "..", "examples", "client")
	cmd.Env = append(os.Environ(), "MALIPO_BASE_URL="+target.BaseURL,
		"MALIPO_PUBLIC_KEY="+target.PublicKey, "MALIPO_SECRET_KEY="+target.SecretKey, "MALIPO_ACCOUNT="+credited.Input)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Regexp(t, `created: \{PayoutID:po_\w+ .*AccountNumber:\d+ `, string(out))
	assert.Contains(t, string(out), "final: success {")
	assert.NotContains(t, string(out), "AccountNumber:0x")
}
