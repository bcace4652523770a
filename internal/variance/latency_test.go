package variance

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Every delay a latency draws is within its range, a seed draws the same ones, and they differ from
// one to the next (a network's round trips are not all alike).
func TestLatencyDrawsWithinItsRange(t *testing.T) {
	l := Latency{Min: 100 * time.Millisecond, Max: 300 * time.Millisecond}
	a, b := &latencyDraw{l: l, seed: 7}, &latencyDraw{l: l, seed: 7}
	distinct := map[time.Duration]bool{}
	const draws = 512
	for range draws {
		d := a.next()
		require.Equal(t, d, b.next(), "the same seed draws the same delays")
		require.GreaterOrEqual(t, d, l.Min)
		require.LessOrEqual(t, d, l.Max)
		distinct[d] = true
	}
	assert.Greater(t, len(distinct), draws*9/10, "delays drawn anew for each")
	one := &latencyDraw{l: Latency{Min: time.Second, Max: time.Second}}
	assert.Equal(t, time.Second, one.next(), "a range of one duration")
	assert.Empty(t, Latency{}.Options(1), "no latency adds nothing")
}

// A sandbox with a latency answers no sooner than its minimum, with the sandbox's own answer, and
// holds every webhook attempt back by at least the minimum too.
func TestLatencyDelaysAnswersAndDeliveries(t *testing.T) {
	l := Latency{Min: 80 * time.Millisecond, Max: 90 * time.Millisecond}
	srv, err := sandbox.New(l.Options(3)...)
	require.NoError(t, err)
	defer func() { _ = srv.Close() }()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	req, err := http.NewRequest(api.OpListCountries().Method, ts.URL+api.OpListCountries().URL(), nil)
	require.NoError(t, err)
	req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
	req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
	start := time.Now()
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.GreaterOrEqual(t, time.Since(start), l.Min, "the answer came sooner than the latency allows")

	o := &sandbox.Outgoing{}
	l.hooks(3).Outgoing(o)
	assert.GreaterOrEqual(t, o.Delay, l.Min)
	assert.LessOrEqual(t, o.Delay, l.Max)
}
