package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/malipo/terraform-provider-malipo/cmd/malipo/internal/cliconfig"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/receivertests"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// webhookSecretEnv is where `malipo webhooks test` and examples/webhook-receiver read the secret when
// no flag gives it: a secret on the command line shows in process listings and shell history.
const webhookSecretEnv = "MALIPO_WEBHOOK_SECRET"

// webhooksCommand is `malipo webhooks`, the parent of the commands about a merchant's receiver.
func (c *cli) webhooksCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhooks <command>",
		Short: "test a merchant's webhook receiver",
		Long: `Commands about the merchant's half of webhooks: the receiver that gets the deliveries.
'malipo conform' checks that an implementation sends correct webhooks; 'malipo webhooks test'
checks that a receiver verifies, dedupes and answers them as the contract requires.`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	cmd.AddCommand(c.webhooksTestCommand())
	return cmd
}

// webhooksTestFlags are the settings of `malipo webhooks test`.
type webhooksTestFlags struct {
	url, secret, secretKey string
	eventTypes             []string
	burst                  int
	timeout                time.Duration
	// seed draws the generated payloads; zero draws a seed, which the run prints.
	seed    uint64
	reports reportFlags
	// settings is what the settings file gave the run, for its rerun command.
	settings settingsUsed
}

func (c *cli) webhooksTestCommand() *cobra.Command {
	f := &webhooksTestFlags{burst: receivertests.DefaultBurst, timeout: api.WebhookDeliveryTimeout}
	cmd := &cobra.Command{
		Use:   "test --url URL [--secret whsec_… | --secret-key sk_…] [flags]",
		Short: "send a receiver signed, forged, stale and duplicate deliveries and grade its answers",
		Long: fmt.Sprintf(`Sends the webhook receiver at --url a battery of deliveries built from the contract's webhooks
(every event type's example event, schema-valid) and grades each answer:

  accepts     every event type correctly signed, a rotation's two signatures (one valid), a
              redelivery of the same webhook-id: 2xx within the time-out (%s by default, the
              document's x-malipo-delivery-timeout-seconds); the same events written in ways a
              decode and re-encode changes (white space, key order, \u escapes, 2500.0 and
              2.5e+03, non-ASCII text, <>& and U+2028, a large integer), and bodies generated from
              each event's schema (every enum value, optional fields absent and present, undeclared
              fields, the bounds, values drawn from --seed): 2xx
  rejects     for every event type: no signature, a forged one, a body changed after signing,
              another secret, a timestamp outside the five-minute tolerance (past and future), a
              malformed signature header, an unknown signature version only: any non-2xx
  robustness  a burst of --burst deliveries at once, an undeclared field, an undeclared event type

The secret is the one the receiver verifies with: an endpoint's whsec_ secret (--secret), or the
merchant secret key that signs deliveries to a payment's or payout's own webhook_url (--secret-key).
Without either flag it is read from $%s (either form).

Every failure names the rule it breaks and what to fix, with the delivery as a curl command; a signed
delivery replayed more than five minutes later is refused, which is the point of the timestamp.
Exit codes: 0 every check passed, 1 a check failed, 2 usage or setup error (e.g. the receiver does not
answer), 130 interrupted.`, api.WebhookDeliveryTimeout, webhookSecretEnv),
		Example: `  MALIPO_WEBHOOK_SECRET=whsec_… go run ./examples/webhook-receiver &
  malipo webhooks test --url http://127.0.0.1:8090/webhooks/malipo
  malipo webhooks test --url https://shop.example.org/hooks/malipo --secret-key "$MALIPO_SECRET_KEY" --junit receiver.xml
  malipo webhooks test --list`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.settings = c.config.used
			code, err := runWebhooksTest(cmd.Context(), cmd, f, c.stdout, c.stderr)
			c.code = code
			return err
		},
	}
	fs := cmd.Flags()
	fs.Var(baseURLValue{&f.url}, "url", "full `URL` of the receiver, as registered as a webhook_url or endpoint")
	// No flag defaults for secrets: a default would print one from the environment in --help.
	fs.StringVar(&f.secret, "secret", "", "the endpoint's signing `secret`, whsec_… (default $"+webhookSecretEnv+")")
	fs.StringVar(&f.secretKey, "secret-key", "", "the merchant secret `key` that signs deliveries to a payment's or payout's webhook_url")
	secretFlag(fs, "secret", webhookSecretEnv)
	secretFlag(fs, "secret-key", "")
	cliconfig.MarkExclusive(fs.Lookup("secret"), fs.Lookup("secret-key"))
	fs.StringSliceVar(&f.eventTypes, "event-types", nil, "comma-separated event `types` to send (default every type the contract declares)")
	fs.IntVar(&f.burst, "burst", f.burst, "deliveries the burst check sends at once")
	fs.Uint64Var(&f.seed, "seed", 0, "draws the generated payloads: the same `SEED` sends the same bodies (default a new one, printed)")
	fs.Var(durationValue{&f.timeout}, "timeout", "how long the receiver has to answer each delivery (the default is the contract's "+openapi.DeliveryTimeoutExtension+")")
	f.reports.declare(cmd, receiverChecks)
	oneOf(cmd, "event-types", eventTypeCompletions()...)
	return cmd
}

// webhookSecret returns the secret the flags or the environment give, or a usage error that says which
// forms are accepted. It never quotes the secret.
func webhookSecret(cmd *cobra.Command, f *webhooksTestFlags) (webhook.Secret, error) {
	const forms = "pass the endpoint's whsec_… secret with --secret, or the merchant secret key (sk_…) that signs webhook_url deliveries with --secret-key"
	switch {
	case f.secret != "" && f.secretKey != "":
		return webhook.Secret{}, usageErrorf(cmd, "give --secret or --secret-key, not both: the receiver verifies with one of them")
	case f.secret != "":
		if !strings.HasPrefix(f.secret, "whsec_") {
			return webhook.Secret{}, usageErrorf(cmd, "--secret does not start with whsec_; %s", forms)
		}
		s, err := webhook.ParseSecret(f.secret)
		if err != nil {
			return webhook.Secret{}, usageErrorf(cmd, "--secret: %v", err)
		}
		return s, nil
	case f.secretKey != "":
		if strings.HasPrefix(f.secretKey, "whsec_") {
			return webhook.Secret{}, usageErrorf(cmd, "--secret-key starts with whsec_, which marks an endpoint secret: pass it with --secret")
		}
		return webhook.ParseSecret(f.secretKey)
	}
	env := strings.TrimSpace(os.Getenv(webhookSecretEnv))
	if env == "" {
		return webhook.Secret{}, usageErrorf(cmd, "no secret: %s (or set $%s)", forms, webhookSecretEnv)
	}
	s, err := webhook.ParseSecret(env)
	if err != nil {
		return webhook.Secret{}, usageErrorf(cmd, "$%s: %v", webhookSecretEnv, err)
	}
	return s, nil
}

// runWebhooksTest grades the receiver and returns the exit code, or a usage error.
func runWebhooksTest(ctx context.Context, cmd *cobra.Command, f *webhooksTestFlags, stdout, stderr io.Writer) (int, error) {
	cfg := receivertests.Config{URL: f.url, EventTypes: f.eventTypes, Burst: f.burst, Timeout: f.timeout,
		Run: f.reports.run, Skip: f.reports.skip}
	if f.burst < 1 {
		return exitUsage, usageErrorf(cmd, "--burst %d: send at least one delivery", f.burst)
	}
	if f.timeout <= 0 {
		return exitUsage, usageErrorf(cmd, "--timeout %s: give a positive time, e.g. 10s", f.timeout)
	}
	if len(f.eventTypes) > 0 {
		if _, err := receivertests.List(cfg); err != nil {
			return exitUsage, usageErrorf(cmd, "--event-types: %v", strings.TrimPrefix(err.Error(), runner.ErrSetup.Error()+": "))
		}
	}
	if f.reports.list {
		checks, err := receivertests.List(cfg)
		if err != nil {
			fmt.Fprintf(stderr, "malipo webhooks test: %v\n", err)
			return exitUsage, nil
		}
		filter := runner.Filter{Run: f.reports.run, Skip: f.reports.skip}
		checks = slices.DeleteFunc(checks, func(c runner.Check) bool { return !filter.Keeps(c.ID) })
		list(stdout, checks)
		return exitOK, nil
	}
	if f.url == "" {
		return exitUsage, usageErrorf(cmd, "--url is required: the full URL of the receiver, e.g. --url http://127.0.0.1:8090/webhooks/malipo")
	}
	secret, err := webhookSecret(cmd, f)
	if err != nil {
		return exitUsage, err
	}
	cfg.Secret = secret
	cfg.Seed = f.seed
	for cfg.Seed == 0 {
		cfg.Seed = rand.Uint64()
	}
	// The seed goes to stderr, so that a --json - on stdout stays JSON, and into every failure's rerun
	// line and the JSON report (Config.Rerun).
	fmt.Fprintf(stderr, "malipo webhooks test: generated payloads from --seed %d\n", cfg.Seed)
	cfg.Rerun = webhooksRerun(cmd, f.settings, cfg.Seed)
	sum, err := receivertests.Run(ctx, cfg, f.reports.reporters(stdout, receivertests.Tool)...)
	if err != nil {
		fmt.Fprintf(stderr, "malipo webhooks test: %v\n", err)
	}
	return runner.ExitCode(sum, err), nil
}

// webhooksRerunFlags are the flags that change what one check sends, in the rerun line; the secret is
// left out (the rerun reads $MALIPO_WEBHOOK_SECRET, which takes either form, or the settings file's
// variable), and so are the reports and the selection.
var webhooksRerunFlags = []string{"url", "event-types", "burst", "timeout"}

// webhooksRerun is the command line that grades the same receiver the same way, seed included: the
// settings file the run read, which gives the flags it set again, and the webhooksRerunFlags given on
// the command line.
func webhooksRerun(cmd *cobra.Command, settings settingsUsed, seed uint64) []string {
	args := append([]string{"malipo", "webhooks", "test"}, settings.args()...)
	for _, name := range webhooksRerunFlags {
		if fl := cmd.Flags().Lookup(name); fl != nil && settings.onCommandLine(fl) {
			v := fl.Value.String()
			if sv, ok := fl.Value.(interface{ GetSlice() []string }); ok {
				v = strings.Join(sv.GetSlice(), ",")
			}
			args = append(args, "--"+name, v)
		}
	}
	return append(args, "--seed", strconv.FormatUint(seed, 10))
}

// receiverChecks lists the checks of `malipo webhooks test` with every declared event type (for
// completion).
func receiverChecks() ([]runner.Check, error) { return receivertests.List(receivertests.Config{}) }
