package variance

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
)

// Latency is the time a network between the service and its clients adds: every answer to a request
// and every webhook attempt is held back a duration between Min and Max, drawn anew for each. A
// request's share is paid half on the way in, before the sandbox sees it, and half on the way out, so
// that the service acts, and its webhooks may leave, before the client has its answer.
type Latency struct{ Min, Max time.Duration }

// String says what the latency adds, or "none".
func (l Latency) String() string {
	if l.Max <= 0 {
		return "none"
	}
	return fmt.Sprintf("%s to %s added to every answer and every delivery", l.Min, l.Max)
}

// Options returns the sandbox options that add the latency, drawn from seed. Give them after every
// other option, so that its middleware is the outermost: the network is outside the service. Options
// of a zero Latency add nothing.
func (l Latency) Options(seed int64) []sandbox.Option {
	if l.Max <= 0 {
		return nil
	}
	return []sandbox.Option{sandbox.WithHooks(l.hooks(seed))}
}

// hooks are the sandbox hooks that add the latency: middleware for the answers, an outgoing hook for
// the webhook attempts.
func (l Latency) hooks(seed int64) sandbox.Hooks {
	d := &latencyDraw{l: l, seed: uint64(seed)} //nolint:gosec // a seed's bits, not a quantity
	return sandbox.Hooks{
		Middleware: func(_ *sandbox.Server, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				trip := d.next()
				if !sleep(r.Context(), trip/2) {
					return
				}
				c := capture(next, r)
				if !sleep(r.Context(), trip-trip/2) {
					return
				}
				c.send(w)
			})
		},
		Outgoing: func(o *sandbox.Outgoing) { o.Delay += d.next() },
	}
}

// latencyDraw draws each delay from the seed and a counter: the same seed gives the same sequence of
// delays, though which request gets which depends on their order.
type latencyDraw struct {
	l    Latency
	seed uint64
	n    atomic.Uint64
}

func (d *latencyDraw) next() time.Duration {
	x := splitmix64(d.seed ^ d.n.Add(1)*0x9e3779b97f4a7c15)
	span := uint64(max(d.l.Max-d.l.Min, 0))    //nolint:gosec // not negative
	return d.l.Min + time.Duration(x%(span+1)) //nolint:gosec // at most span
}

// splitmix64 scrambles x (SplitMix64's finaliser): consecutive counters give unrelated values.
func splitmix64(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// sleep waits d, or until ctx ends; it reports whether the wait was whole.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
