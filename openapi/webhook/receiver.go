package webhook

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// Receiver is the merchant's half of Standard Webhooks as an http.Handler middleware: it verifies
// every delivery before the wrapped handler sees it, and hands each event to the handler once.
//
//   - A delivery without a valid v1 signature from one of Verifier.Secrets, or whose webhook-timestamp
//     is outside Verifier.Tolerance (a replay, or a wrong clock), is answered 401 with a one-line
//     reason, and the handler is not called. A delivery signed by several secrets (a rotation) is
//     accepted when any one verifies.
//   - A delivery whose webhook-id the Store remembers (a redelivery of an event already handled:
//     delivery is at least once) is answered 200 without calling the handler again.
//   - Otherwise the handler runs, with the body exactly as received; when it answers 2xx the id is
//     remembered. A handler that fails (any other status) leaves the id unremembered, so the sender's
//     retry is handled afresh rather than acknowledged and lost.
//
// Concurrent deliveries of one id (a retry that overtakes a slow first attempt) are handled one after
// the other, so the second finds the id remembered. Bodies are bounded by MaxBodyBytes (413 beyond).
// Build it with NewReceiver and change its fields before it serves.
type Receiver struct {
	// Verifier holds the endpoint's current secrets (two during a rotation) and the tolerance.
	Verifier Verifier
	// Store remembers handled webhook-ids. It must be shared by every instance of the receiver that
	// serves one endpoint (a database table with a unique key, Redis): a MemoryStore only dedupes
	// what this process handled. Nil turns deduplication off.
	Store Store
	// MaxBodyBytes bounds a delivery's body; zero or less means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Handler handles each verified, first-seen delivery.
	Handler http.Handler

	mu       sync.Mutex
	inflight map[string]chan struct{} // ids being handled now, closed when done
}

// DefaultMaxBodyBytes bounds a delivery body when Receiver.MaxBodyBytes is not set: events are a few
// kilobytes, and an unbounded read lets anyone who can reach the URL exhaust memory before the
// signature is even checked.
const DefaultMaxBodyBytes = 1 << 20

// NewReceiver returns a Receiver that verifies deliveries with v and passes each event to next once,
// remembering handled ids in a MemoryStore with DefaultDedupeTTL and DefaultDedupeCapacity.
func NewReceiver(v Verifier, next http.Handler) *Receiver {
	return &Receiver{Verifier: v, Store: NewMemoryStore(DefaultDedupeTTL, DefaultDedupeCapacity), Handler: next}
}

// ServeHTTP verifies, dedupes and hands the delivery on (see Receiver).
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		plain(w, http.StatusMethodNotAllowed, "webhook deliveries are POST requests")
		return
	}
	limit := rc.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			plain(w, http.StatusRequestEntityTooLarge, "body larger than this receiver accepts")
			return
		}
		plain(w, http.StatusBadRequest, "could not read the body")
		return
	}
	if err := rc.Verifier.Verify(r.Header, body); err != nil {
		if errors.Is(err, ErrNoSecrets) {
			// The receiver is misconfigured, not the delivery forged: a 5xx makes the sender retry.
			plain(w, http.StatusInternalServerError, "receiver has no signing secret configured")
			return
		}
		plain(w, http.StatusUnauthorized, reason(err))
		return
	}
	id := r.Header.Get(HeaderID)
	release, err := rc.claim(r.Context(), id)
	if err != nil {
		plain(w, http.StatusServiceUnavailable, "a delivery of this webhook-id is still being handled; retry later")
		return
	}
	defer release()
	if rc.Store != nil {
		seen, err := rc.Store.Seen(r.Context(), id)
		if err != nil {
			plain(w, http.StatusServiceUnavailable, "could not check whether this webhook-id was handled; retry later")
			return
		}
		if seen {
			plain(w, http.StatusOK, "already handled")
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := &statusRecorder{ResponseWriter: w}
	rc.Handler.ServeHTTP(rec, r)
	if rc.Store != nil && rec.acknowledged() {
		// An error here cannot be answered any more; the worst outcome is one extra handling of a
		// redelivery, which at-least-once delivery requires the handler to survive anyway.
		_ = rc.Store.Remember(context.WithoutCancel(r.Context()), id)
	}
}

// claim waits until no other request is handling id, then marks it as being handled; release ends
// that. It fails only when ctx ends while waiting.
func (rc *Receiver) claim(ctx context.Context, id string) (release func(), err error) {
	for {
		rc.mu.Lock()
		if rc.inflight == nil {
			rc.inflight = map[string]chan struct{}{}
		}
		busy, ok := rc.inflight[id]
		if !ok {
			done := make(chan struct{})
			rc.inflight[id] = done
			rc.mu.Unlock()
			return func() {
				rc.mu.Lock()
				delete(rc.inflight, id)
				rc.mu.Unlock()
				close(done)
			}, nil
		}
		rc.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// reason is the one-line answer to a delivery that failed verification: the sentinel's text, which
// names the rule and carries nothing from the request.
func reason(err error) string {
	for _, s := range []error{ErrMissingHeader, ErrInvalidTimestamp, ErrTimestampTooOld, ErrTimestampTooNew, ErrNoMatchingSignature} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return "webhook: verification failed"
}

func plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}

// statusRecorder notes the status the handler answered.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer (Flush, deadlines).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// acknowledged reports whether the handler answered 2xx; one that wrote nothing answers 200.
func (s *statusRecorder) acknowledged() bool {
	return s.status == 0 || s.status >= 200 && s.status < 300
}

// Store remembers the webhook-ids a Receiver has handled. Seen is asked before the handler runs,
// Remember after it acknowledged the event; implementations must be safe for concurrent use.
type Store interface {
	// Seen reports whether id was remembered and has not expired.
	Seen(ctx context.Context, id string) (bool, error)
	// Remember records that the event id was handled.
	Remember(ctx context.Context, id string) error
}

// Defaults of NewReceiver's MemoryStore. A redelivery comes within the sender's retry span (minutes to
// hours) and a replay of an older capture fails the timestamp check, so a day is ample; the capacity
// bounds memory (about 100 bytes an id) whatever the traffic.
const (
	DefaultDedupeTTL      = 24 * time.Hour
	DefaultDedupeCapacity = 100_000
)

// MemoryStore is a Store in this process's memory: ids expire after a TTL, and beyond a capacity the
// oldest are forgotten first, so that memory stays bounded under any load. It suits one instance; a
// receiver run as several needs a shared Store.
type MemoryStore struct {
	ttl      time.Duration
	capacity int
	now      func() time.Time

	mu    sync.Mutex
	ids   map[string]*list.Element
	order *list.List // of memoryEntry, oldest first
}

type memoryEntry struct {
	id      string
	expires time.Time
}

// NewMemoryStore returns a MemoryStore that forgets an id ttl after it was remembered, or earlier when
// more than capacity ids are remembered. A ttl or capacity of zero or less takes the default.
func NewMemoryStore(ttl time.Duration, capacity int) *MemoryStore {
	if ttl <= 0 {
		ttl = DefaultDedupeTTL
	}
	if capacity <= 0 {
		capacity = DefaultDedupeCapacity
	}
	return &MemoryStore{ttl: ttl, capacity: capacity, now: time.Now, ids: map[string]*list.Element{}, order: list.New()}
}

// Seen reports whether id is remembered and not expired.
func (m *MemoryStore) Seen(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expire()
	_, ok := m.ids[id]
	return ok, nil
}

// Remember records id for the TTL, forgetting the oldest ids beyond the capacity.
func (m *MemoryStore) Remember(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expire()
	if el, ok := m.ids[id]; ok {
		m.order.Remove(el)
	}
	m.ids[id] = m.order.PushBack(memoryEntry{id: id, expires: m.now().Add(m.ttl)})
	for m.order.Len() > m.capacity {
		m.forget(m.order.Front())
	}
	return nil
}

// Len returns how many ids are remembered now.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expire()
	return m.order.Len()
}

// expire forgets the expired ids: they are the oldest, at the front, since every id gets the same TTL.
func (m *MemoryStore) expire() {
	now := m.now()
	for el := m.order.Front(); el != nil && !now.Before(el.Value.(memoryEntry).expires); el = m.order.Front() {
		m.forget(el)
	}
}

func (m *MemoryStore) forget(el *list.Element) {
	delete(m.ids, el.Value.(memoryEntry).id)
	m.order.Remove(el)
}
