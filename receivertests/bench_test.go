package receivertests_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/receiverfaults"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/receivertests"
)

// BenchmarkGradeCorrectReceiver is the wall time of one whole `malipo webhooks test` run (every check,
// every event type, the default concurrency) against the correct receiver on loopback, the document
// already loaded: what a merchant waits for a green run.
func BenchmarkGradeCorrectReceiver(b *testing.B) {
	spec, err := openapi.Default()
	if err != nil {
		b.Fatal(err)
	}
	secret := testSecret(b)
	srv := httptest.NewServer(receiverfaults.Correct(secret))
	defer srv.Close()
	cfg := receivertests.Config{URL: srv.URL, Secret: secret, Spec: spec, Timeout: 5 * time.Second}
	for b.Loop() {
		sum, err := receivertests.Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if sum.Failed > 0 {
			b.Fatalf("%d checks failed against the correct receiver", sum.Failed)
		}
	}
}
