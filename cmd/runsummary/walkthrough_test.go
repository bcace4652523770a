package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// overrideWarningPlain is Terraform's dev_overrides warning as it prints it with -no-color (a log),
// followed by the first line of the command's own output.
const overrideWarningPlain = `
Warning: Provider development overrides are in effect

The following provider development overrides are set in the CLI
configuration:
 - malipo/malipo in /work/main/bin

The behavior may therefore not match any released version of the provider and
applying changes may cause the state to become incompatible with published
releases.
malipo_webhook_endpoint.payouts: Creating...
`

// overrideWarningBox is the same warning as Terraform prints it in colour (a terminal): in a box.
const overrideWarningBox = "\x1b[33m╷\x1b[0m\x1b[0m\n" +
	"\x1b[33m│\x1b[0m \x1b[0m\x1b[1m\x1b[33mWarning: \x1b[0m\x1b[0m\x1b[1mProvider development overrides are in effect\x1b[0m\n" +
	"\x1b[33m│\x1b[0m \x1b[0m\n" +
	"\x1b[33m│\x1b[0m \x1b[0mThe behavior may therefore not match any released version of the provider\n" +
	"\x1b[33m│\x1b[0m \x1b[0mand applying changes may cause the state to become incompatible with\n" +
	"\x1b[33m│\x1b[0m \x1b[0mpublished releases.\n" +
	"\x1b[33m╵\x1b[0m\x1b[0m\n" +
	"malipo_webhook_endpoint.payouts: Creating...\n"

// otherWarnings are warnings the walkthrough shows on purpose (destroying a payout does not reverse
// it), plain and in a box: the filter keeps them whole.
const otherWarnings = `
Warning: Destroying a Payout Does Not Reverse It

  with malipo_payout.supplier,
  on main.tf line 50, in resource "malipo_payout" "supplier":
  50: resource "malipo_payout" "supplier" {

Payout po_ac62440e13ce6941 will only be removed from Terraform state. Payouts
cannot be reversed: its money stays sent.
╷
│ Warning: Payout Removed From State Only
│
│ Its money stays sent.
╵
Destroy complete! Resources: 4 destroyed.
`

// dropOverrideWarning runs the walkthrough's filter (drop_override_warning in examples/sandbox/run.sh)
// on input.
func dropOverrideWarning(t *testing.T, input string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", `source <(sed -n '/^drop_override_warning()/,/^}/p' "$0") && drop_override_warning`,
		"../../examples/sandbox/run.sh")
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// Terraform warns that dev_overrides are in effect on every command; the walkthrough shows it on the
// first only, in a log and on a terminal, and keeps every other warning and line.
func TestWalkthroughDropsTheRepeatedOverrideWarning(t *testing.T) {
	assert.Equal(t, "\nmalipo_webhook_endpoint.payouts: Creating...\n", dropOverrideWarning(t, overrideWarningPlain))
	assert.Equal(t, "malipo_webhook_endpoint.payouts: Creating...\n", dropOverrideWarning(t, overrideWarningBox))
	assert.Equal(t, otherWarnings, dropOverrideWarning(t, otherWarnings))
	assert.Equal(t, "\n"+otherWarnings, dropOverrideWarning(t, overrideWarningPlain[:strings.Index(overrideWarningPlain, "malipo_")]+otherWarnings))
}

// A warning about dev_overrides whose end the filter does not recognise (another Terraform's words) is
// printed after all, 20 lines on: the filter never swallows the rest of the output.
func TestWalkthroughFilterGivesBackAnUnendedWarning(t *testing.T) {
	input := "Warning: Provider development overrides are in effect\n" + strings.Repeat("detail\n", 25) + "Apply complete!\n"
	assert.Equal(t, input, dropOverrideWarning(t, input))
}
