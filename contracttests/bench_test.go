package contracttests_test

import (
	"context"
	"testing"

	"github.com/malipo/terraform-provider-malipo/contracttests"
)

// BenchmarkConformEmbedded is one full run of the suite against the embedded sandbox, as
// `malipo conform` without --target does it. Target: under 15 s on the 2-core CI machine.
func BenchmarkConformEmbedded(b *testing.B) {
	checks, err := contracttests.All()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cfg, stop, err := contracttests.StartEmbedded()
		if err != nil {
			b.Fatal(err)
		}
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
		b.ReportMetric(float64(len(sum.Results)), "checks/op")
	}
}
