package client

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkProcessPayout measures the client's own cost per call (encoding, headers, key generation,
// decoding) over a transport that answers at once.
func BenchmarkProcessPayout(b *testing.B) {
	body := success("Payout is processing", payoutProcessing)
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 201, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})}
	c, err := New(testBase, testPublicKey, testSecretKey, WithHTTPClient(hc))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	req := bankPayout()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.ProcessPayout(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewIdempotencyKey(b *testing.B) {
	for b.Loop() {
		_ = newIdempotencyKey()
	}
}
