package sandbox

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
)

// What a data directory (WithDataDir) costs, against the in-memory default: throughput of creates,
// which wait for their fsync (grouped with the other requests'), the delay from a status change to its
// delivery through the outbox, and the memory a million stored payouts take.

// BenchmarkPayoutCreateData is BenchmarkPayoutCreateHistory's fresh sandbox, in memory and with a data
// directory (in the system's temporary directory: set TMPDIR to measure another disk).
func BenchmarkPayoutCreateData(b *testing.B) {
	for _, where := range []string{"memory", "disk"} {
		b.Run("store="+where, func(b *testing.B) {
			opts := []Option{WithTimings(Timings{PayoutDelay: time.Millisecond}), WithSeedData(false), WithRateLimit(math.MaxInt32)}
			if where == "disk" {
				opts = append(opts, WithDataDir(b.TempDir()))
			}
			srv, err := New(opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = srv.Close() })
			benchPayoutCreate(b, srv)
		})
	}
}

// BenchmarkWebhookLatencyData is BenchmarkWebhookLatency through the outbox: each delivery's first
// attempt waits until its outbox entry is on disk.
func BenchmarkWebhookLatencyData(b *testing.B) {
	for _, where := range []string{"memory", "disk"} {
		b.Run("store="+where, func(b *testing.B) {
			var opts []Option
			if where == "disk" {
				opts = append(opts, WithDataDir(b.TempDir()))
			}
			benchWebhookLatency(b, opts...)
		})
	}
}

// BenchmarkStoredPayoutsRSS reports the resident memory of the process after a million payouts
// (settled, with their events and idempotency keys), in memory and with a data directory. It takes
// minutes and the two must run in separate processes to mean anything, so it runs only when
// MALIPO_BENCH_RSS is set, one store at a time (make bench-rss):
//
//	MALIPO_BENCH_RSS=1 go test -run '^$' -bench 'StoredPayoutsRSS/store=memory' -benchtime 1x ./internal/sandbox
func BenchmarkStoredPayoutsRSS(b *testing.B) {
	if os.Getenv("MALIPO_BENCH_RSS") == "" {
		b.Skip("set MALIPO_BENCH_RSS=1 and run one store per process (make bench-rss)")
	}
	const n = 1_000_000
	for _, where := range []string{"memory", "disk"} {
		b.Run("store="+where, func(b *testing.B) {
			opts := []Option{WithTimings(Timings{PayoutDelay: time.Millisecond}), WithSeedData(false), WithRateLimit(math.MaxInt32)}
			dir := b.TempDir()
			if where == "disk" {
				opts = append(opts, WithDataDir(dir))
			}
			srv, err := New(opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = srv.Close() }()
			start := time.Now()
			preloadPayouts(b, srv, n)
			b.ReportMetric(time.Since(start).Seconds(), "preload-s")
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
			b.ReportMetric(float64(rssKB(b))/1024, "rss-MB")
			if fi, err := os.Stat(filepath.Join(dir, store.FileName)); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "file-MB")
			}
			for range b.N { // the work is the preload; one iteration is all there is
			}
		})
	}
}

// rssKB is the process's resident set (VmRSS) in KiB, from /proc (Linux).
func rssKB(b *testing.B) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status: RSS is measured on Linux")
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(fmt.Errorf("VmRSS %q: %w", rest, err))
			}
			return kb
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}
