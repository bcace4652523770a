package receivertests_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
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

func testSecret(t *testing.T) webhook.Secret {
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

// acceptsEveryType is the ids of the checks that send each declared event type, correctly signed.
func acceptsEveryType(t *testing.T) []string {
	spec, err := openapi.Default()
	require.NoError(t, err)
	var ids []string
	for _, et := range spec.EventTypes() {
		ids = append(ids, "receiver.accepts."+et)
	}
	return ids
}

// The correct receiver (webhook.Receiver around a lenient handler) passes every check, with a secret
// of either form the document describes.
func TestCorrectReceiverPasses(t *testing.T) {
	for name, secret := range map[string]webhook.Secret{
		"endpoint whsec_ secret": testSecret(t),
		"merchant secret key":    mustParse(t, "sk_test_receiver_grader"),
	} {
		t.Run(name, func(t *testing.T) {
			sum, failed := grade(t, receiverfaults.Correct(secret), secret, 5*time.Second)
			assert.Empty(t, failed, "%+v", sum.Results)
			assert.Len(t, sum.Results, len(acceptsEveryType(t))+13)
			assert.Equal(t, runner.ExitConformant, runner.ExitCode(sum, nil))
		})
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
	slowFails := append(acceptsEveryType(t), "receiver.accepts.dual-signature", "receiver.accepts.redelivery",
		"receiver.robustness.burst", "receiver.robustness.unknown-event-type", "receiver.robustness.unknown-field")
	want := map[string][]string{
		"accepts-any-signature": {"receiver.rejects.body-changed", "receiver.rejects.forged-signature", "receiver.rejects.malformed-signature",
			"receiver.rejects.other-secret", "receiver.rejects.unknown-version"},
		"accepts-no-signature":   {"receiver.rejects.no-signature"},
		"ignores-timestamp":      {"receiver.rejects.timestamp-future", "receiver.rejects.timestamp-past"},
		"rejects-dual-signature": {"receiver.accepts.dual-signature"},
		"duplicate-500":          {"receiver.accepts.redelivery"},
		"slow":                   slowFails,
		"unknown-type-500":       {"receiver.robustness.unknown-event-type"},
		"unknown-field-500":      {"receiver.robustness.unknown-field"},
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
// with our own verifier.
func TestOfficialLibraryAgreesWithTheGrader(t *testing.T) {
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
			got := make(chan seen, 200)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					b, _ := io.ReadAll(r.Body)
					got <- seen{r.Header.Clone(), b}
				}
				// Acknowledge everything, so that every check sends all it would.
				w.WriteHeader(http.StatusNoContent)
			}))
			defer srv.Close()
			_, err = receivertests.Run(context.Background(), receivertests.Config{URL: srv.URL, Secret: c.secret, Timeout: 5 * time.Second, Burst: 3})
			require.NoError(t, err)
			close(got)
			verified, refused := 0, 0
			for d := range got {
				if official.Verify(d.body, d.header) == nil {
					verified++
				} else {
					refused++
				}
			}
			// Correctly signed: one per type, the dual signature, the redelivery (twice), the burst, the
			// unknown field and the unknown type. Refused: the eight rejects.
			assert.Equal(t, len(acceptsEveryType(t))+1+2+3+1+1, verified)
			assert.Equal(t, 8, refused)
		})
	}
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
