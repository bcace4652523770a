package contracttests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests/checks"
	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// withRefunds returns a copy of the embedded document with an operation no code knows, with or without
// a request example.
func withRefunds(t *testing.T, example bool) *openapi.Spec {
	t.Helper()
	op := `  /v1/refunds:
    post:
      operationId: createRefund
      summary: Refund a payment (an operation only this test knows)
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              additionalProperties: false
              required: [amount, webhook_url]
              properties:
                amount:
                  $ref: '#/components/schemas/PayoutAmount'
                reference:
                  $ref: '#/components/schemas/MerchantReference'
                webhook_url:
                  $ref: '#/components/schemas/WebhookURL'
`
	if example {
		op += `            examples:
              partial:
                value:
                  amount: 17
                  reference: refund-17
                  webhook_url: https://merchant.example.org/hooks/refunds
`
	}
	op += `      responses:
        '201':
          description: Refunded.
        '400':
          $ref: '#/components/responses/BadRequest'
        '401':
          $ref: '#/components/responses/Unauthorized'
`
	doc := strings.Replace(string(openapi.YAML()), "\npaths:\n", "\npaths:\n"+op, 1)
	spec, err := openapi.Load([]byte(doc))
	require.NoError(t, err)
	return spec
}

// recordingTarget answers every request with a missing-key error and records the bodies it gets by path.
func recordingTarget(t *testing.T) (*httptest.Server, func(path string) []map[string]any) {
	t.Helper()
	var mu sync.Mutex
	bodies := map[string][]map[string]any{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(data, &body)
		mu.Lock()
		bodies[r.URL.Path] = append(bodies[r.URL.Path], body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet { // the run's preflight: the target answers and takes the keys
			_, _ = io.WriteString(w, `{"status":"success","code":0,"message":"ok","data":[]}`)
			return
		}
		w.WriteHeader(api.CodeMissingAPIKey.HTTPStatus())
		_, _ = fmt.Fprintf(w, `{"status":"error","code":%d,"message":"a key header is missing","errors":[]}`, api.CodeMissingAPIKey)
	}))
	t.Cleanup(srv.Close)
	return srv, func(path string) []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return bodies[path]
	}
}

// pick returns the checks with the given ids.
func pick(t *testing.T, checks []*harness.Check, ids ...string) []*harness.Check {
	t.Helper()
	var out []*harness.Check
	for _, id := range ids {
		for _, c := range checks {
			if c.ID == id {
				out = append(out, c)
			}
		}
	}
	require.Len(t, out, len(ids), "derived checks: want %v", ids)
	return out
}

// TestANewOperationWithAnExampleNeedsNoCode adds an operation with a request example to a copy of the
// document: with no code change the suite derives its negative and auth checks, and sends the example
// with the run's values where the document's cannot be sent (a fresh reference, the run's receiver).
func TestANewOperationWithAnExampleNeedsNoCode(t *testing.T) {
	spec := withRefunds(t, true)
	all, err := checks.AllFor(spec)
	require.NoError(t, err)
	pick(t, all, "negative.createRefund.amount.missing", "negative.createRefund.webhook_url.pattern", "negative.createRefund.unknown-field")
	checks := pick(t, all, "auth.createRefund.no-keys", "auth.createRefund.no-secret-key")

	srv, bodies := recordingTarget(t)
	sum, err := Run(context.Background(), harness.Config{BaseURL: srv.URL, Keys: harness.Keys{Public: "pk_test", Secret: "sk_test"}, Spec: spec}, checks)
	require.NoError(t, err)
	for _, r := range sum.Results {
		assert.Equal(t, report.Passed, r.Outcome, "%s: %v", r.ID, r.Failures)
	}
	sent := bodies(mustOperation(t, spec, "createRefund").Path)
	require.Len(t, sent, len(checks))
	for _, body := range sent {
		assert.InDelta(t, 17, body["amount"], 0, "the example's amount is sent")
		assert.NotEqual(t, "refund-17", body["reference"], "a fresh reference, not the example's")
		assert.Regexp(t, `^conform-`, body["reference"])
		assert.True(t, strings.HasPrefix(fmt.Sprint(body["webhook_url"]), "http://127.0.0.1:"),
			"webhooks go to the run's receiver, not the document's host: %v", body["webhook_url"])
	}
}

// TestAnOperationWithoutAnExampleSkipsItsChecks: the checks of a body the document gives no example for
// are still derived (their ids stay in reports), and each is skipped saying which example to add,
// without sending a body written by the suite: the document says nothing the target could break.
func TestAnOperationWithoutAnExampleSkipsItsChecks(t *testing.T) {
	spec := withRefunds(t, false)
	all, err := checks.AllFor(spec)
	require.NoError(t, err)
	checks := pick(t, all, "negative.createRefund.amount.missing", "auth.createRefund.no-keys")

	srv, bodies := recordingTarget(t)
	cfg := harness.Config{BaseURL: srv.URL, Keys: harness.Keys{Public: "pk_test", Secret: "sk_test"}, Run: regexp.MustCompile(`createRefund`), Spec: spec}
	sum, err := Run(context.Background(), cfg, checks)
	require.NoError(t, err)
	require.Len(t, sum.Results, len(checks))
	for _, r := range sum.Results {
		require.Equal(t, report.Skipped, r.Outcome, r.ID)
		assert.Empty(t, r.Failures, r.ID)
		assert.Contains(t, r.SkipReason, "the document gives no request example for createRefund", r.ID)
		assert.Contains(t, r.SkipReason, "requestBody.content.application/json.examples", r.ID)
	}
	assert.Empty(t, bodies(mustOperation(t, spec, "createRefund").Path), "nothing is sent for the operation")
}

func mustOperation(t *testing.T, spec *openapi.Spec, id string) *openapi.Operation {
	t.Helper()
	op, ok := spec.Operation(id)
	require.True(t, ok, id)
	return op
}
