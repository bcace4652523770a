package receivertests_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/receiverfaults"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/receivertests"
)

// BenchmarkGradeCorrectReceiver is the wall time of one whole `malipo webhooks test` run (every check,
// every event type, the default concurrency) against the correct receiver on loopback, the document
// already loaded: what a merchant waits for a green run. "5ms" is a receiver that takes 5 ms to
// answer (a database write before the 2xx), where the time goes to round trips, not to the grader.
func BenchmarkGradeCorrectReceiver(b *testing.B) {
	spec, err := openapi.Default()
	if err != nil {
		b.Fatal(err)
	}
	for _, latency := range []time.Duration{0, 5 * time.Millisecond} {
		b.Run(map[time.Duration]string{0: "loopback", 5 * time.Millisecond: "5ms"}[latency], func(b *testing.B) {
			secret := testSecret(b)
			correct := receiverfaults.Correct(secret)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(latency)
				correct.ServeHTTP(w, r)
			}))
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
		})
	}
}
