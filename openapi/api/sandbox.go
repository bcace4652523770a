package api

// HeaderSandboxScenario is the sandbox's scenario header (the document's "Sandbox controls" tag describes it): a request that
// carries it is answered with an error scenario instead of normally, so that a client can test its
// retry path against `malipo sandbox`. A production implementation ignores it. The document gives the
// header in prose only (it is not a parameter of the v1 operations, which production implementations
// share), so the names are written here, and TestScenarioHeaderIsDocumented holds them to the prose.
const HeaderSandboxScenario = "Malipo-Sandbox-Scenario"

// SandboxScenario is a value of HeaderSandboxScenario.
type SandboxScenario string

// The scenarios a sandbox answers.
const (
	// ScenarioRateLimited answers 429 (CodeRateLimited) with Retry-After, and does nothing.
	ScenarioRateLimited SandboxScenario = "rate_limited"
	// ScenarioInternalError answers 500 (CodeInternalError), and does nothing.
	ScenarioInternalError SandboxScenario = "internal_error"
	// ScenarioSlow answers normally, late: past a 30-second client time-out, or after `delay_ms`.
	ScenarioSlow SandboxScenario = "slow"
	// ScenarioDropAfterWrite carries the request out and stores it, then closes the connection
	// without an answer: the case a client's Idempotency-Key exists for.
	ScenarioDropAfterWrite SandboxScenario = "drop_after_write"
)

// SandboxScenarios lists the scenarios, in the document's order.
func SandboxScenarios() []SandboxScenario {
	return []SandboxScenario{ScenarioRateLimited, ScenarioInternalError, ScenarioSlow, ScenarioDropAfterWrite}
}
