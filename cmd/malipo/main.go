// Command malipo is the Malipo CLI, built around the contract it embeds (openapi/malipo.yaml):
//
//   - `malipo sandbox` runs the reference implementation of the v1 Collections & Payouts API locally,
//     with webhooks, a web dashboard and, with --data, state that survives a restart;
//   - `malipo conform` checks an implementation (by default an embedded sandbox) against the contract;
//   - `malipo webhooks test` grades a merchant's webhook receiver;
//   - `malipo trigger` makes a target emit an event type, and `malipo events` lists, reads and resends
//     its events (the event-log extension), and `malipo events tail` follows them as they are created;
//   - `malipo listen --forward-to URL` forwards a target's new events to a local receiver as signed
//     webhooks;
//   - `malipo spec` prints the contract or checks it (--check), and `malipo spec diff OLD NEW` says
//     whom each change between two versions breaks;
//   - `malipo version` prints the versions of malipo, of Go and of the contract.
//
// `malipo help COMMAND` shows a command's flags and examples.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the first signal drains gracefully; a second one ends the process at once
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
