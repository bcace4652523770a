package receivertests_test

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/receiverfaults"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/receivertests"
	"github.com/malipo/terraform-provider-malipo/report"
	"github.com/malipo/terraform-provider-malipo/runner"
)

func testSecret(t testing.TB) webhook.Secret {
	t.Helper()
	s, err := webhook.NewSecret()
	require.NoError(t, err)
	return s
}

// grade runs the grader against h and returns the ids of the checks that failed, sorted.
func grade(t *testing.T, h http.Handler, secret webhook.Secret, timeout time.Duration) (*report.Summary, []string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	sum, err := receivertests.Run(context.Background(), receivertests.Config{URL: srv.URL + "/webhooks/malipo", Secret: secret,
		Timeout: timeout, Burst: 10})
	require.NoError(t, err)
	var failed []string
	for _, r := range sum.Results {
		require.NotEqual(t, report.Skipped, r.Outcome)
		if r.Outcome == report.Failed {
			failed = append(failed, r.ID)
		}
	}
	sort.Strings(failed)
	return sum, failed
}

// eventTypes is every event type the document declares.
func eventTypes(t testing.TB) []string {
	spec, err := openapi.Default()
	require.NoError(t, err)
	types := spec.EventTypes()
	require.GreaterOrEqual(t, len(types), 5, "the document declares the payment.* and payout.* events")
	return types
}

// acceptsEveryType is the ids of the checks that send each declared event type, correctly signed.
func acceptsEveryType(t *testing.T) []string {
	var ids []string
	for _, et := range eventTypes(t) {
		ids = append(ids, "receiver.accepts."+et)
	}
	return ids
}

// perType is the ids of the checks named prefix/<type>, for every declared event type: the attacks
// (receiver.rejects.forged-signature/payout.success) and the generated payloads.
func perType(t *testing.T, prefixes ...string) []string {
	var ids []string
	for _, p := range prefixes {
		for _, et := range eventTypes(t) {
			ids = append(ids, p+"/"+et)
		}
	}
	return ids
}

// attacks are the receiver.rejects checks, each sent for every event type.
var attacks = []string{"no-signature", "empty-signature", "forged-signature", "several-forged-signatures", "body-changed", "other-secret",
	"timestamp-past", "timestamp-future", "malformed-signature", "unknown-version"}

// rawBodies are the spellings of receiver.accepts.raw-body/*.
var rawBodies = []string{"whitespace", "key-order", "unicode-escapes", "number-trailing-zero", "number-exponent", "non-ascii",
	"html-and-line-separators", "large-integer"}

// checkCount is how many checks a run against every event type makes: one accepts per type, dual
// signature, redelivery, the raw bodies, one generated per type, every attack for every type, and the
// three robustness checks.
func checkCount(t *testing.T) int {
	types := len(eventTypes(t))
	return types + 2 + len(rawBodies) + types + len(attacks)*types + 3
}

func prefixed(prefix string, names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// The correct receiver (webhook.Receiver around a lenient handler) passes every check, with a secret
// of either form the document describes.
func TestCorrectReceiverPasses(t *testing.T) {
	for name, secret := range map[string]webhook.Secret{
		"endpoint whsec_ secret": testSecret(t),
		"merchant secret key":    mustParse(t, "sk_test_receiver_grader"),
	} {
		for kind, receiver := range map[string]func(webhook.Secret) http.Handler{
			"lenient": receiverfaults.Correct, "typed": receiverfaults.CorrectTyped,
		} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				sum, failed := grade(t, receiver(secret), secret, 5*time.Second)
				assert.Empty(t, failed, "%+v", sum.Results)
				assert.Len(t, sum.Results, checkCount(t))
				assert.Equal(t, runner.ExitConformant, runner.ExitCode(sum, nil))
			})
		}
	}
}

func mustParse(t *testing.T, s string) webhook.Secret {
	t.Helper()
	sec, err := webhook.ParseSecret(s)
	require.NoError(t, err)
	return sec
}

// Each receiver that breaks one rule fails exactly the checks that guard that rule.
func TestEachFlawedReceiverFailsItsChecks(t *testing.T) {
	slowFails := slices.Concat(acceptsEveryType(t), []string{"receiver.accepts.dual-signature", "receiver.accepts.redelivery",
		"receiver.robustness.burst", "receiver.robustness.unknown-event-type", "receiver.robustness.unknown-field"},
		prefixed("receiver.accepts.raw-body/", rawBodies...), perType(t, "receiver.accepts.generated"))
	want := map[string][]string{
		"accepts-any-signature": perType(t, prefixed("receiver.rejects.", "body-changed", "empty-signature", "forged-signature", "malformed-signature",
			"other-secret", "several-forged-signatures", "unknown-version")...),
		"accepts-no-signature": perType(t, "receiver.rejects.no-signature", "receiver.rejects.empty-signature"),
		// A bare HMAC without "v1," lists no signature either, so it passes too.
		"accepts-empty-signature-list": perType(t, "receiver.rejects.empty-signature", "receiver.rejects.malformed-signature"),
		// Every other list of several signatures the grader sends holds a valid one.
		"trusts-several-signatures": perType(t, "receiver.rejects.several-forged-signatures"),
		"tries-last-signature-only": {"receiver.accepts.dual-signature"},
		"unknown-type-4xx":          {"receiver.robustness.unknown-event-type"},
		"ignores-timestamp":         perType(t, "receiver.rejects.timestamp-future", "receiver.rejects.timestamp-past"),
		"tolerance-doubled":         perType(t, "receiver.rejects.timestamp-future", "receiver.rejects.timestamp-past"),
		"rejects-dual-signature":    {"receiver.accepts.dual-signature"},
		"duplicate-500":             {"receiver.accepts.redelivery"},
		"slow":                      slowFails,
		"unknown-type-500":          {"receiver.robustness.unknown-event-type"},
		// A strict decoder fails on every undeclared field: the one the check adds, those each
		// generated check adds, and the large integer's.
		"unknown-field-500": slices.Concat([]string{"receiver.robustness.unknown-field", "receiver.accepts.raw-body/large-integer",
			"receiver.accepts.raw-body/number-trailing-zero", "receiver.accepts.raw-body/number-exponent"},
			perType(t, "receiver.accepts.generated")),
		// Go's re-encoding keeps only raw non-ASCII text; JavaScript's also keeps the key order and
		// the characters Go escapes (<, >, &, U+2028).
		"verifies-go-reencoded-body": prefixed("receiver.accepts.raw-body/", "whitespace", "key-order", "unicode-escapes",
			"number-trailing-zero", "number-exponent", "html-and-line-separators", "large-integer"),
		"verifies-js-stringified-body": prefixed("receiver.accepts.raw-body/", "whitespace", "unicode-escapes",
			"number-trailing-zero", "number-exponent", "large-integer"),
	}
	// Broken only by values no example carries: the generated payloads and the raw-body spellings
	// catch them, and no check that sends the document's examples does.
	want["failure-reason-switch-500"] = []string{"receiver.accepts.generated/payment.failed", "receiver.accepts.generated/payout.failed"}
	want["amount-int32-500"] = append(perType(t, "receiver.accepts.generated"), "receiver.accepts.raw-body/large-integer")
	want["narration-varchar-100-500"] = perType(t, "receiver.accepts.generated")
	want["non-bmp-500"] = append(perType(t, "receiver.accepts.generated"), "receiver.accepts.raw-body/non-ascii", "receiver.accepts.raw-body/unicode-escapes")
	// A receiver that trusts one event type unverified fails every attack for that type and nothing
	// else: the attacks must be sent for every type, not for one.
	for _, et := range eventTypes(t) {
		var ids []string
		for _, a := range attacks {
			ids = append(ids, "receiver.rejects."+a+"/"+et)
		}
		want["skips-verification/"+et] = ids
	}
	faults := receiverfaults.All()
	require.Len(t, faults, len(want), "every fault has its expected checks here")
	for _, f := range faults {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			expected, ok := want[f.Name]
			require.True(t, ok, "no expected checks for fault %s", f.Name)
			expected = append([]string(nil), expected...)
			sort.Strings(expected)
			secret := testSecret(t)
			timeout := 5 * time.Second
			if f.Name == "slow" {
				timeout = time.Second // the slow receiver never answers in time; no need to wait long
			}
			sum, failed := grade(t, f.New(secret), secret, timeout)
			assert.Equal(t, expected, failed, "%s (%s)", f.Name, f.Rule)
			assert.Equal(t, runner.ExitNonConformant, runner.ExitCode(sum, nil))
			for _, r := range sum.Results {
				if r.Outcome != report.Failed {
					assert.Empty(t, r.Evidence, "%s passed: no evidence kept", r.ID)
					continue
				}
				require.NotEmpty(t, r.Failures, r.ID)
				require.NotEmpty(t, r.Evidence, r.ID)
				for _, fl := range r.Failures {
					assert.NotEmpty(t, fl.SpecLocation, "%s: the failure names its rule", r.ID)
					assert.NotEmpty(t, fl.Evidence, "%s: the failure points at its delivery", r.ID)
				}
				for _, ev := range r.Evidence {
					assert.True(t, strings.HasPrefix(ev.Curl, "curl "), "%s: every delivery has a curl line: %q", r.ID, ev.Curl)
					assert.NotContains(t, ev.Curl, secret.Reveal())
				}
			}
		})
	}
}

// What the grader calls a correctly signed delivery verifies with the official Standard Webhooks
// library, and what it calls forged, tampered or stale does not: the grader cannot share a blind spot
// with our own verifier. Every correctly signed body of a declared type, the raw-body spellings and
// the generated ones included, is valid against the document (the repository's validator): a receiver
// may refuse nothing the grader calls correct.
func TestOfficialLibraryAgreesWithTheGrader(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	endpoint := testSecret(t)
	const merchantKey = "sk_test_official_library"
	for name, c := range map[string]struct {
		secret   webhook.Secret
		official string // the secret as the official libraries take it
	}{
		"endpoint whsec_ secret": {endpoint, endpoint.Reveal()},
		"merchant secret key":    {mustParse(t, merchantKey), webhook.MerchantSigningSecret(merchantKey)},
	} {
		t.Run(name, func(t *testing.T) {
			official, err := standardwebhooks.NewWebhook(c.official)
			require.NoError(t, err)
			type seen struct {
				header http.Header
				body   []byte
			}
			got := make(chan seen, 2048)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					b, _ := io.ReadAll(r.Body)
					got <- seen{r.Header.Clone(), b}
				}
				// Acknowledge everything, so that every check sends all it would.
				w.WriteHeader(http.StatusNoContent)
			}))
			defer srv.Close()
			const seed = 7
			_, err = receivertests.Run(context.Background(), receivertests.Config{URL: srv.URL, Secret: c.secret, Timeout: 5 * time.Second, Burst: 3, Seed: seed})
			require.NoError(t, err)
			close(got)
			verified, refused, validated := 0, 0, 0
			types := eventTypes(t)
			for d := range got {
				if official.Verify(d.body, d.header) != nil {
					refused++
					continue
				}
				verified++
				var ev struct{ Type string }
				require.NoError(t, json.Unmarshal(d.body, &ev), "%s", d.body)
				if !slices.Contains(types, ev.Type) {
					continue // the undeclared event type, on purpose
				}
				validated++
				assert.Empty(t, spec.ValidateWebhook(ev.Type, d.header, d.body), "a correctly signed body the document refuses: %s", d.body)
			}
			// Refused: every attack, for every event type, and nothing else; empty-signature sends two
			// (an empty value and a bare "v1,").
			assert.Equal(t, (len(attacks)+1)*len(types), refused)
			// Correctly signed: one per type, the dual signature (in three orders), the redelivery (twice), the burst, the
			// unknown field and the unknown type; each raw-body spelling of each type; and the
			// generated bodies of each type (its enum values, optional fields, bounds and drawn bodies).
			generated := 0
			for _, typ := range types {
				n, err := receivertests.GeneratedBodies(seed, typ)
				require.NoError(t, err)
				generated += n
			}
			assert.Equal(t, len(types)+3+2+3+1+1+len(rawBodies)*len(types)+generated, verified)
			assert.Equal(t, verified-1, validated)
		})
	}
}

// A receiver built on the official Standard Webhooks library, verifying the raw body and answering
// 2xx to whatever verifies, passes every check: the grader asks nothing the standard does not.
func TestOfficialLibraryReceiverPasses(t *testing.T) {
	secret := testSecret(t)
	official, err := standardwebhooks.NewWebhook(secret.Reveal())
	require.NoError(t, err)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || official.Verify(body, r.Header) != nil {
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	sum, failed := grade(t, h, secret, 5*time.Second)
	assert.Empty(t, failed)
	assert.Equal(t, runner.ExitConformant, runner.ExitCode(sum, nil))
}

// A receiver that does not answer is a setup error (exit 2) naming the URL, before any check.
func TestUnreachableReceiverIsASetupError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/hooks"
	srv.Close()
	sum, err := receivertests.Run(context.Background(), receivertests.Config{URL: url, Secret: testSecret(t)})
	require.Error(t, err)
	assert.Nil(t, sum)
	assert.ErrorIs(t, err, runner.ErrSetup)
	assert.ErrorIs(t, err, runner.ErrUnreachable)
	assert.Contains(t, err.Error(), url)
	assert.Equal(t, runner.ExitSetup, runner.ExitCode(sum, err))
}

func TestUnknownEventTypeIsASetupError(t *testing.T) {
	_, err := receivertests.List(receivertests.Config{EventTypes: []string{"payment.refunded"}})
	require.ErrorIs(t, err, runner.ErrSetup)
	assert.Contains(t, err.Error(), "payment.success", "the error lists the declared types")
}

// A report that cannot be written, of any kind, fails the run before the first delivery.
func TestUnwritableReportFailsBeforeTheRun(t *testing.T) {
	var deliveries atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { deliveries.Add(1) }))
	defer srv.Close()
	missing := filepath.Join(t.TempDir(), "no-such-dir", "r")
	for _, r := range []report.Reporter{report.JUnitReporter{Path: missing}, report.JSONReporter{Path: missing},
		report.HTMLReporter{Path: missing}, &report.HARRecorder{Path: missing}} {
		sum, err := receivertests.Run(context.Background(), receivertests.Config{URL: srv.URL, Secret: testSecret(t)}, r)
		require.ErrorIs(t, err, runner.ErrSetup)
		assert.Nil(t, sum)
		assert.Contains(t, err.Error(), "mkdir -p")
	}
	assert.Zero(t, deliveries.Load(), "the receiver must not be contacted")
}

// --record works for the receiver grader too: every delivery it sent is in the archive, as a delivery,
// with the grader as the archive's creator.
func TestRecordArchivesEveryDelivery(t *testing.T) {
	secret := testSecret(t)
	var deliveries atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			deliveries.Add(1)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "deliveries.har")
	_, err := receivertests.Run(context.Background(), receivertests.Config{URL: srv.URL, Secret: secret, Timeout: 5 * time.Second, Burst: 3},
		&report.HARRecorder{Path: path, Tool: receivertests.Tool})
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var har struct {
		Log struct {
			Creator struct{ Name string } `json:"creator"`
			Entries []struct {
				Kind    string                  `json:"_malipo_kind"`
				Check   string                  `json:"_check"`
				Request struct{ Method string } `json:"request"`
			} `json:"entries"`
		} `json:"log"`
	}
	require.NoError(t, json.Unmarshal(data, &har))
	assert.Equal(t, receivertests.Tool, har.Log.Creator.Name)
	require.Len(t, har.Log.Entries, int(deliveries.Load()))
	for _, e := range har.Log.Entries {
		assert.Equal(t, report.EvidenceDelivery, e.Kind)
		assert.NotEmpty(t, e.Check)
		assert.Equal(t, http.MethodPost, e.Request.Method)
	}
}

// A refused generated body is shrunk to the value that matters: against a receiver that refuses a
// narration over 100 characters, each type's shrunk body has a narration of exactly 101 and changes
// nothing else of the example that the refusal does not need; against one that refuses an amount
// above 2,147,483,647, the amount is moved down to the first value the document allows above it.
func TestRefusedGeneratedBodiesAreShrunk(t *testing.T) {
	faults := map[string]receiverfaults.Fault{}
	for _, f := range receiverfaults.All() {
		faults[f.Name] = f
	}
	smallest := regexp.MustCompile(`the smallest body found that is refused the same way, after (\d+) more deliveries: (.*?)(?: \[rule: .*)?$`)
	amount := regexp.MustCompile(`(?:^|, )data\.object\.amount = ([0-9.]+)(?:,|$)`)
	for name, judge := range map[string]func(t *testing.T, shrunk string){
		"narration-varchar-100-500": func(t *testing.T, shrunk string) {
			assert.Regexp(t, `(^|, )data\.object\.narration = "[^"]*"… \(101 characters\)(,|$)`, shrunk)
			assert.NotRegexp(t, `amount = `, shrunk, "the amount has nothing to do with it")
		},
		"amount-int32-500": func(t *testing.T, shrunk string) {
			m := amount.FindStringSubmatch(shrunk)
			require.NotNil(t, m, "the shrunk body names the amount: %s", shrunk)
			v, err := strconv.ParseFloat(m[1], 64)
			require.NoError(t, err)
			assert.Greater(t, v, float64(math.MaxInt32))
			assert.LessOrEqual(t, v, float64(math.MaxInt32)+1, "moved down to the first value its grid allows above the column's limit (2147483647.01 or 2147483648)")
			assert.NotRegexp(t, `narration = `, shrunk, "the narration has nothing to do with it")
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			secret := testSecret(t)
			sum, _ := grade(t, faults[name].New(secret), secret, 5*time.Second)
			shrunkTypes := 0
			for _, r := range sum.Results {
				if !strings.HasPrefix(r.ID, "receiver.accepts.generated/") || r.Outcome != report.Failed {
					continue
				}
				var found []string
				for _, f := range r.Failures {
					if m := smallest.FindStringSubmatch(f.Message); m != nil {
						found = append(found, m[2])
						n, _ := strconv.Atoi(m[1])
						assert.LessOrEqual(t, n, 128, "%s: at most maxShrinkDeliveries candidates", r.ID)
						require.NotEmpty(t, f.Evidence, "%s: the failure points at the shrunk delivery", r.ID)
						assert.Contains(t, r.Evidence[f.Evidence[0]].Request.Body, `"amount"`, "%s: the evidence is a delivery", r.ID)
					}
				}
				require.Len(t, found, 1, "%s: one refused body is shrunk", r.ID)
				judge(t, found[0])
				shrunkTypes++
			}
			assert.Equal(t, len(eventTypes(t)), shrunkTypes, "every type's generated check failed and shrank")
		})
	}
}
