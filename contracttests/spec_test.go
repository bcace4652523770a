package contracttests_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Running the suite from another version of the document (Config.Spec, `malipo conform --spec FILE`).

func pathPointer(op api.Operation) string { return "/paths/" + docedit.Escape(op.Path) }

func opPointer(op api.Operation) string {
	return pathPointer(op) + "/" + strings.ToLower(op.Method)
}

// runWith runs the checks derived from spec (nil: the embedded document, the default) against the
// embedded sandbox, started with options, and returns the results by check id.
func runWith(t *testing.T, spec *openapi.Spec, run string, opts ...sandbox.Option) map[string]report.Result {
	t.Helper()
	return runConfigured(t, spec, run, func(*contracttests.Config) {}, opts...)
}

// runConfigured is runWith with a last say on the run's Config (its --wait, say).
func runConfigured(t *testing.T, spec *openapi.Spec, run string, configure func(*contracttests.Config), opts ...sandbox.Option) map[string]report.Result {
	t.Helper()
	cfg, stop, err := contracttests.StartEmbeddedWith(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, stop()) })
	checks, err := contracttests.All()
	if spec != nil {
		checks, err = contracttests.AllFor(spec)
	}
	require.NoError(t, err)
	cfg.Spec = spec
	if run != "" {
		cfg.Run = regexp.MustCompile(run)
	}
	configure(&cfg)
	sum, err := contracttests.Run(context.Background(), cfg, checks)
	require.NoError(t, err)
	results := map[string]report.Result{}
	for _, r := range sum.Results {
		results[r.ID] = r
	}
	return results
}

// outcomes returns each result's outcome, with the failures, for a readable comparison.
func outcomes(results map[string]report.Result) map[string]string {
	out := map[string]string{}
	for id, r := range results {
		s := string(r.Outcome)
		for _, f := range r.Failures {
			s += " | " + f.String()
		}
		out[id] = s
	}
	return out
}

// A subset that sends through every kind of request the seam rewrites: query strings, path
// parameters, derived requests (already in the document's terms), a method the path does not take, a
// path no document has, PATCH and DELETE on an object, webhooks and their retries.
const seamSubset = `^(reference\.|negative\.(unknown-|getPayout\.|completePayment\.|updateWebhookEndpoint\.|processPayout\.bank\.amount\.)|` +
	`auth\.(getPayout|rotateWebhookEndpointSecret)\.|idempotency\.processPayout\.replay$|extensions\.webhook-endpoints\.crud$|` +
	`state\.payout\.mobile\.success\.|state\.payment\.success\.|webhooks\.retry-after-500$)`

// The embedded document given as --spec (a copy loaded from its bytes, so the seam rewrites every
// request) derives the same checks and gives the same results as the default run.
func TestTheEmbeddedDocumentAsSpecGivesTheSameResults(t *testing.T) {
	spec, err := openapi.Load(openapi.YAML())
	require.NoError(t, err)
	def, err := contracttests.All()
	require.NoError(t, err)
	copied, err := contracttests.AllFor(spec)
	require.NoError(t, err)
	require.Len(t, copied, len(def))
	for i := range def {
		assert.Equal(t, def[i].ID, copied[i].ID)
		assert.Equal(t, def[i].Doc, copied[i].Doc)
		assert.Equal(t, def[i].Extension, copied[i].Extension, def[i].ID)
	}

	byDefault := outcomes(runWith(t, nil, seamSubset))
	bySpec := outcomes(runWith(t, spec, seamSubset))
	assert.Equal(t, byDefault, bySpec)
	assert.Len(t, bySpec, len(contracttests.Select(def, regexp.MustCompile(seamSubset), nil)), "every check the subset selects runs")
	for id, o := range bySpec {
		assert.Equal(t, string(report.Passed), o, id)
	}
}

// A document that moved an operation's path: the hand-written checks, which name operations through
// package api (compiled from the embedded document), follow the run's document to the new path. The
// sandbox serves the same moved document, so every check must pass; sent to the embedded paths, they
// would get 404.
func TestHandWrittenChecksFollowAMovedPath(t *testing.T) {
	const moved = "/v2/payouts"
	spec := openapitest.Variant(t, func(d *docedit.Doc) error {
		return d.Rename(pathPointer(api.OpProcessPayout()), moved)
	})
	op, ok := spec.Operation(api.OpProcessPayout().ID)
	require.True(t, ok)
	require.Equal(t, moved, op.Path)

	results := runWith(t, spec, `^(idempotency\.processPayout\.(replay|conflict)|state\.payout\.mobile\.success\..*|negative\.processPayout\.(unknown-bank|malformed-json)|auth\.processPayout\.no-keys)$`,
		sandbox.WithSpec(spec))
	require.Len(t, results, 6)
	for id, r := range results {
		assert.Equal(t, report.Passed, r.Outcome, "%s: %v", id, r.Failures)
	}
}

// The extension probe follows the run's document too: a document that moves the webhook-endpoint
// paths probes the moved path, so a target serving the old paths has the extension's checks skipped,
// naming the probe it answered 404 to, and a target serving the moved document has them run and pass.
func TestTheExtensionProbeFollowsAMovedPath(t *testing.T) {
	const moved = "/v2/webhook-endpoints"
	spec := openapitest.Variant(t, func(d *docedit.Doc) error {
		return d.Rename(pathPointer(api.OpListWebhookEndpoints()), moved)
	})
	const crud = `^extensions\.webhook-endpoints\.crud$`
	old := runWith(t, spec, crud)["extensions.webhook-endpoints.crud"]
	assert.Equal(t, report.Skipped, old.Outcome)
	assert.Equal(t, "the target does not implement the webhook-endpoint extension (GET "+moved+" answered 404)", old.SkipReason)

	same := runWith(t, spec, crud, sandbox.WithSpec(spec))["extensions.webhook-endpoints.crud"]
	assert.Equal(t, report.Passed, same.Outcome, "%v", same.Failures)

	// A document without the extension skips its checks for that reason, not for a 404.
	none := openapitest.Variant(t, func(d *docedit.Doc) error { return d.Remove(pathPointer(api.OpListWebhookEndpoints())) })
	gone := runWith(t, none, crud)["extensions.webhook-endpoints.crud"]
	assert.Equal(t, report.Skipped, gone.Outcome)
	assert.Regexp(t, `^the document has no operation \w+WebhookEndpoints?, which this check needs$`, gone.SkipReason)
}

// A document that lacks an operation, a kind of test value, a request example and a webhook type:
// the whole suite runs against the embedded sandbox, and the checks that need what is missing are
// skipped saying what, with no failure (and so no panic, which would be one).
func TestChecksSkipWhatTheDocumentLacks(t *testing.T) {
	initBody := opPointer(api.OpInitializePayment()) + "/requestBody/content/application~1json/examples"
	spec := openapitest.Variant(t, func(d *docedit.Doc) error {
		for _, p := range []string{
			pathPointer(api.OpGetPayout()),                    // an operation
			"/x-malipo-test-values/payouts/bank",              // every bank test value
			initBody,                                          // the request examples of initializePayment:
			"/components/schemas/PaymentInitRequest/examples", // the operation's and its schema's
			"/webhooks/" + docedit.Escape(string(api.EventTypePayoutFailed)), // a webhook type
		} {
			if err := d.Remove(p); err != nil {
				return err
			}
		}
		return nil
	})
	results := runWith(t, spec, "")
	var failed []string
	for id, r := range results {
		if r.Outcome == report.Failed {
			failed = append(failed, id+": "+r.Failures[0].String())
		}
	}
	assert.Empty(t, failed, "a document that lacks something fails no check")

	tv, err := spec.TestValues()
	require.NoError(t, err)
	wallet := tv.Payouts.MobileNumber[0].MomoPhoneNumber
	failingWallet := tv.Payouts.MobileNumber[1].MomoPhoneNumber
	skipped := map[string]string{
		"negative.getPayout.not-found":                           "the document has no operation getPayout",
		"state.payout.mobile.success." + wallet:                  "the document has no operation getPayout",
		"negative.processPayout.unknown-bank":                    "no x-malipo-test-values entry for a bank payout that succeeds",
		"positive.payment.generated-reference":                   "the document gives no request example for initializePayment",
		"negative.initializePayment.amount.missing":              "the document gives no request example for initializePayment",
		"auth.initializePayment.no-keys":                         "the document gives no request example for initializePayment",
		"extensions.webhook-endpoints.rotate-without-grace":      "the document declares no webhook payout.failed",
		"state.payout.mobile.account_not_found." + failingWallet: "the document has no operation getPayout",
	}
	// The generated checks draw their bodies from the schema, not the examples: without the
	// initializePayment examples they still make payments, whose events the all-types check sees.
	for _, id := range []string{"generated.initializePayment.valid", "webhooks.all-types-observed"} {
		assert.Equal(t, report.Passed, results[id].Outcome, "%s runs without the request examples", id)
	}
	for id, reason := range skipped {
		r, ok := results[id]
		if assert.True(t, ok, "%s was not run", id) {
			assert.Equal(t, report.Skipped, r.Outcome, id)
			assert.Contains(t, r.SkipReason, reason, id)
		}
	}
	for id := range results {
		assert.False(t, strings.HasPrefix(id, "state.payout.bank."), "%s: no check is derived from a test value the document lacks", id)
		assert.False(t, strings.HasPrefix(id, "auth.getPayout."), "%s: no check is derived from an operation the document lacks", id)
	}
	// What the document still has is checked as before.
	assert.Equal(t, report.Passed, results["reference.countries"].Outcome)
	assert.Equal(t, report.Passed, results["idempotency.processPayout.replay"].Outcome)
	assert.Equal(t, report.Passed, results["negative.initializePayment.malformed-json"].Outcome)
}

// A document with a new required request field the sandbox does not know: the derived checks follow
// the document (a check that the field is required appears, and the sandbox fails it by accepting a
// payout without it), and the bodies built from its example carry the field (which the sandbox, whose
// schema is strict, refuses). A sandbox that serves the same document passes both.
func TestDerivedChecksFollowANewRequiredField(t *testing.T) {
	bank := "/components/schemas/BankPayoutRequest"
	spec := openapitest.Variant(t, func(d *docedit.Doc) error {
		for _, e := range []struct{ pointer, value string }{
			{bank + "/properties/purpose", "{type: string, minLength: 1, description: Why the money is sent.}"},
			{bank + "/examples/0/purpose", "supplier invoice"},
			{opPointer(api.OpProcessPayout()) + "/requestBody/content/application~1json/examples/bank/value/purpose", "supplier invoice"},
		} {
			if err := d.Set(e.pointer, e.value); err != nil {
				return err
			}
		}
		return d.Append(bank+"/required", "purpose")
	})
	tv, err := spec.TestValues()
	require.NoError(t, err)
	const required = "negative.processPayout.bank.purpose.missing"
	lifecycle := "state.payout.bank.success." + tv.Payouts.Bank[0].AccountNumber
	run := "^(" + regexp.QuoteMeta(required) + "|" + regexp.QuoteMeta(lifecycle) + ")$"

	def, err := contracttests.All()
	require.NoError(t, err)
	for _, c := range def {
		require.NotEqual(t, required, c.ID, "the embedded document has no purpose field")
	}

	results := runWith(t, spec, run)
	require.Len(t, results, 2)
	r := results[required]
	require.Equal(t, report.Failed, r.Outcome, "the sandbox accepts a bank payout without purpose")
	assert.Contains(t, r.Failures[0].Message, "want HTTP 400, got 201")
	r = results[lifecycle]
	require.Equal(t, report.Failed, r.Outcome, "the sandbox refuses the purpose the example sends")
	assert.Contains(t, r.Failures[0].Message, "want HTTP 201, got 400")
	assert.Contains(t, r.Failures[0].Message, "purpose")

	for id, r := range runWith(t, spec, run, sandbox.WithSpec(spec)) {
		assert.Equal(t, report.Passed, r.Outcome, "%s against a sandbox of the same document: %v", id, r.Failures)
	}
}

// LoadSpec and ChecksFor name the file and say what to pass instead when it cannot be read or loaded;
// the document they load knows its file.
func TestLoadSpec(t *testing.T) {
	dir := t.TempDir()
	_, err := contracttests.LoadSpec(filepath.Join(dir, "missing.yaml"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--spec openapi/malipo.yaml")

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("openapi: 3.1.0\npaths:\n  /x:\n    get:\n      responses: {}\n"), 0o600))
	_, err = contracttests.LoadSpec(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+" is not a usable OpenAPI 3.1 document")

	// ChecksFor, what the CLI calls: the file's document and its checks, or the default ones.
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, openapi.YAML(), 0o600))
	checks, spec, err := contracttests.ChecksFor(good)
	require.NoError(t, err)
	require.NotNil(t, spec)
	assert.Len(t, spec.Operations(), len(api.Operations()))
	assert.Equal(t, good, spec.Path(), "the reports cite the rules' lines in the file as it was given")
	def, err := contracttests.All()
	require.NoError(t, err)
	assert.Len(t, checks, len(def))
	checks, spec, err = contracttests.ChecksFor("")
	require.NoError(t, err)
	assert.Nil(t, spec)
	assert.Len(t, checks, len(def))
	_, _, err = contracttests.ChecksFor(bad)
	assert.ErrorContains(t, err, bad)

	broken := filepath.Join(dir, "broken-test-values.yaml")
	data := openapitest.VariantBytes(t, func(d *docedit.Doc) error { return d.Set("/x-malipo-test-values/payments", "7") })
	require.NoError(t, os.WriteFile(broken, data, 0o600))
	_, _, err = contracttests.ChecksFor(broken)
	assert.ErrorContains(t, err, "x-malipo-test-values")
}
