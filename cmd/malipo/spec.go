package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// runSpec prints the embedded contract, so that generators and linters can consume exactly what the
// binaries validate against; --check loads it instead and reports what it declares.
func runSpec(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("malipo spec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("check", false, "load and index the contract and report OK (or what is wrong) instead of printing it")
	fs.Usage = func() {
		_, _ = fmt.Fprintln(stderr, "Usage: malipo spec [--check]\n\nPrints the embedded OpenAPI document (openapi/malipo.yaml).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "malipo spec: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if !*check {
		if _, err := stdout.Write(openapi.YAML()); err != nil {
			fmt.Fprintf(stderr, "malipo spec: write the document: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	spec, err := openapi.Load(openapi.YAML())
	if err != nil {
		fmt.Fprintf(stderr, "malipo spec: the embedded contract does not load: %v\n", err)
		return exitFail
	}
	tv, err := spec.TestValues()
	if err != nil {
		fmt.Fprintf(stderr, "malipo spec: %v\n", err)
		return exitFail
	}
	if _, err := spec.ErrorStatuses(); err != nil {
		fmt.Fprintf(stderr, "malipo spec: %v\n", err)
		return exitFail
	}
	bad, err := spec.CheckExamples()
	if err != nil {
		fmt.Fprintf(stderr, "malipo spec: %v\n", err)
		return exitFail
	}
	if len(bad) > 0 {
		for _, v := range bad {
			fmt.Fprintf(stderr, "malipo spec: example does not match its schema: %s\n", v)
		}
		return exitFail
	}
	fmt.Fprintf(stdout, "OK: %s %s, %d operations, %d webhook event types, %d test values\n",
		spec.Model().Info.Title, spec.Model().Info.Version, len(spec.Operations()), len(spec.EventTypes()),
		len(tv.Payments)+len(tv.Payouts.MobileNumber)+len(tv.Payouts.Bank))
	return exitOK
}
