package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// BenchmarkPayoutCreateAndRead measures sandbox throughput over loopback HTTP with keep-alive: each
// iteration creates a payout and reads it back (two requests). validation=on is the sandbox as it runs
// (the fast path first, libopenapi-validator for what it finds invalid); validation=validator-only
// sends every message to libopenapi-validator, to show what the fast path buys (the figure
// ARCHITECTURE.md keeps it for); validation=off is the same handler without the contract check.
func BenchmarkPayoutCreateAndRead(b *testing.B) {
	validatorOnly, err := openapi.Load(openapi.YAML(), openapi.WithoutFastPath())
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		opts []Option
	}{
		{"on", nil},
		{"validator-only", []Option{WithSpec(validatorOnly)}},
		{"off", []Option{WithValidation(false)}},
	} {
		b.Run("validation="+mode.name, func(b *testing.B) {
			// The limiter counts every request (its cost is measured) but never refuses one here.
			srv, err := New(append(mode.opts, WithRateLimit(math.MaxInt32), WithTimings(Timings{PromptDelay: time.Millisecond, PayoutDelay: time.Millisecond}))...)
			if err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			defer func() { _ = srv.Close() }()
			tr := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr}
			body := []byte(fmt.Sprintf(`{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":%q,"narration":"Supplier invoice 88"}`, creditedAccount(b)))
			do := func(method, url string, body []byte, want int) []byte {
				var rd io.Reader
				if body != nil {
					rd = bytes.NewReader(body)
				}
				req, _ := http.NewRequest(method, url, rd)
				req.Header.Set("public-key", DefaultPublicKey)
				req.Header.Set("secret-key", DefaultSecretKey)
				if body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				resp, err := hc.Do(req)
				if err != nil {
					b.Error(err)
					return nil
				}
				data, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != want {
					b.Errorf("%s %s: %d %s", method, url, resp.StatusCode, data)
				}
				return data
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					data := do(http.MethodPost, ts.URL+api.OpProcessPayout().URL(), body, http.StatusCreated)
					i := bytes.Index(data, []byte(`"payout_id":"`))
					if i < 0 {
						b.Error("no payout_id")
						return
					}
					id := data[i+13 : i+13+bytes.IndexByte(data[i+13:], '"')]
					do(http.MethodGet, ts.URL+api.OpGetPayout().URL(string(id)), nil, http.StatusOK)
				}
			})
			b.ReportMetric(float64(2*b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}

// BenchmarkWebhookLatency measures the time from a status change to its arrival at a loopback
// receiver, reported as p50 and p99 in milliseconds.
func BenchmarkWebhookLatency(b *testing.B) { benchWebhookLatency(b) }

// benchWebhookLatency measures the time from a status change to its arrival at a loopback receiver
// on a sandbox built with opts.
func benchWebhookLatency(b *testing.B, opts ...Option) {
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	got := make(chan struct{}, 1024)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		arrived[r.Header.Get(webhook.HeaderID)] = time.Now()
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		got <- struct{}{}
	}))
	defer rc.Close()
	srv, err := New(append([]Option{WithTimings(Timings{PayoutDelay: 0}), WithRateLimit(math.MaxInt32)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer func() { _ = srv.Close() }()
	body := []byte(fmt.Sprintf(`{"amount":120,"countryId":"ctry_zm","transfer_to":"mobile_number","webhook_url":%q}`, rc.URL+"/hook"))
	b.ResetTimer()
	for range b.N {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+api.OpProcessPayout().URL(), bytes.NewReader(body))
		req.Header.Set("public-key", DefaultPublicKey)
		req.Header.Set("secret-key", DefaultSecretKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		<-got
	}
	b.StopTimer()
	var lat []time.Duration
	mu.Lock()
	for _, ev := range srv.Events(DefaultPublicKey) {
		if at, ok := arrived[ev.ID]; ok {
			lat = append(lat, at.Sub(ev.Emitted))
		}
	}
	mu.Unlock()
	if len(lat) == 0 {
		b.Fatal("no deliveries")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkPayoutCreateHistory measures payout creation over loopback HTTP (16 concurrent clients,
// keep-alive, a new Idempotency-Key and reference per request) on a fresh sandbox and on one that
// already holds a million payouts, each settled with its event, so the two can be compared: the
// sandbox's cost must not grow with its history. The preloaded sandbox is built once per test binary
// (it takes a while), through the idempotency layer and the handler, without HTTP and validation.
// Reports req/s, the p99 latency and the heap the history holds.
func BenchmarkPayoutCreateHistory(b *testing.B) {
	for _, history := range []int{0, 1_000_000} {
		b.Run(fmt.Sprintf("history=%d", history), func(b *testing.B) {
			benchPayoutCreate(b, historySandbox(b, history))
		})
	}
}

// benchPayoutCreate measures payout creation on srv over loopback HTTP: 16 concurrent clients,
// keep-alive, a new Idempotency-Key and reference per request. Reports req/s, the p99 latency and the
// heap in use.
func benchPayoutCreate(b *testing.B, srv *Server) {
	ts := httptest.NewServer(srv)
	defer ts.Close()
	tr := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	url := ts.URL + api.OpProcessPayout().URL()
	account := creditedAccount(b)
	run := newID("")
	var seq atomic.Int64
	var latMu sync.Mutex
	var lat []time.Duration
	b.SetParallelism(8) // 16 clients on 2 cores, as make bench-http's wrk
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			ref := fmt.Sprintf("h%s-%d", run, seq.Add(1))
			body := fmt.Sprintf(`{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":%q,"reference":%q}`, account, ref)
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			req.Header.Set("public-key", DefaultPublicKey)
			req.Header.Set("secret-key", DefaultSecretKey)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(api.HeaderIdempotencyKey, ref)
			t0 := time.Now()
			resp, err := hc.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			mine = append(mine, time.Since(t0))
			if resp.StatusCode != http.StatusCreated {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
		latMu.Lock()
		lat = append(lat, mine...)
		latMu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)*99/100])/float64(time.Millisecond), "p99-ms")
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
}

var (
	historyMu        sync.Mutex
	historySandboxes = map[int]*Server{}
)

// historySandbox returns a sandbox holding history settled payouts (and as many events), shared by
// the runs of a benchmark in this test binary. A fresh one (history 0) is new on every call.
func historySandbox(b *testing.B, history int) *Server {
	b.Helper()
	historyMu.Lock()
	defer historyMu.Unlock()
	if srv := historySandboxes[history]; srv != nil {
		return srv
	}
	srv, err := New(WithTimings(Timings{PayoutDelay: time.Millisecond}), WithSeedData(false), WithRateLimit(math.MaxInt32)) // Seq counts the preload's events only
	if err != nil {
		b.Fatal(err)
	}
	if history == 0 {
		b.Cleanup(func() { _ = srv.Close() })
		return srv
	}
	preloadPayouts(b, srv, history)
	historySandboxes[history] = srv
	return srv
}

// preloadPayouts creates n more payouts on srv and waits until each has settled and emitted its
// event (srv must have no seed data, so that its events are the payouts' ones).
// Requests go through the idempotency layer and the handler, without HTTP and validation, on every
// core.
func preloadPayouts(tb testing.TB, srv *Server, n int) {
	tb.Helper()
	op, _, _ := srv.spec.Route(http.MethodPost, api.OpProcessPayout().URL())
	m := srv.merchants[0]
	account := creditedAccount(tb)
	var before uint64
	if evs := srv.Events(""); len(evs) > 0 {
		before = evs[len(evs)-1].Seq
	}
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				ref := fmt.Sprint("pre-", before+uint64(i))
				body := []byte(fmt.Sprintf(`{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco","account_number":%q,"reference":%q}`, account, ref))
				value, err := parseBody(body)
				if err != nil {
					tb.Error(err)
					return
				}
				r := httptest.NewRequest(http.MethodPost, api.OpProcessPayout().URL(), nil)
				r.Header.Set(api.HeaderIdempotencyKey, ref)
				if resp := srv.idempotent(&request{r: r, op: op, m: m, body: body, value: value}, handlers[op.ID]); resp.status != http.StatusCreated {
					tb.Errorf("preload: %d %s", resp.status, resp.body)
					return
				}
			}
		}()
	}
	wg.Wait()
	for !srv.Idle() {
		time.Sleep(10 * time.Millisecond)
	}
	if evs := srv.Events(""); len(evs) == 0 || evs[len(evs)-1].Seq != before+uint64(n) {
		tb.Fatalf("preload: %d payouts should have emitted as many events", n)
	}
	if err := srv.store.Sync(); err != nil { // with a data directory: until it is all on disk
		tb.Fatal(err)
	}
	runtime.GC()
}
