package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/malipo/terraform-provider-malipo/internal/dashboard"
	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/internal/variance"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// sandboxFlags are the settings of `malipo sandbox`.
type sandboxFlags struct {
	addr            string
	publicKey       string
	secretKey       string
	merchantArgs    []string          // --merchant as typed: PUBLIC:SECRET each
	merchants       []sandbox.KeyPair // every merchant served, the first the default (resolveMerchants)
	promptDelay     time.Duration
	payoutDelay     time.Duration
	spread          time.Duration
	latency         variance.Latency
	retrySchedule   []time.Duration
	webhookTimeout  time.Duration
	concurrency     int
	rateLimit       int
	logFormat       string
	shutdownTimeout time.Duration
	faults          []faults.Fault
	listFaults      bool
	vary            *int64 // --vary: the seed of the variant served, nil for the sandbox itself
	dashboard       bool
	dataDir         string
}

// sandboxCommand is `malipo sandbox`.
func (c *cli) sandboxCommand() *cobra.Command {
	f := &sandboxFlags{
		addr:            "127.0.0.1:8080",
		promptDelay:     sandbox.DefaultTimings.PromptDelay,
		payoutDelay:     sandbox.DefaultTimings.PayoutDelay,
		retrySchedule:   append([]time.Duration(nil), sandbox.DefaultRetrySchedule...),
		webhookTimeout:  sandbox.DefaultWebhookTimeout,
		concurrency:     sandbox.DefaultDeliveryConcurrency,
		rateLimit:       sandbox.DefaultRateLimit,
		logFormat:       "text",
		shutdownTimeout: 10 * time.Second,
		dashboard:       true,
	}
	cmd := &cobra.Command{
		Use:   "sandbox [flags]",
		Short: "run the reference implementation of the API locally, with webhooks",
		Long: `Runs the reference implementation of the Malipo v1 API on a local address, with simulated
mobile-money outcomes (see the test values it prints) and signed webhooks. It serves until SIGINT or
SIGTERM, then drains requests and queued webhooks for up to --shutdown-timeout.

A web dashboard at /_dashboard/ on the same address shows the merchant's payments, payouts, webhook
endpoints, events and every delivery attempt, live, with buttons to resend an event and settle a
processing payment or payout (--dashboard=false turns it off). Open it by IP address or localhost:
it refuses other host names (DNS-rebinding protection).

--vary SEED serves a variant that differs from the sandbox wherever the document allows, drawn from
SEED: id formats, settlement delays, webhook order, duplicate deliveries and retry schedule, what a
concurrent retry with the same Idempotency-Key gets, rate limits, extra headers, the JSON's key order
and white space, how date-times are written, which countries and banks exist, and whether the
webhook-endpoint and event-log extensions exist, among others (the banner lists every choice).
It is for self-tests of malipo conform, and for trying a client against an implementation that is
not this sandbox. --prompt-delay, --payout-delay and
--webhook-retry-schedule, when given, replace the drawn ones. The dashboard shows the sandbox's own
ids. --vary cannot be combined with --data: a variant keeps its names for ids in memory only.

The keys can come from the environment: MALIPO_PUBLIC_KEY and MALIPO_SECRET_KEY.

--merchant PUBLIC:SECRET (repeatable) serves more merchants, each seeing only its own objects, so that
malipo conform, given a second merchant's keys, checks the isolation between two.
The first merchant, the default one, is --public-key/--secret-key (or MALIPO_PUBLIC_KEY and
MALIPO_SECRET_KEY) when either is given; otherwise the first --merchant; otherwise the well-known keys.
A public key given twice is a usage error.`,
		Example: `  malipo sandbox
  malipo sandbox --addr 127.0.0.1:0 --payout-delay 500ms --webhook-retry-schedule 1s,5s,30s
  malipo sandbox --log-format json
  malipo sandbox --merchant pk_test_a:sk_test_a --merchant pk_test_b:sk_test_b
  malipo sandbox --data ./sandbox-data
  malipo sandbox --vary 7`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.listFaults {
				printFaults(c.stdout)
				return nil
			}
			if f.logFormat != "text" && f.logFormat != "json" {
				return usageErrorf(cmd, "--log-format %s: use text or json", f.logFormat)
			}
			if f.vary != nil && f.dataDir != "" {
				// A variant's names for ids live in memory: after a restart the sandbox would no longer
				// know the ids its clients hold.
				return usageErrorf(cmd, "--vary %d: cannot be combined with --data, since a variant keeps its ids in memory only; drop one of them", *f.vary)
			}
			if err := f.resolveMerchants(); err != nil {
				return usageErrorf(cmd, "%v", err)
			}
			f.drawnTimings(cmd)
			c.code = runSandbox(cmd.Context(), f, c.stdout, c.stderr)
			return nil
		},
	}
	f.declare(cmd)
	return cmd
}

// declare defines the flags of `malipo sandbox`, each writing into f.
func (f *sandboxFlags) declare(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.Var(hostPortValue{&f.addr}, "addr", "address to listen on (port 0 picks a free one)")
	// No flag defaults for the keys: a default would print a secret from the environment in --help.
	fs.StringVar(&f.publicKey, "public-key", "", "the merchant's public `key` (default $MALIPO_PUBLIC_KEY, else "+sandbox.DefaultPublicKey+")")
	fs.StringVar(&f.secretKey, "secret-key", "", "the merchant's secret `key` (default $MALIPO_SECRET_KEY, else "+sandbox.DefaultSecretKey+")")
	// A string array, not a flag.Value that checks itself: pflag would repeat a refused value, secret key
	// and all, in its error; resolveMerchants checks the values without repeating them.
	fs.StringArrayVar(&f.merchantArgs, "merchant", nil, "serve another merchant with the keys `PUBLIC:SECRET` (repeatable; the first is the default one unless --public-key/--secret-key or their variables are given)")
	secretFlag(fs, "public-key", publicKeyEnv)
	secretFlag(fs, "secret-key", secretKeyEnv)
	secretFlag(fs, "merchant", "")
	fs.Var(durationValue{&f.promptDelay}, "prompt-delay", "how long the simulated customer takes to answer a push prompt")
	fs.Var(durationValue{&f.payoutDelay}, "payout-delay", "how long a payout stays processing")
	fs.Var(durationValue{&f.spread}, "settle-spread", "let each payment and payout settle up to this much later than its delay, differently per object, as a real network does")
	fs.Var(latencyValue{&f.latency}, "latency", "add a network round trip of `MIN-MAX` (e.g. 100ms-300ms, or one duration) to every answer and every webhook attempt, drawn anew for each")
	fs.Var(retryScheduleValue{&f.retrySchedule}, "webhook-retry-schedule", "comma-separated `waits` between webhook attempts, e.g. 1s,5s,30s (\"none\": one attempt only)")
	fs.Var(durationValue{&f.webhookTimeout}, "webhook-timeout", "how long one webhook attempt may take before it is retried")
	fs.IntVar(&f.concurrency, "delivery-concurrency", f.concurrency, "how many webhook attempts may be in flight at once")
	fs.IntVar(&f.rateLimit, "rate-limit", f.rateLimit, "how many `requests` each merchant's keys may make per minute before a 429 (sent in the RateLimit-* response headers; 0: no limit and no headers)")
	fs.StringVar(&f.logFormat, "log-format", f.logFormat, "log line `format` on stderr: text or json")
	fs.Var(durationValue{&f.shutdownTimeout}, "shutdown-timeout", "on SIGINT/SIGTERM, how long to wait for requests and queued webhooks")
	fs.BoolVar(&f.dashboard, "dashboard", f.dashboard, "serve the web dashboard at "+dashboard.Prefix+" (payments, payouts, events, delivery attempts, live; --dashboard=false turns it off)")
	fs.StringVar(&f.dataDir, "data", "", "keep objects, idempotency keys, events and undelivered webhooks in `DIR` (created if need be), so that they survive a restart (default: in memory)")
	fs.Var(faultValue{f}, "fault", "FOR SELF-TESTS OF THE CONTRACT SUITE ONLY: break the contract rule `name`d (repeatable; \"list\" shows them)")
	fs.Var(seedValue{&f.vary}, "vary", "serve a variant drawn from `SEED` that differs from the sandbox wherever the document allows (for self-tests of conform, and for trying a client against another implementation)")
	oneOf(cmd, "log-format", "text", "json")
	oneOf(cmd, "fault", faultCompletions()...)
	_ = cmd.RegisterFlagCompletionFunc("vary", completeSeeds)
}

// variant returns the variant --vary asks for, with the delays and retry schedule the flags say:
// drawnTimings has put the drawn ones there unless the flags were given.
func (f *sandboxFlags) variant() (variance.Variant, bool) {
	if f.vary == nil {
		return variance.Variant{}, false
	}
	v := variance.Draw(*f.vary)
	v.Timings = sandbox.Timings{PromptDelay: f.promptDelay, PayoutDelay: f.payoutDelay, Spread: f.spread}
	v.RetrySchedule = f.retrySchedule
	v.Latency = f.latency
	return v, true
}

// drawnTimings takes the delays and the retry schedule of the --vary variant for the flags not given,
// so that the banner shows what the sandbox does.
func (f *sandboxFlags) drawnTimings(cmd *cobra.Command) {
	if f.vary == nil {
		return
	}
	v := variance.Draw(*f.vary)
	if !cmd.Flags().Changed("prompt-delay") {
		f.promptDelay = v.Timings.PromptDelay
	}
	if !cmd.Flags().Changed("payout-delay") {
		f.payoutDelay = v.Timings.PayoutDelay
	}
	if !cmd.Flags().Changed("settle-spread") {
		f.spread = v.Timings.Spread
	}
	if !cmd.Flags().Changed("latency") {
		f.latency = v.Latency
	}
	if !cmd.Flags().Changed("webhook-retry-schedule") {
		f.retrySchedule = v.RetrySchedule
	}
}

// seedValue is --vary: a whole number.
type seedValue struct{ seed **int64 }

func (v seedValue) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("the seed is a whole number, e.g. --vary 7")
	}
	*v.seed = &n
	return nil
}

func (v seedValue) String() string {
	if v.seed == nil || *v.seed == nil {
		return ""
	}
	return strconv.FormatInt(**v.seed, 10)
}

func (seedValue) Type() string { return "seed" }

// JSONSchema says that a seed in the settings file is a whole number (cliconfig.Schemer).
func (seedValue) JSONSchema() map[string]any { return map[string]any{"type": "integer"} }

// completeSeeds offers a few seeds, each with what sets its variant apart.
func completeSeeds(_ *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for seed := int64(1); seed <= 8; seed++ {
		out = append(out, cobra.CompletionWithDesc(strconv.FormatInt(seed, 10), variantSummary(variance.Draw(seed))))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// variantSummary says in a few words what sets a variant apart.
func variantSummary(v variance.Variant) string {
	present := func(b bool) string {
		if b {
			return "present"
		}
		return "absent"
	}
	order := "in order"
	if v.FinalEventFirst {
		order = "final event first"
	}
	return fmt.Sprintf("payout ids %s, events %s, webhook endpoints %s, event log %s", v.IDs.Payout, order, present(v.WebhookEndpoints), present(v.EventLog))
}

// keysFromEnv fills the keys not given as flags from the environment, else the sandbox's well-known
// ones.
func (f *sandboxFlags) keysFromEnv() {
	if f.publicKey == "" {
		f.publicKey = envOr(publicKeyEnv, sandbox.DefaultPublicKey)
	}
	if f.secretKey == "" {
		f.secretKey = envOr(secretKeyEnv, sandbox.DefaultSecretKey)
	}
}

// resolveMerchants sets the merchants the sandbox serves, the default one first: the keys of
// --public-key/--secret-key or their variables when any is given (as without --merchant, so that adding
// a --merchant never drops a merchant the user configured), else the first --merchant, else the
// well-known keys; then every --merchant. Its errors name the flag and never repeat a secret key.
func (f *sandboxFlags) resolveMerchants() error {
	extra, err := parseMerchants(f.merchantArgs)
	if err != nil {
		return err
	}
	configured := f.publicKey != "" || f.secretKey != "" ||
		strings.TrimSpace(os.Getenv(publicKeyEnv)) != "" || strings.TrimSpace(os.Getenv(secretKeyEnv)) != ""
	if len(extra) > 0 && !configured {
		f.publicKey, f.secretKey = extra[0].Public, extra[0].Secret
		f.merchants = extra
		return nil
	}
	f.keysFromEnv()
	first := sandbox.KeyPair{Public: f.publicKey, Secret: f.secretKey}
	for _, m := range extra {
		if m.Public == first.Public {
			return fmt.Errorf("--merchant %s:…: that public key is already the default merchant's (--public-key or $MALIPO_PUBLIC_KEY); every merchant needs its own", m.Public)
		}
	}
	f.merchants = append([]sandbox.KeyPair{first}, extra...)
	return nil
}

// parseMerchants reads the --merchant values: PUBLIC:SECRET each, keys the sandbox accepts, no public
// key twice. A value without a colon may be a secret key alone, so no error repeats one.
func parseMerchants(args []string) ([]sandbox.KeyPair, error) {
	var out []sandbox.KeyPair
	seen := map[string]bool{}
	for i, arg := range args {
		public, secret, ok := strings.Cut(arg, ":")
		if !ok || public == "" || secret == "" {
			return nil, fmt.Errorf("--merchant (the %s): use PUBLIC:SECRET, the public and the secret key joined by a colon, e.g. --merchant pk_test_other:sk_test_other", ordinal(i+1))
		}
		if err := sandbox.CheckKeys(public, secret); err != nil {
			return nil, fmt.Errorf("--merchant %s:…: %w", quotedIfNeeded(public), err)
		}
		if seen[public] {
			return nil, fmt.Errorf("--merchant %s:…: that public key is given twice; every merchant needs its own", public)
		}
		seen[public] = true
		out = append(out, sandbox.KeyPair{Public: public, Secret: secret})
	}
	return out, nil
}

// quotedIfNeeded returns s as typed, or quoted when it holds a space or a control character that would
// hide in an error message.
func quotedIfNeeded(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r >= 0x7f }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// ordinal writes n as "1st", "2nd", "3rd", "4th", … for naming one of several repeated flags.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

// retryScheduleValue is --webhook-retry-schedule: durations separated by commas, or "none".
type retryScheduleValue struct{ d *[]time.Duration }

func (v retryScheduleValue) Set(s string) error {
	d, err := parseDurations(s)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

func (v retryScheduleValue) String() string {
	if v.d == nil {
		return ""
	}
	return formatDurations(*v.d)
}

func (retryScheduleValue) Type() string { return "waits" }

// faultValue is --fault: repeatable, each a known fault's name, or "list" to print them instead of
// serving.
type faultValue struct{ f *sandboxFlags }

func (v faultValue) Set(s string) error {
	if s == "list" {
		v.f.listFaults = true
		return nil
	}
	fault := faults.Fault(s)
	if !fault.Known() {
		return fmt.Errorf("unknown fault %q (use --fault list)", s)
	}
	v.f.faults = append(v.f.faults, fault)
	return nil
}

func (v faultValue) String() string {
	if v.f == nil {
		return ""
	}
	names := make([]string, len(v.f.faults))
	for i, fault := range v.f.faults {
		names[i] = string(fault)
	}
	return strings.Join(names, ",")
}

func (faultValue) Type() string { return "name" }

// Append, Replace and GetSlice make --fault a repeated flag (pflag.SliceValue), which the settings
// file gives as a list.
func (v faultValue) Append(s string) error { return v.Set(s) }

func (v faultValue) Replace(names []string) error {
	v.f.faults, v.f.listFaults = nil, false
	for _, s := range names {
		if err := v.Set(s); err != nil {
			return err
		}
	}
	return nil
}

func (v faultValue) GetSlice() []string {
	names := make([]string, 0, len(v.f.faults)+1)
	if v.f.listFaults {
		names = append(names, "list")
	}
	for _, fault := range v.f.faults {
		names = append(names, string(fault))
	}
	return names
}

// faultCompletions are the values --fault takes: the faults' names, each with what it breaks, and list.
func faultCompletions() []cobra.Completion {
	out := []cobra.Completion{cobra.CompletionWithDesc("list", "print the faults and exit")}
	for _, fi := range faults.All() {
		out = append(out, cobra.CompletionWithDesc(string(fi.Fault), fi.Description))
	}
	return out
}

// printFaults lists the faults --fault takes, with what each breaks.
func printFaults(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, fi := range faults.All() {
		fmt.Fprintf(tw, "  %s\t%s\n", fi.Fault, fi.Description)
	}
	_ = tw.Flush()
}

// runSandbox serves the sandbox until ctx ends, then stops accepting requests and drains queued
// webhooks for up to --shutdown-timeout.
func runSandbox(ctx context.Context, f *sandboxFlags, stdout, stderr io.Writer) int {
	var logHandler slog.Handler = slog.NewTextHandler(stderr, nil)
	if f.logFormat == "json" {
		logHandler = slog.NewJSONHandler(stderr, nil)
	}
	logger := slog.New(logHandler)

	spec, err := openapi.Default()
	if err != nil {
		fmt.Fprintf(stderr, "malipo sandbox: load the embedded contract: %v\n", err)
		return exitFail
	}
	srv, err := newSandbox(spec, f, logger)
	if err != nil {
		fmt.Fprintf(stderr, "malipo sandbox: %v\n", err)
		if errors.As(err, new(*sandbox.DataDirError)) {
			return exitFail // the directory's state, not the flags
		}
		return exitUsage
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		fmt.Fprintf(stderr, "malipo sandbox: listen on %s: %v (is another sandbox running? pick another port with --addr)\n", f.addr, err)
		_ = srv.Close()
		return exitFail
	}
	var handler http.Handler = srv
	var dash *dashboard.Handler
	if f.dashboard {
		dash = dashboard.New(srv)
		handler = dashboard.Mount(srv, dash)
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logHandler, slog.LevelWarn),
	}
	if dash != nil {
		hs.RegisterOnShutdown(dash.Close) // the live streams never end on their own
	}
	if err := printBanner(stdout, spec, f, "http://"+ln.Addr().String()); err != nil {
		logger.Warn("cannot print the start-up banner", "error", err)
	}
	return serveSandbox(ctx, hs, ln, srv, f.shutdownTimeout, logger, stderr)
}

// newSandbox builds the sandbox the flags describe, faults included. Its errors are the flags' (a value
// the sandbox refuses), hence a usage error for the caller.
func newSandbox(spec *openapi.Spec, f *sandboxFlags, logger *slog.Logger) (*sandbox.Server, error) {
	opts := []sandbox.Option{
		sandbox.WithSpec(spec),
		sandbox.WithTimings(sandbox.Timings{PromptDelay: f.promptDelay, PayoutDelay: f.payoutDelay, Spread: f.spread}),
		sandbox.WithRetrySchedule(f.retrySchedule),
		sandbox.WithWebhookTimeout(f.webhookTimeout),
		sandbox.WithDeliveryConcurrency(f.concurrency),
		sandbox.WithRateLimit(f.rateLimit),
		sandbox.WithLogger(logger),
	}
	for _, m := range f.merchants {
		opts = append(opts, sandbox.WithMerchant(m.Public, m.Secret))
	}
	if f.dataDir != "" {
		opts = append(opts, sandbox.WithDataDir(f.dataDir))
	}
	v, varied := f.variant()
	if varied {
		opts = append(opts, v.Options()...) // the variant's latency among them, last
	}
	faulty, err := faults.Options(f.faults...)
	if err != nil {
		return nil, err
	}
	opts = append(opts, faulty...)
	if !varied {
		// Last, so that its middleware is the outermost: the network is outside the service.
		opts = append(opts, f.latency.Options(time.Now().UnixNano())...)
	}
	return sandbox.New(opts...)
}

// serveSandbox serves on ln until ctx ends (exit code 0, after draining) or serving fails (exit code
// 1).
func serveSandbox(ctx context.Context, hs *http.Server, ln net.Listener, srv *sandbox.Server, timeout time.Duration,
	logger *slog.Logger, stderr io.Writer) int {
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	select {
	case err := <-served:
		fmt.Fprintf(stderr, "malipo sandbox: serve: %v\n", err)
		_ = srv.Close()
		return exitFail
	case <-ctx.Done():
	}
	drainSandbox(hs, srv, timeout, logger)
	return exitOK
}

// drainSandbox stops accepting requests and waits up to timeout for running requests and queued
// webhooks. Running out of time is not a failure of the command: the developer asked it to stop.
func drainSandbox(hs *http.Server, srv *sandbox.Server, timeout time.Duration, logger *slog.Logger) {
	logger.Info("shutting down: draining requests and queued webhooks (signal again to stop at once)",
		"timeout", timeout, "pending_webhooks", srv.PendingDeliveries())
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		logger.Warn("requests still running at the shutdown deadline were cut off", "error", err)
	}
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("webhook deliveries still queued at the shutdown deadline were abandoned", "error", err)
	}
	logger.Info("stopped")
}

// printBanner tells the developer where to send requests, with which keys, and which inputs produce
// which outcome. A secret key the developer chose is shown masked; the well-known one in full.
func printBanner(w io.Writer, spec *openapi.Spec, f *sandboxFlags, url string) error {
	tv, err := spec.TestValues()
	if err != nil {
		return err
	}
	secret := f.secretKey
	if secret != sandbox.DefaultSecretKey {
		secret = mask(secret) + "  (as configured)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Malipo sandbox — %s %s\n\n", spec.Title(), spec.Version())
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  listening on\t%s\n", url)
	if f.dashboard {
		fmt.Fprintf(tw, "  dashboard\t%s%s  (open it in a browser; --dashboard=false turns it off)\n", url, dashboard.Prefix)
		if len(f.others()) > 0 {
			fmt.Fprintf(tw, "  \t?public_key=KEY shows another merchant's\n")
		}
	}
	fmt.Fprintf(tw, "  public-key\t%s\n", f.publicKey)
	fmt.Fprintf(tw, "  secret-key\t%s\n", secret)
	if f.secretKey == sandbox.DefaultSecretKey {
		fmt.Fprintf(tw, "  webhook_url signing secret\t%s  (\"whsec_\" + base64(secret-key): verify with any Standard Webhooks library)\n",
			webhook.MerchantSigningSecret(f.secretKey))
	} else {
		fmt.Fprintf(tw, "  webhook_url signing secret\t\"whsec_\" + base64(secret-key): verify with any Standard Webhooks library\n")
	}
	for _, m := range f.others() {
		fmt.Fprintf(tw, "  another merchant\tpublic-key %s, its secret key as configured\n", m.Public)
	}
	settles := func(d time.Duration) string {
		if f.spread <= 0 {
			return d.String()
		}
		return fmt.Sprintf("%s to %s (each object its own)", d, d+f.spread)
	}
	fmt.Fprintf(tw, "  push prompt answered after\t%s\n", settles(f.promptDelay))
	fmt.Fprintf(tw, "  payouts settle after\t%s\n", settles(f.payoutDelay))
	if f.latency.Max > 0 {
		fmt.Fprintf(tw, "  network latency\t%s\n", f.latency)
	}
	fmt.Fprintf(tw, "  webhook retries after\t%s (time-out %s)\n", formatDurations(f.retrySchedule), f.webhookTimeout)
	if f.dataDir != "" {
		fmt.Fprintf(tw, "  state kept in\t%s (survives a restart)\n", f.dataDir)
	} else {
		fmt.Fprintf(tw, "  state kept in\tmemory (lost when it stops; --data DIR keeps it)\n")
	}
	for _, fault := range f.faults {
		fmt.Fprintf(tw, "  FAULT INJECTED\t%s: %s (this sandbox breaks the contract on purpose)\n", fault, fault.Description())
	}
	_ = tw.Flush()
	if v, ok := f.variant(); ok {
		fmt.Fprintf(&b, "\nVARIANT of seed %d: differs from the sandbox wherever the document allows (the dashboard shows the sandbox's own ids)\n", v.Seed)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, line := range v.Lines() {
			name, value, _ := strings.Cut(line, ": ")
			fmt.Fprintf(tw, "  %s\t%s\n", name, value)
		}
		_ = tw.Flush()
	}

	b.WriteString("\nTest values (any other value succeeds)\n")
	section := func(title string, rows [][4]string) {
		fmt.Fprintf(&b, "  %s\n", title)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, r := range rows {
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", r[0], r[1], r[2], r[3])
		}
		_ = tw.Flush()
	}
	var rows [][4]string
	for _, v := range tv.Payments {
		rows = append(rows, [4]string{v.PhoneNumber, v.Status, v.FailureReason, v.Description})
	}
	section("payments, by phone_number:", rows)
	rows = nil
	for _, v := range tv.Payouts.MobileNumber {
		rows = append(rows, [4]string{v.MomoPhoneNumber, v.Status, v.FailureReason, v.Description})
	}
	section("mobile payouts, by momo_phone_number (omit it to pay your own wallet: success):", rows)
	rows = nil
	for _, v := range tv.Payouts.Bank {
		rows = append(rows, [4]string{v.AccountNumber, v.Status, v.FailureReason, v.Description})
	}
	section("bank payouts, by account_number:", rows)
	b.WriteString("\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// others returns the merchants after the default one, which the banner lists by public key only.
func (f *sandboxFlags) others() []sandbox.KeyPair {
	if len(f.merchants) < 2 {
		return nil
	}
	return f.merchants[1:]
}

func mask(s string) string {
	if len(s) <= 8 {
		return "****"
	}
	return s[:8] + "****"
}

func envOr(name, fallback string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return fallback
}

func parseDurations(s string) ([]time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return []time.Duration{}, nil
	}
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		d, err := time.ParseDuration(part)
		if err != nil {
			if _, numErr := strconv.ParseFloat(part, 64); numErr == nil {
				return nil, fmt.Errorf("%q needs a unit, e.g. %ss or 500ms", part, part)
			}
			return nil, fmt.Errorf("%q is not a duration like 500ms, 5s or 2m", part)
		}
		if d < 0 {
			return nil, fmt.Errorf("%q is negative", part)
		}
		out = append(out, d)
	}
	return out, nil
}

func formatDurations(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}
