package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// runConform runs the contract suite against --target, or against an embedded sandbox when no target
// is given. Exit codes: 0 every check passed, 1 a check failed, 2 usage or connection error.
func runConform(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("malipo conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "", "base URL of the implementation to check; empty starts an embedded sandbox")
	publicKey := fs.String("public-key", os.Getenv("MALIPO_PUBLIC_KEY"), "test public key of the target (env MALIPO_PUBLIC_KEY)")
	secretKey := fs.String("secret-key", os.Getenv("MALIPO_SECRET_KEY"), "test secret key of the target (env MALIPO_SECRET_KEY)")
	otherPublic := fs.String("other-public-key", "", "a second merchant's public key, for cross-merchant isolation checks")
	otherSecret := fs.String("other-secret-key", "", "a second merchant's secret key")
	listen := fs.String("webhook-listen", "127.0.0.1:0", "address the webhook receiver listens on")
	hookURL := fs.String("webhook-url", "", "base URL the target uses to reach the receiver (default: from --webhook-listen)")
	runRE := fs.String("run", "", "only run checks whose id matches this regular expression")
	list := fs.Bool("list", false, "list the checks and exit")
	junit := fs.String("junit", "", "write a JUnit XML report to this file")
	jsonOut := fs.String("json", "", "write a JSON report to this file")
	requireExt := fs.Bool("require-extensions", false, "fail (not skip) webhook-endpoint checks when the target lacks "+api.OpListWebhookEndpoints().Path)
	concurrency := fs.Int("concurrency", 8, "checks run at once")
	wait := fs.Duration("wait", 20*time.Second, "how long to wait for asynchronous outcomes (settlement, webhooks)")
	stall := fs.Duration("webhook-stall", 15*time.Second, "how long the receiver stalls to test the target's delivery time-out")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: malipo conform [--target URL --public-key K --secret-key K] [flags]\n\n"+
			"Checks an implementation of the v1 API against openapi/malipo.yaml, webhooks included.\n"+
			"Without --target it checks an embedded sandbox.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "malipo conform: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	checks, err := contracttests.All()
	if err != nil {
		fmt.Fprintf(stderr, "malipo conform: %v\n", err)
		return exitFail
	}
	var filter *regexp.Regexp
	if *runRE != "" {
		if filter, err = regexp.Compile(*runRE); err != nil {
			fmt.Fprintf(stderr, "malipo conform: --run: %v\n", err)
			return exitUsage
		}
	}
	if *list {
		listChecks(stdout, checks, filter)
		return exitOK
	}
	if (*otherPublic == "") != (*otherSecret == "") {
		fmt.Fprintln(stderr, "malipo conform: give both --other-public-key and --other-secret-key, or neither")
		return exitUsage
	}

	var cfg contracttests.Config
	if *target == "" {
		embedded, stop, err := contracttests.StartEmbedded()
		if err != nil {
			fmt.Fprintf(stderr, "malipo conform: %v\n", err)
			return exitFail
		}
		defer func() {
			if err := stop(); err != nil {
				fmt.Fprintf(stderr, "malipo conform: stopping the embedded sandbox: %v\n", err)
			}
		}()
		cfg = embedded
		fmt.Fprintf(stdout, "malipo conform: no --target; checking an embedded sandbox at %s\n", cfg.BaseURL)
	} else {
		if *publicKey == "" || *secretKey == "" {
			fmt.Fprintln(stderr, "malipo conform: --target needs --public-key and --secret-key (or MALIPO_PUBLIC_KEY and MALIPO_SECRET_KEY)")
			return exitUsage
		}
		cfg = contracttests.Config{BaseURL: *target, Keys: contracttests.Keys{Public: *publicKey, Secret: *secretKey},
			EventuallyTimeout: *wait, WebhookStall: *stall}
		if *otherPublic != "" {
			cfg.OtherMerchant = &contracttests.Keys{Public: *otherPublic, Secret: *otherSecret}
		}
	}
	cfg.WebhookListen, cfg.WebhookURL = *listen, *hookURL
	cfg.Run, cfg.RequireExtensions, cfg.Concurrency = filter, *requireExt, *concurrency

	reporters := []contracttests.Reporter{&contracttests.TextReporter{W: stdout}}
	if *junit != "" {
		reporters = append(reporters, contracttests.JUnitReporter{Path: *junit})
	}
	if *jsonOut != "" {
		reporters = append(reporters, contracttests.JSONReporter{Path: *jsonOut})
	}
	sum, err := contracttests.Run(ctx, cfg, checks, reporters...)
	if sum == nil {
		fmt.Fprintf(stderr, "malipo conform: %v\n", err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "malipo conform: %v\n", err)
		return exitFail
	}
	if !sum.OK() {
		return exitFail
	}
	return exitOK
}

func listChecks(w io.Writer, checks []*contracttests.Check, filter *regexp.Regexp) {
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].ID < checks[j].ID })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	n := 0
	for _, c := range checks {
		if filter != nil && !filter.MatchString(c.ID) {
			continue
		}
		n++
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.ID, c.Category, c.Doc)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d checks\n", n)
}
