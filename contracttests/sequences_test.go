package contracttests_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/malipo/terraform-provider-malipo/contracttests"
	"github.com/malipo/terraform-provider-malipo/report"
)

// TestSequencesPassForEverySeed runs the stateful sequences against the embedded sandbox under several
// seeds, each a different interleaving: the sandbox conforms whichever order the steps come in.
func TestSequencesPassForEverySeed(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		start := time.Now()
		results := runConfigured(t, nil, `^sequences\.`, func(cfg *contracttests.Config) { cfg.Seed = seed })
		t.Logf("seed %d: %d checks in %s", seed, len(results), time.Since(start).Round(time.Millisecond))
		assert.Len(t, results, 2)
		for id, r := range results {
			assert.Equal(t, report.Passed, r.Outcome, "seed %d: %s: %v", seed, id, outcomes(results)[id])
		}
	}
}
