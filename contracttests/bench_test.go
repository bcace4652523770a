package contracttests_test

import (
	"context"
	"testing"

	"github.com/malipo/terraform-provider-malipo/contracttests"
)

// BenchmarkConformEmbedded is one full run of the suite against the embedded sandbox, as
// `malipo conform` without --target does it, with the generated checks at their default budget and
// without them (generated=off: what a run cost before they existed). Target: under 15 s on the
// 2-core CI machine.
func BenchmarkConformEmbedded(b *testing.B) {
	checks, err := contracttests.All()
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name      string
		generated int
	}{{"generated=default", 0}, {"generated=off", -1}} {
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				cfg, stop, err := contracttests.StartEmbedded()
				if err != nil {
					b.Fatal(err)
				}
				cfg.Seed, cfg.Generated = 1, mode.generated
				sum, err := contracttests.Run(context.Background(), cfg, checks)
				if stopErr := stop(); stopErr != nil {
					b.Fatal(stopErr)
				}
				if err != nil {
					b.Fatal(err)
				}
				if !sum.OK() {
					b.Fatalf("%d checks failed", sum.Failed)
				}
				b.ReportMetric(float64(sum.Passed), "passed/op")
			}
		})
	}
}
