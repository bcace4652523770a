// Command malipo is the Malipo CLI: `malipo sandbox` runs the reference implementation of the v1
// Collections & Payouts API locally, `malipo spec` prints or checks the embedded contract.
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
