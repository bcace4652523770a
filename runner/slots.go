package runner

import (
	"context"
	"sync"
)

// slots are a phase's concurrency: how many checks act at once. A check holds a slot while it acts
// (sends a request, judges an answer) and gives it back while it only waits (Recorder.Idle: for a
// settlement, a delivery, a retry, a settle window), so that the run's length follows the target's
// slowest outcome rather than the number of checks that wait for one. A check that comes back from a
// wait is served before any check that has not started: it has a deadline running and, usually, one
// request left to send.
type slots struct {
	mu   sync.Mutex
	free int
	// resuming and starting are the goroutines waiting for a slot, each queue first come first served;
	// a slot that comes free goes to the first resuming one, else to the first starting one.
	resuming, starting []chan struct{}
}

func newSlots(n int) *slots { return &slots{free: n} }

// queued is told of each goroutine that starts waiting for a slot, and released of each slot given
// back; tests replace them to order events that would otherwise race.
var (
	queued   = func(resume bool) {}
	released = func() {}
)

// acquire takes a slot, waiting behind the checks ahead of it (every resuming one, for a check that
// starts), until ctx ends; it reports whether it got one.
func (s *slots) acquire(ctx context.Context, resume bool) bool {
	s.mu.Lock()
	if s.free > 0 && len(s.resuming) == 0 && (resume || len(s.starting) == 0) {
		s.free--
		s.mu.Unlock()
		return true
	}
	ready := make(chan struct{})
	if resume {
		s.resuming = append(s.resuming, ready)
	} else {
		s.starting = append(s.starting, ready)
	}
	s.mu.Unlock()
	queued(resume)
	select {
	case <-ready:
		return true
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dequeue(ready) {
		return false
	}
	// The slot was handed over as ctx ended: pass it on.
	s.releaseLocked()
	return false
}

// dequeue removes ready from its queue and reports whether it was there (not yet handed a slot).
func (s *slots) dequeue(ready chan struct{}) bool {
	for _, q := range []*[]chan struct{}{&s.resuming, &s.starting} {
		for i, c := range *q {
			if c == ready {
				*q = append((*q)[:i], (*q)[i+1:]...)
				return true
			}
		}
	}
	return false
}

// release gives a slot back: to the first resuming check, else to the first starting one, else free.
func (s *slots) release() {
	released()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked()
}

func (s *slots) releaseLocked() {
	for _, q := range []*[]chan struct{}{&s.resuming, &s.starting} {
		if len(*q) > 0 {
			close((*q)[0])
			*q = (*q)[1:]
			return
		}
	}
	s.free++
}
