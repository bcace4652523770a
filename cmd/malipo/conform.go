package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/embedded"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// conformFlags are the settings of `malipo conform`.
type conformFlags struct {
	target, publicKey, secretKey string
	otherPublic, otherSecret     string
	listen, hookURL              string
	reports                      reportFlags
	spec                         string
	requireExt                   bool
	concurrency                  int
	wait, stall, settle          time.Duration
	// seed draws the generated requests; zero draws one, which the run prints.
	seed uint64
	// generated is how many generated requests each generated check sends; -1 turns them off.
	generated int
	// settings is what the settings file gave the run, for its rerun command.
	settings settingsUsed
}

// conformCommand is `malipo conform`.
func (c *cli) conformCommand() *cobra.Command {
	f := &conformFlags{listen: "127.0.0.1:0", concurrency: 8, wait: 20 * time.Second, stall: 15 * time.Second, generated: contracttests.DefaultGenerated}
	cmd := &cobra.Command{
		Use:   "conform [--target URL --public-key KEY --secret-key KEY] [flags]",
		Short: "check an implementation (default: an embedded sandbox) against the contract",
		Long: `Checks an implementation of the v1 API against openapi/malipo.yaml, webhooks included.
Without --target it checks an embedded sandbox.

The keys can come from the environment, where CI keeps secrets: MALIPO_PUBLIC_KEY and
MALIPO_SECRET_KEY, and MALIPO_OTHER_PUBLIC_KEY and MALIPO_OTHER_SECRET_KEY for the second merchant.
The reports lead with findings (failed checks grouped by the rule they break), and under each failed
check print the command that runs it again alone, which reads the keys from the environment.
The generated checks (generated.*) send request bodies drawn from the schemas with --seed: the
boundaries, text in other scripts and random values, each judged by properties, and a failure shrunk
to the smallest body that still fails; the same seed sends the same bodies (merchant references keep a
part of their own per run). --generated sets how many each check sends.
Exit codes: 0 every check passed, 1 a check failed, 2 usage or setup error (e.g. the target does not
answer), 130 interrupted.`,
		Example: `  malipo conform
  malipo conform --target http://127.0.0.1:8080 --junit conform.xml --json conform.json
  malipo conform --list --run '^state\.payout\.'
  malipo conform --run '^auth\.' --skip 'isolation'
  malipo conform --run '^generated\.' --generated 200 --seed 42`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.keysFromEnv(cmd.Flags())
			f.settings = c.config.used
			code, err := runConform(cmd.Context(), cmd, f, c.stdout, c.stderr)
			c.code = code
			return err
		},
	}
	f.declare(cmd)
	return cmd
}

// declare defines the flags of `malipo conform`, each writing into f.
func (f *conformFlags) declare(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.Var(baseURLValue{&f.target}, "target", "base `URL` of the implementation to check; empty starts an embedded sandbox")
	declareKeyFlags(fs, &f.publicKey, &f.secretKey)
	fs.StringVar(&f.otherPublic, "other-public-key", "", "a second merchant's public `key`, for cross-merchant isolation checks (default $MALIPO_OTHER_PUBLIC_KEY)")
	fs.StringVar(&f.otherSecret, "other-secret-key", "", "a second merchant's secret `key` (default $MALIPO_OTHER_SECRET_KEY)")
	secretFlag(fs, "other-public-key", "MALIPO_OTHER_PUBLIC_KEY")
	secretFlag(fs, "other-secret-key", "MALIPO_OTHER_SECRET_KEY")
	fs.Var(hostPortValue{&f.listen}, "webhook-listen", "address the webhook receiver listens on")
	fs.Var(baseURLValue{&f.hookURL}, "webhook-url", "base `URL` the target uses to reach the receiver (default: from --webhook-listen)")
	f.reports.declare(cmd, conformChecks)
	fs.BoolVar(&f.requireExt, "require-extensions", false, "fail (not skip) the checks of an extension the target lacks ("+api.OpListWebhookEndpoints().Path+", "+api.OpListEvents().Path+")")
	fs.IntVar(&f.concurrency, "concurrency", f.concurrency, "checks that act (send requests) at once; a check that only waits for the target holds no place")
	fs.Var(durationValue{&f.wait}, "wait", "how long to wait for asynchronous outcomes (settlement, webhooks)")
	fs.Var(durationValue{&f.stall}, "webhook-stall", "how long the receiver stalls to test the target's delivery time-out")
	fs.Var(durationValue{&f.settle}, "settle", "fixed time to wait when checking that something does NOT happen (no second webhook, no state change); 0 follows the target: 3x its slowest observed outcome")
	fs.Uint64Var(&f.seed, "seed", 0, "draws the generated requests: the same `SEED` sends the same bodies (default a new one, printed)")
	fs.IntVar(&f.generated, "generated", f.generated, "generated requests each generated check sends (`N`; -1 turns the generated checks off); shrinking a failure sends more")
	fs.StringVar(&f.spec, "spec", "", "run the suite from this OpenAPI `file` instead of the embedded document: derived checks follow it, checks that need something it lacks are skipped with the reason")
	_ = cmd.MarkFlagFilename("spec", "yaml", "yml", "json")
}

// keysFromEnv takes the keys not given as flags from the environment, where CI systems put secrets:
// a key on the command line shows in process listings and in logs of the command.
func (f *conformFlags) keysFromEnv(fs *pflag.FlagSet) {
	keysFromEnv(fs, "public-key", "secret-key", "other-public-key", "other-secret-key")
}

// runConform runs the contract suite against --target, or against an embedded sandbox when no target
// is given, and returns the exit code (runner.ExitCode) or a usage error.
func runConform(ctx context.Context, cmd *cobra.Command, f *conformFlags, stdout, stderr io.Writer) (int, error) {
	checks, spec, err := contracttests.ChecksFor(f.spec)
	if err != nil {
		if f.spec != "" {
			return exitUsage, usageErrorf(cmd, "--spec: %v", err)
		}
		fmt.Fprintf(stderr, "malipo conform: %v\n", err)
		return exitFail, nil
	}
	if f.reports.list {
		listChecks(stdout, contracttests.Select(checks, f.reports.run, f.reports.skip))
		return exitOK, nil
	}
	if (f.otherPublic == "") != (f.otherSecret == "") {
		return exitUsage, usageErrorf(cmd, "give both --other-public-key and --other-secret-key (or MALIPO_OTHER_PUBLIC_KEY and MALIPO_OTHER_SECRET_KEY), or neither")
	}
	if f.settle < 0 {
		return exitUsage, usageErrorf(cmd, "--settle %s: a time to wait cannot be negative; give 0 to follow the target", f.settle)
	}
	if f.target != "" && (f.publicKey == "" || f.secretKey == "") {
		return exitUsage, usageErrorf(cmd, "--target needs --public-key and --secret-key (or MALIPO_PUBLIC_KEY and MALIPO_SECRET_KEY)")
	}
	cfg, stop, err := conformTarget(f, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "malipo conform: %v\n", err)
		return exitFail, nil
	}
	defer stop()
	cfg.Run, cfg.Skip, cfg.Spec = f.reports.run, f.reports.skip, spec
	if f.generated == 0 || f.generated < -1 {
		return exitUsage, usageErrorf(cmd, "--generated %d: give how many requests each generated check sends (at least 1), or -1 to turn them off", f.generated)
	}
	cfg.Seed, cfg.Generated = f.seed, f.generated
	for cfg.Seed == 0 {
		cfg.Seed = rand.Uint64()
	}
	// The seed goes to stderr, so that a --json - on stdout stays JSON, and into every failure's rerun.
	fmt.Fprintf(stderr, "malipo conform: generated requests from --seed %d\n", cfg.Seed)
	cfg.Rerun = append(rerunArgs(cmd.Flags(), f.settings), "--seed", strconv.FormatUint(cfg.Seed, 10))
	sum, err := contracttests.Run(ctx, cfg, checks, f.reports.reporters(stdout, report.DefaultTool)...)
	if err != nil {
		fmt.Fprintf(stderr, "malipo conform: %v\n", err)
	}
	return runner.ExitCode(sum, err), nil
}

// conformChecks lists the checks of the embedded document, as the runner sees them (for completion).
func conformChecks() ([]runner.Check, error) {
	checks, err := contracttests.All()
	if err != nil {
		return nil, err
	}
	return runnerChecks(checks), nil
}

// runnerChecks are the checks as --list and completion show them: id, category and description.
func runnerChecks(checks []*contracttests.Check) []runner.Check {
	out := make([]runner.Check, len(checks))
	for i, c := range checks {
		out[i] = runner.Check{ID: c.ID, Category: c.Category, Doc: c.Doc}
	}
	return out
}

// conformTarget returns the run's configuration: an embedded sandbox when no --target is given (stop
// shuts it down), else the target with its keys. The flags were checked; its only error is an
// embedded sandbox that cannot start.
func conformTarget(f *conformFlags, stdout, stderr io.Writer) (cfg contracttests.Config, stop func(), err error) {
	stop = func() {}
	if f.target == "" {
		target, stopEmbedded, err := embedded.Start()
		if err != nil {
			return cfg, nil, err
		}
		stop = func() {
			if err := stopEmbedded(); err != nil {
				fmt.Fprintf(stderr, "malipo conform: stopping the embedded sandbox: %v\n", err)
			}
		}
		cfg = contracttests.Config{BaseURL: target.BaseURL,
			Keys:          contracttests.Keys{Public: target.PublicKey, Secret: target.SecretKey},
			OtherMerchant: &contracttests.Keys{Public: target.OtherPublicKey, Secret: target.OtherSecretKey},
			WebhookStall:  target.Stall, EventuallyTimeout: target.Wait}
		fmt.Fprintf(stdout, "malipo conform: no --target; checking an embedded sandbox at %s\n", cfg.BaseURL)
	} else {
		cfg = contracttests.Config{BaseURL: f.target, Keys: contracttests.Keys{Public: f.publicKey, Secret: f.secretKey},
			EventuallyTimeout: f.wait, WebhookStall: f.stall}
		if f.otherPublic != "" {
			cfg.OtherMerchant = &contracttests.Keys{Public: f.otherPublic, Secret: f.otherSecret}
		}
	}
	cfg.WebhookListen, cfg.WebhookURL = f.listen, f.hookURL
	cfg.RequireExtensions, cfg.Concurrency = f.requireExt, f.concurrency
	cfg.SettleTime = f.settle
	return cfg, stop, nil
}

// listChecks lists the checks --run and --skip select (contracttests.Select), by id.
func listChecks(w io.Writer, checks []*contracttests.Check) { list(w, runnerChecks(checks)) }

// list prints one line per check, by id: its id, category and description, then how many there are.
func list(w io.Writer, checks []runner.Check) {
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].ID < checks[j].ID })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.ID, c.Category, c.Doc)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d checks\n", len(checks))
}

// rerunFlags are the flags a run of one check needs to meet the same target as the run that failed it,
// in this order: where the target is (--target) and which document the checks come from (--spec, whose
// derived checks the embedded document may not have), how the target reaches the suite's receiver,
// whether a missing extension fails, the waits that decide a timing check, and how many generated
// requests a generated check sends (the seed, which runConform appends, decides which). The keys are left out
// (the command reads them from the environment, like the curl commands), and so are the reports, the
// selection and the concurrency, which do not change what one check does.
var rerunFlags = []string{"target", "spec", "webhook-listen", "webhook-url", "require-extensions", "wait", "webhook-stall", "settle", "generated"}

// rerunArgs is the command line that reaches the same target as this run (contracttests.Config.Rerun):
// `malipo conform`, the settings file the run read (which gives the flags it set again, reading the
// same variables), and the rerunFlags given on the command line. A flag of true or false says which,
// since the file may say otherwise.
func rerunArgs(fs *pflag.FlagSet, settings settingsUsed) []string {
	args := append([]string{"malipo", "conform"}, settings.args()...)
	for _, name := range rerunFlags {
		fl := fs.Lookup(name)
		switch {
		case fl == nil || !settings.onCommandLine(fl):
		case fl.Value.Type() == "bool" && fl.Value.String() == "true":
			args = append(args, "--"+name)
		case fl.Value.Type() == "bool":
			args = append(args, "--"+name+"="+fl.Value.String())
		default:
			args = append(args, "--"+name, fl.Value.String())
		}
	}
	return args
}
