package sandbox

import "sync"

// Notices tell an in-process watcher (the dashboard, package internal/dashboard) that something of a
// merchant changed, so that it can re-read what it shows instead of polling. They are hints, not a
// log: the watcher reads the state through the inspection methods (inspect.go) afterwards.
//
// Publishing happens on the API's paths (under a merchant's lock, in the dispatcher), so it must never
// wait for a watcher: a slow browser must not slow the API. Each subscriber has a buffered channel and
// a notice that does not fit is dropped. Dropping loses nothing a watcher needs: a full buffer means
// notices are still waiting, and the re-read that the next of them triggers happens after the dropped
// change, so it sees it.

// NoticeKind says what changed.
type NoticeKind string

// The kinds of notice.
const (
	// NoticeRequest: a request that may change state (not a GET) was answered: a payment or payout
	// created, an endpoint changed, a settle, a resend.
	NoticeRequest NoticeKind = "request"
	// NoticeEvent: a status change was recorded as an event.
	NoticeEvent NoticeKind = "event"
	// NoticeAttempt: a webhook delivery attempt was recorded.
	NoticeAttempt NoticeKind = "attempt"
)

// Notice is one change of one merchant's state.
type Notice struct {
	Kind NoticeKind `json:"kind"`
	// Merchant is the public key of the merchant whose state changed.
	Merchant string `json:"-"`
	// ID names what changed when there is one thing: the event id (event, attempt).
	ID string `json:"id,omitempty"`
}

// notifier fans notices out to subscribers without ever blocking the publisher.
type notifier struct {
	mu   sync.Mutex
	subs map[chan Notice]struct{}
}

func (n *notifier) publish(nt Notice) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for ch := range n.subs {
		select {
		case ch <- nt:
		default: // full: a notice is waiting already, and the re-read it triggers will see this change
		}
	}
}

// Subscribe returns a channel of notices (buffer is its capacity, at least 1) and a function that
// ends the subscription. Read the channel promptly: notices that do not fit are dropped (see above).
func (s *Server) Subscribe(buffer int) (<-chan Notice, func()) {
	ch := make(chan Notice, max(buffer, 1))
	n := &s.notices
	n.mu.Lock()
	if n.subs == nil {
		n.subs = map[chan Notice]struct{}{}
	}
	n.subs[ch] = struct{}{}
	n.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			n.mu.Lock()
			delete(n.subs, ch)
			n.mu.Unlock()
		})
	}
}
