package checks

import (
	"strconv"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// scenarioChecks: every operation documents 429 (with Retry-After) and 500, and a client's retry path
// depends on both answers being what the document says; but no implementation produces them on demand,
// except through the sandbox's scenario header. On a target that plays it (package contracttests, probeScenarios), each
// operation answers each scenario as documented: the status and code of the error table, the error
// envelope (validated against the document like every answer), and for 429 a Retry-After in seconds.
// Elsewhere the checks are skipped: the header is a sandbox control, not part of the API.
func scenarioChecks(spec *openapi.Spec) []*harness.Check {
	var checks []*harness.Check
	for _, op := range harness.APIOperations(spec) {
		if len(op.KeyHeaders) == 0 {
			continue
		}
		req := authRequestFor(spec, op)
		ext := harness.IsExtensionIn(op)
		for _, sc := range []struct {
			name     string
			scenario api.SandboxScenario
			code     api.ErrorCode
		}{
			{"rate-limited", api.ScenarioRateLimited, api.CodeRateLimited},
			{"internal-error", api.ScenarioInternalError, api.CodeInternalError},
		} {
			checks = append(checks, &harness.Check{
				ID: "scenarios." + op.ID + "." + sc.name, Category: harness.CategoryScenarios, Covers: []string{op.ID}, Extension: ext,
				Rule: harness.Rule{Pointer: operationLocation(op) + "/responses/" + strconv.Itoa(sc.code.HTTPStatus())},
				Doc:  op.ID + " answers the " + string(sc.scenario) + " scenario with " + strconv.Itoa(sc.code.HTTPStatus()) + " (code " + strconv.Itoa(int(sc.code)) + ") as documented",
				Run: func(t *harness.T) {
					if !t.PlaysScenarios() {
						t.Skip("the target does not play the sandbox's error scenarios (" + api.HeaderSandboxScenario + "); a production implementation need not")
					}
					path, body := req.build(t)
					ex := t.Do(op.Method, path, body, harness.WithHeader(api.HeaderSandboxScenario, string(sc.scenario)), harness.InDocumentTerms())
					if !t.ExpectError(ex, sc.code) || sc.scenario != api.ScenarioRateLimited {
						return
					}
					retry := ex.Header.Get(api.HeaderRetryAfter)
					if secs, err := strconv.Atoi(retry); err != nil || secs < 0 {
						t.Errorf("429 must say when to retry: Retry-After %q is not a whole number of seconds", retry)
					}
				},
			})
		}
	}
	return checks
}
