package harness

import (
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
)

// Settle windows follow the target. A check that verifies that something does NOT happen (a final
// state changes, a second event arrives, a disabled endpoint gets a delivery) can only wait a while
// and look; how long is enough depends on the target. What the target does, it does on its own time
// scale: the suite measures that scale where it waits for things that must happen (a final status,
// a delivery), and a settle window is settleFactor times the slowest such time-to-outcome observed so
// far. A fast target is judged fast; a slow staging target gets windows as long as it needs, up to
// the waits' own bound (Config.EventuallyTimeout). Config.SettleTime, when set, fixes the window.
const (
	// settleFactor is how many times the slowest observed time-to-outcome a window lasts: the margin
	// for a target whose unwanted act comes a little later than its wanted ones.
	settleFactor = 3
	// settleFloor is the shortest window: below it, scheduling jitter on either side decides.
	settleFloor = 50 * time.Millisecond
	// settleUnobserved is the window before anything has been observed (a check that settles first
	// thing, alone in a --run): the fixed window of earlier versions.
	settleUnobserved = 300 * time.Millisecond
)

// pace is the slowest time-to-outcome the run has observed.
type pace struct {
	mu       sync.Mutex
	slowest  time.Duration
	observed bool
}

// observe records how long one asynchronous outcome took to be seen.
func (p *pace) observe(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.observed = true
	p.slowest = max(p.slowest, d)
}

// window is the settle window for what has been observed so far, at most limit.
func (p *pace) window(limit time.Duration) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := settleUnobserved
	if p.observed {
		w = max(settleFactor*p.slowest, settleFloor)
	}
	return min(w, limit)
}

// settleWindow is how long Settle waits: Config.SettleTime when set, else a window that follows the
// target's observed pace, bounded by Config.EventuallyTimeout.
func (s *Suite) settleWindow() time.Duration {
	if s.cfg.SettleTime > 0 {
		return s.cfg.SettleTime
	}
	return s.pace.window(s.cfg.EventuallyTimeout)
}

// arrivalLatency is how long after start the last of ds arrived (0 when all came before): the
// time-to-outcome of a wait for deliveries, measured by the receiver's clock rather than by the
// polls that noticed them.
func arrivalLatency(ds []*webhooksink.Delivery, start time.Time) time.Duration {
	var latest time.Duration
	for _, d := range ds {
		latest = max(latest, d.Received.Sub(start))
	}
	return latest
}
