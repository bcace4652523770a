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

// conformFlags are the settings of `malipo conform`.
type conformFlags struct {
	target, publicKey, secretKey string
	otherPublic, otherSecret     string
	listen, hookURL              string
	runRE                        string
	list                         bool
	junit, jsonOut               string
	requireExt                   bool
	concurrency                  int
	wait, stall                  time.Duration
}

// runConform runs the contract suite against --target, or against an embedded sandbox when no target
// is given. Exit codes: 0 every check passed, 1 a check failed, 2 usage or connection error.
func runConform(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, code := parseConformFlags(args, stderr)
	if f == nil {
		return code
	}
	checks, err := contracttests.All()
	if err != nil {
		fmt.Fprintf(stderr, "malipo conform: %v\n", err)
		return exitFail
	}
	var filter *regexp.Regexp
	if f.runRE != "" {
		if filter, err = regexp.Compile(f.runRE); err != nil {
			fmt.Fprintf(stderr, "malipo conform: --run: %v\n", err)
			return exitUsage
		}
	}
	if f.list {
		listChecks(stdout, checks, filter)
		return exitOK
	}
	cfg, stop, code := conformTarget(f, stdout, stderr)
	if stop == nil {
		return code
	}
	defer stop()
	cfg.Run = filter
	sum, err := contracttests.Run(ctx, cfg, checks, conformReporters(f, stdout)...)
	return conformExitCode(sum, err, stderr)
}

// parseConformFlags parses the command line; on a usage error or -h it returns nil and the exit code,
// having told the user. Values that need the suite or each other (--run, the second merchant's keys,
// --target's keys) are checked where they are used.
func parseConformFlags(args []string, stderr io.Writer) (*conformFlags, int) {
	f := &conformFlags{}
	fs := flag.NewFlagSet("malipo conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.target, "target", "", "base URL of the implementation to check; empty starts an embedded sandbox")
	fs.StringVar(&f.publicKey, "public-key", os.Getenv("MALIPO_PUBLIC_KEY"), "test public key of the target (env MALIPO_PUBLIC_KEY)")
	fs.StringVar(&f.secretKey, "secret-key", os.Getenv("MALIPO_SECRET_KEY"), "test secret key of the target (env MALIPO_SECRET_KEY)")
	fs.StringVar(&f.otherPublic, "other-public-key", "", "a second merchant's public key, for cross-merchant isolation checks")
	fs.StringVar(&f.otherSecret, "other-secret-key", "", "a second merchant's secret key")
	fs.StringVar(&f.listen, "webhook-listen", "127.0.0.1:0", "address the webhook receiver listens on")
	fs.StringVar(&f.hookURL, "webhook-url", "", "base URL the target uses to reach the receiver (default: from --webhook-listen)")
	fs.StringVar(&f.runRE, "run", "", "only run checks whose id matches this regular expression")
	fs.BoolVar(&f.list, "list", false, "list the checks and exit")
	fs.StringVar(&f.junit, "junit", "", "write a JUnit XML report to this file")
	fs.StringVar(&f.jsonOut, "json", "", "write a JSON report to this file")
	fs.BoolVar(&f.requireExt, "require-extensions", false, "fail (not skip) webhook-endpoint checks when the target lacks "+api.OpListWebhookEndpoints().Path)
	fs.IntVar(&f.concurrency, "concurrency", 8, "checks run at once")
	fs.DurationVar(&f.wait, "wait", 20*time.Second, "how long to wait for asynchronous outcomes (settlement, webhooks)")
	fs.DurationVar(&f.stall, "webhook-stall", 15*time.Second, "how long the receiver stalls to test the target's delivery time-out")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: malipo conform [--target URL --public-key K --secret-key K] [flags]\n\n"+
			"Checks an implementation of the v1 API against openapi/malipo.yaml, webhooks included.\n"+
			"Without --target it checks an embedded sandbox.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, exitOK
		}
		return nil, exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "malipo conform: unexpected argument %q\n", fs.Arg(0))
		return nil, exitUsage
	}
	return f, -1
}

// conformTarget returns the run's configuration: an embedded sandbox when no --target is given (stop
// shuts it down), else the target with its keys. On an error it returns a nil stop and the exit code,
// having told the user: a wrong command line is a usage error, a sandbox that cannot start a failure.
func conformTarget(f *conformFlags, stdout, stderr io.Writer) (cfg contracttests.Config, stop func(), code int) {
	if (f.otherPublic == "") != (f.otherSecret == "") {
		fmt.Fprintln(stderr, "malipo conform: give both --other-public-key and --other-secret-key, or neither")
		return cfg, nil, exitUsage
	}
	stop = func() {}
	if f.target == "" {
		embedded, stopEmbedded, err := contracttests.StartEmbedded()
		if err != nil {
			fmt.Fprintf(stderr, "malipo conform: %v\n", err)
			return cfg, nil, exitFail
		}
		stop = func() {
			if err := stopEmbedded(); err != nil {
				fmt.Fprintf(stderr, "malipo conform: stopping the embedded sandbox: %v\n", err)
			}
		}
		cfg = embedded
		fmt.Fprintf(stdout, "malipo conform: no --target; checking an embedded sandbox at %s\n", cfg.BaseURL)
	} else {
		if f.publicKey == "" || f.secretKey == "" {
			fmt.Fprintln(stderr, "malipo conform: --target needs --public-key and --secret-key (or MALIPO_PUBLIC_KEY and MALIPO_SECRET_KEY)")
			return cfg, nil, exitUsage
		}
		cfg = contracttests.Config{BaseURL: f.target, Keys: contracttests.Keys{Public: f.publicKey, Secret: f.secretKey},
			EventuallyTimeout: f.wait, WebhookStall: f.stall}
		if f.otherPublic != "" {
			cfg.OtherMerchant = &contracttests.Keys{Public: f.otherPublic, Secret: f.otherSecret}
		}
	}
	cfg.WebhookListen, cfg.WebhookURL = f.listen, f.hookURL
	cfg.RequireExtensions, cfg.Concurrency = f.requireExt, f.concurrency
	return cfg, stop, exitOK
}

// conformReporters returns the text report on stdout and the file reports the flags ask for.
func conformReporters(f *conformFlags, stdout io.Writer) []contracttests.Reporter {
	reporters := []contracttests.Reporter{&contracttests.TextReporter{W: stdout}}
	if f.junit != "" {
		reporters = append(reporters, contracttests.JUnitReporter{Path: f.junit})
	}
	if f.jsonOut != "" {
		reporters = append(reporters, contracttests.JSONReporter{Path: f.jsonOut})
	}
	return reporters
}

// conformExitCode maps a run to the exit code: no summary means the run could not happen (usage or
// connection), an error with a summary means a report could not be written, and a failed check is a
// failure.
func conformExitCode(sum *contracttests.Summary, err error, stderr io.Writer) int {
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
