package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// maxPaymentCents is PaymentAmount's maximum (1000000000000) in cents; TestMaximumIsTheSpecs ties it
// to the document.
const maxPaymentCents = 100_000_000_000_000

func TestMaximumIsTheSpecs(t *testing.T) {
	var schema struct {
		Maximum    *float64 `yaml:"maximum"`
		MultipleOf *float64 `yaml:"multipleOf"`
	}
	openapitest.Decode(t, openapitest.Embedded(t).At(t, "/components/schemas/PaymentAmount"), &schema)
	require.NotNil(t, schema.Maximum)
	require.NotNil(t, schema.MultipleOf)
	assert.InDelta(t, 0.01, *schema.MultipleOf, 0, "the amounts here are built in cents")
	assert.Equal(t, int64(maxPaymentCents), int64(*schema.Maximum*100))
}

// cents renders an amount in cents the way a merchant writes it: shortest decimal, no trailing zeros.
func cents(c int64) string {
	s := strconv.FormatInt(c/100, 10)
	switch frac := c % 100; {
	case frac == 0:
		return s
	case frac%10 == 0:
		return s + "." + strconv.FormatInt(frac/10, 10)
	default:
		return s + "." + strconv.FormatInt(frac/10, 10) + strconv.FormatInt(frac%10, 10)
	}
}

// amountSample is every boundary the schema has, dense runs at the bottom and at the top of the range,
// and random amounts of every magnitude.
func amountSample(n int) []int64 {
	out := []int64{1, 9, 10, 11, 99, 100, 101, 15050, 98765432112, 12345678901234, maxPaymentCents - 1, maxPaymentCents}
	r := rand.New(rand.NewPCG(10, 10))
	for len(out) < n {
		magnitude := r.IntN(15) + 1 // 1..15 significant digits
		limit := int64(1)
		for range magnitude {
			limit *= 10
		}
		out = append(out, min(r.Int64N(limit)+1, maxPaymentCents))
	}
	return out
}

// TestEveryPaymentAmountIsExactAsADouble is the argument of PaymentAmount's description, checked: a
// two-decimal amount up to the maximum has at most 15 significant digits, so parsing it into a float64
// and formatting it back (as encoding/json does) gives the same text. Dense at both ends of the range,
// and a million random amounts between.
func TestEveryPaymentAmountIsExactAsADouble(t *testing.T) {
	check := func(c int64) {
		want := cents(c)
		f, err := strconv.ParseFloat(want, 64)
		require.NoError(t, err)
		out, err := json.Marshal(f)
		require.NoError(t, err)
		if string(out) != want {
			t.Fatalf("%s becomes %s as a float64", want, out)
		}
	}
	for c := int64(1); c <= 1_000_000; c++ {
		check(c)
	}
	for c := int64(maxPaymentCents - 1_000_000); c <= maxPaymentCents; c++ {
		check(c)
	}
	for _, c := range amountSample(1_000_000) {
		check(c)
	}
}

// wireRecorder keeps the raw bodies of requests and responses so the test can compare the amount's
// text on the wire, not only the decoded value.
type wireRecorder struct {
	mu   sync.Mutex
	next http.RoundTripper
	sent []string
	got  []string
}

func (w *wireRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := w.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	respBody, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	w.mu.Lock()
	w.sent = append(w.sent, string(reqBody))
	w.got = append(w.got, string(respBody))
	w.mu.Unlock()
	return resp, nil
}

// TestPaymentAmountsRoundTripThroughSandbox sends payments through our client to the sandbox and reads
// them back: the amount on the wire (both ways) and the decoded amount are exactly what was asked for.
func TestPaymentAmountsRoundTripThroughSandbox(t *testing.T) {
	srv, err := sandbox.New(sandbox.WithTimings(sandbox.Timings{PromptDelay: 0, PayoutDelay: 0}), sandbox.WithRetrySchedule(nil))
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); _ = srv.Shutdown(context.Background()) })
	rec := &wireRecorder{next: http.DefaultTransport}
	c, err := client.New(hs.URL, sandbox.DefaultPublicKey, sandbox.DefaultSecretKey, client.WithHTTPClient(&http.Client{Transport: rec}))
	require.NoError(t, err)
	ctx := context.Background()
	for _, amount := range amountSample(300) {
		want := cents(amount)
		f, _ := strconv.ParseFloat(want, 64)
		p, err := c.InitializePayment(ctx, client.PaymentInitRequest{Currency: "ZMW", Country: "ZM", Narration: "amount " + want,
			Method: api.PaymentMethodMobileMoney, Amount: f, WebhookURL: "https://merchant.example.org/hooks/malipo"})
		require.NoError(t, err, "amount %s", want)
		assert.Equal(t, want, strconv.FormatFloat(p.Amount, 'f', -1, 64), "the amount decoded from the init response")
		tx, err := c.GetTransactionStatus(ctx, p.PaymentReference)
		require.NoError(t, err)
		assert.Equal(t, want, strconv.FormatFloat(tx.Amount, 'f', -1, 64), "the amount decoded from the status response")

		rec.mu.Lock()
		sent, initResp, statusResp := rec.sent[len(rec.sent)-2], rec.got[len(rec.got)-2], rec.got[len(rec.got)-1]
		rec.mu.Unlock()
		assert.Equal(t, want, amountText(t, sent, ""), "the amount the client sent")
		assert.Equal(t, want, amountText(t, initResp, "data"), "the amount in the init response")
		assert.Equal(t, want, amountText(t, statusResp, "data"), "the amount in the status response")
	}
}

// amountText returns the raw JSON text of "amount" in body, or in body's member under.
func amountText(t *testing.T, body, under string) string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(body), &m), "%s", body)
	if under != "" {
		require.NoError(t, json.Unmarshal(m[under], &m), "%s", body)
	}
	return string(m["amount"])
}
