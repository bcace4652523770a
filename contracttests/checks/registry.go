// Package checks is the conformance suite's checks and their registry (All, AllFor): the hand-written
// ones, those derived from the document (negative cases from the request schemas, the auth matrix from
// the security requirements, lifecycles from the test values) and the generated ones (request bodies
// and parameters drawn from the schemas with the run's seed, shrunk when they fail), each stating the
// Rule of the document it enforces; the stateful sequences are package sequences', which the registry
// runs first.
package checks

import (
	"fmt"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/contracttests/sequences"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The registry: which families of checks make up the suite, and the order they start in (reports list
// them by id). A family is a function that returns its checks, in the file of its subject (state.go, events.go, ...);
// families that share helpers share a file (behaviour.go: idempotency, isolation and webhook
// retries; protocol.go: reference data and the protocol; derived.go: the derived
// negative and auth checks).

// All returns every check of the suite for the embedded document (AllFor).
func All() ([]*harness.Check, error) {
	spec, err := openapi.Default()
	if err != nil {
		return nil, fmt.Errorf("load the contract: %w", err)
	}
	return AllFor(spec)
}

// AllFor returns every check of the suite for a document (`malipo conform --spec FILE`): the derived
// checks follow it (one per mutation of its request schemas, per security requirement, per test
// value), and the hand-written ones are the same for every document; at run time (with Config.Spec
// set to the same document) they use its paths, examples and test values, and skip with the reason
// when it lacks one. A document without x-malipo-test-values has no test-value checks.
func AllFor(spec *openapi.Spec) ([]*harness.Check, error) {
	tv, err := spec.TestValuesOrNone()
	if err != nil {
		return nil, fmt.Errorf("derive state checks: %w", err)
	}
	negative, err := derivedNegativeChecks(spec)
	if err != nil {
		return nil, err
	}
	generated, err := generatedChecks(spec)
	if err != nil {
		return nil, err
	}
	// The families whose checks wait for the target (a settlement, a delivery, a retry, a settle
	// window) first, the longest chains of waits (the sequences) leading: a waiting check holds no
	// concurrency slot, so started first its waits overlap the other checks' requests instead of
	// following them, and the run ends with its slowest chain of waits, not after it.
	all := sequences.Checks()
	all = append(all, stateChecks(tv)...)
	all = append(all, extensionChecks()...)
	all = append(all, eventChecks()...)
	all = append(all, webhookRetryChecks()...)
	all = append(all, generated...)
	all = append(all, referenceChecks()...)
	all = append(all, negative...)
	all = append(all, protocolChecks()...)
	all = append(all, urlChecks()...)
	all = append(all, derivedAuthChecks(spec)...)
	all = append(all, isolationChecks()...)
	all = append(all, idempotencyChecks()...)
	all = append(all, scenarioChecks(spec)...)
	all = append(all, listChecks()...)
	all = append(all, generatedParameterChecks(spec)...)
	if err := ruleless(all); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, c := range all {
		if seen[c.ID] {
			return nil, fmt.Errorf("check id %s is used twice", c.ID)
		}
		seen[c.ID] = true
	}
	return all, nil
}
