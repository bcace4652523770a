package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/specdiff"
)

// specCommand is `malipo spec`.
func (c *cli) specCommand() *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:   "spec [--check]",
		Short: "print the embedded OpenAPI contract, or check it with --check",
		Long: `Prints the embedded OpenAPI document (openapi/malipo.yaml), so that generators and linters read
exactly what the binaries validate against. With --check it loads the document instead and reports
what it declares.`,
		Example: `  malipo spec > malipo.yaml
  malipo spec --check`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(*cobra.Command, []string) error {
			c.code = runSpec(check, c.stdout, c.stderr)
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "load and index the contract and report OK (or what is wrong) instead of printing it")
	cmd.AddCommand(c.specDiffCommand())
	return cmd
}

// specDiffCommand is `malipo spec diff OLD NEW`.
func (c *cli) specDiffCommand() *cobra.Command {
	format := "text"
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "list the changes between two versions of the document, and whom each breaking one breaks",
		Long: `Compares two versions of an OpenAPI document and lists every change, with whom each breaking one
breaks: API clients (requests they send, responses they parse), webhook receivers (payloads, event
types, signature headers), conformance (x-malipo-test-values). ` + "`malipo spec > old.yaml`" + ` writes the
embedded document.

Exit codes: 0 nothing breaks, 1 a change breaks someone, 2 an input cannot be read or the usage is wrong.`,
		Example: `  malipo spec > old.yaml && malipo spec diff old.yaml openapi/malipo.yaml
  malipo spec diff --format markdown main.yaml pr.yaml > comment.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf(cmd, "want two documents, OLD and NEW; got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			code, err := specdiff.Run(c.stdout, args[0], args[1], format)
			if err != nil {
				fmt.Fprintf(c.stderr, "malipo spec diff: %v\n", err)
			}
			c.code = code
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", format, "report format: "+strings.Join(specdiff.Formats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(specdiff.Formats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// runSpec prints the embedded contract, or with check loads it and reports what it declares.
func runSpec(check bool, stdout, stderr io.Writer) int {
	if !check {
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
	controls := 0
	for _, op := range spec.Operations() {
		if op.SandboxOnly {
			controls++
		}
	}
	fmt.Fprintf(stdout, "OK: %s %s, %d operations (and %d sandbox controls), %d webhook event types, %d test values\n",
		spec.Title(), spec.Version(), len(spec.Operations())-controls, controls, len(spec.EventTypes()),
		len(tv.Payments)+len(tv.Payouts.MobileNumber)+len(tv.Payouts.Bank))
	return exitOK
}
