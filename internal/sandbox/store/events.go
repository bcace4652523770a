package store

import (
	"bytes"
	"sort"
	"sync"
	"time"
)

// The event store keeps the events the sandbox emitted and the delivery attempts made for them, for
// inspection and for the event-log extension (events_api.go: list by type, object and time with a
// cursor, get one, list its attempts, resend). Its cost must not grow with the sandbox's history: a sandbox that has
// emitted a million events answers as fast as a fresh one. So every write is O(1) amortized and every
// read is O(log n) to find where it starts plus O(what it returns):
//
//   - events and attempts live in rings (seqRing) that keep the most recent ones; dropping the oldest
//     overwrites one slot instead of shifting the whole log, which is what made emit O(n) before;
//   - every event has a sequence number (Event.Seq), increasing in emission order: the cursor of a
//     listing and the key of the ring, so that finding an event by number is an index computation;
//   - indexes (postings) map a merchant, a merchant and type, a merchant and object, and an event id
//     (for its attempts) to the ascending sequence numbers they hold. Eviction is in sequence order, so
//     an evicted entry is always the first of each of its lists and leaves in O(1).
//
// The store has its own lock, taken for O(1) work on writes. Writers (emit) hold their merchant's lock
// too, which every request of the merchant needs; nothing slower than an append happens under it.

// Retention of the in-memory store: enough for a test run or a day of manual use, bounded so that a
// long-running sandbox under load keeps a flat memory profile.
const (
	MaxEventLog   = 10000
	MaxAttemptLog = 10000
)

// seqRing is an append-only log numbered from 1 that keeps its most recent retain entries. Entry seq
// lives in slot (seq-1) % retain, so appends, evictions and lookups by number are all O(1).
type seqRing[T any] struct {
	retain int
	buf    []T
	next   uint64 // the number the next entry gets
}

func newSeqRing[T any](retain int) seqRing[T] {
	return seqRing[T]{retain: max(retain, 1), next: 1}
}

// first is the number of the oldest entry kept (next when the ring is empty).
func (r *seqRing[T]) first() uint64 { return r.next - uint64(len(r.buf)) }

func (r *seqRing[T]) slot(seq uint64) int { return int((seq - 1) % uint64(r.retain)) }

// push appends v under the next number. When the ring is full the oldest entry makes room, and is
// returned so that the caller can drop it from its indexes.
func (r *seqRing[T]) push(v T) (seq uint64, evicted T, full bool) {
	seq = r.next
	r.next++
	if len(r.buf) < r.retain {
		r.buf = append(r.buf, v)
		return seq, evicted, false
	}
	i := r.slot(seq)
	evicted, r.buf[i] = r.buf[i], v
	return seq, evicted, true
}

// get returns the entry with number seq, if it is still kept. The pointer is valid until the next push.
func (r *seqRing[T]) get(seq uint64) (*T, bool) {
	if seq < r.first() || seq >= r.next {
		return nil, false
	}
	return &r.buf[r.slot(seq)], true
}

// postings is the ascending numbers of the kept entries under one index key. The evicted ones are a
// prefix (seqs[:head]), cut off when it reaches half the slice, so that dropping the oldest is O(1)
// amortized and a busy key does not keep its whole history's backing array.
type postings struct {
	seqs []uint64
	head int
}

func (p *postings) live() []uint64 { return p.seqs[p.head:] }

// dropOldest removes seq if it is the first kept number, and reports whether the list is now empty.
func (p *postings) dropOldest(seq uint64) (empty bool) {
	if p.head < len(p.seqs) && p.seqs[p.head] == seq {
		p.head++
	}
	if p.head == len(p.seqs) {
		return true
	}
	if p.head >= 32 && 2*p.head >= len(p.seqs) {
		n := copy(p.seqs, p.seqs[p.head:])
		p.seqs, p.head = p.seqs[:n], 0
	}
	return false
}

// index maps a key to its postings. A key whose last entry is evicted is deleted, so an index holds
// only what the ring holds: objects that were evicted leave nothing behind.
type index[K comparable] map[K]*postings

func (ix index[K]) add(k K, seq uint64) {
	p := ix[k]
	if p == nil {
		p = &postings{}
		ix[k] = p
	}
	p.seqs = append(p.seqs, seq)
}

func (ix index[K]) drop(k K, seq uint64) {
	if p := ix[k]; p != nil && p.dropOldest(seq) {
		delete(ix, k)
	}
}

func (ix index[K]) live(k K) []uint64 {
	if p := ix[k]; p != nil {
		return p.live()
	}
	return nil
}

// eventKey is an index key of the event store: the merchant alone (field ""), the merchant and an
// event type, or the merchant and an object id. The API is always one merchant's view, so every key
// starts with the merchant.
type eventKey struct {
	merchant string
	field    eventField
	value    string
}

type eventField uint8

const (
	byMerchant eventField = iota
	byType
	byObject
)

// eventStore is the indexed, bounded log of events and delivery attempts (see the top of this file).
type eventStore struct {
	mu          sync.RWMutex
	events      seqRing[Event]
	lastEmitted time.Time
	byID        map[string]uint64
	index       index[eventKey]

	attempts        seqRing[Attempt]
	attemptsByEvent index[string]
}

func newEventStore(eventRetain, attemptRetain int) *eventStore {
	return &eventStore{
		events:          newSeqRing[Event](eventRetain),
		byID:            map[string]uint64{},
		index:           index[eventKey]{},
		attempts:        newSeqRing[Attempt](attemptRetain),
		attemptsByEvent: index[string]{},
	}
}

func eventKeys(ev *Event) [3]eventKey {
	return [3]eventKey{
		{ev.MerchantPublicKey, byMerchant, ""},
		{ev.MerchantPublicKey, byType, ev.Type},
		{ev.MerchantPublicKey, byObject, ev.ObjectID},
	}
}

// add stores ev, numbers it and returns it as stored. Emitted is raised to the previous event's when
// it is earlier (two merchants' events stamped on two cores can arrive out of order by a few
// microseconds): Emitted never decreases along Seq, which is what lets a time range be found by binary
// search.
func (st *eventStore) add(ev Event) Event {
	st.mu.Lock()
	defer st.mu.Unlock()
	if ev.Emitted.Before(st.lastEmitted) {
		ev.Emitted = st.lastEmitted
	}
	st.lastEmitted = ev.Emitted
	ev.Seq = st.events.next
	_, old, full := st.events.push(ev)
	if full {
		delete(st.byID, old.ID)
		for _, k := range eventKeys(&old) {
			st.index.drop(k, old.Seq)
		}
	}
	st.byID[ev.ID] = ev.Seq
	for _, k := range eventKeys(&ev) {
		st.index.add(k, ev.Seq)
	}
	return ev
}

// event returns the event with id, if it is still kept.
func (st *eventStore) event(id string) (Event, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	seq, ok := st.byID[id]
	if !ok {
		return Event{}, false
	}
	ev, _ := st.events.get(seq)
	return *ev, true
}

// EventQuery selects a page of one merchant's events. Merchant "" means every merchant; it scans the
// whole ring and is meant for inspection, not for a request path.
type EventQuery struct {
	Merchant string
	Type     string // "" any
	ObjectID string // "" any
	// Since and Until bound Emitted to [Since, Until); zero values leave that end open.
	Since, Until time.Time
	// Cursor continues a listing: the Seq of the last event of the previous page (0 starts afresh).
	// Ascending pages hold events after it, oldest first; descending pages events before it, newest
	// first. A cursor older than what is kept continues with the oldest event kept.
	Cursor     uint64
	Descending bool
	// Limit caps the page; 0 or less means no cap.
	Limit int
}

// list returns a page of the events q selects and whether more follow it. It walks the shortest
// index list that q's filters name, from a position found by binary search, so its cost is
// O(log n + the events it looks at), independent of the rest of the history.
func (st *eventStore) list(q EventQuery) (page []Event, more bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	seqs := st.candidates(q)
	// [lo, hi) of seqs is what the cursor and the time range allow; both are monotone along seqs.
	at := func(i int) *Event { ev, _ := st.events.get(seqs[i]); return ev }
	lo, hi := 0, len(seqs)
	if q.Cursor != 0 && !q.Descending {
		lo = sort.Search(len(seqs), func(i int) bool { return seqs[i] > q.Cursor })
	}
	if q.Cursor != 0 && q.Descending {
		hi = sort.Search(len(seqs), func(i int) bool { return seqs[i] >= q.Cursor })
	}
	if !q.Since.IsZero() {
		lo = max(lo, sort.Search(len(seqs), func(i int) bool { return !at(i).Emitted.Before(q.Since) }))
	}
	if !q.Until.IsZero() {
		hi = min(hi, sort.Search(len(seqs), func(i int) bool { return !at(i).Emitted.Before(q.Until) }))
	}
	if lo >= hi {
		return nil, false // an empty range: created_after later than created_before, or a cursor past it
	}
	step, i, end := 1, lo, hi
	if q.Descending {
		step, i, end = -1, hi-1, lo-1
	}
	for ; i != end; i += step {
		ev := at(i)
		if (q.Type != "" && ev.Type != q.Type) || (q.ObjectID != "" && ev.ObjectID != q.ObjectID) ||
			(q.Merchant != "" && ev.MerchantPublicKey != q.Merchant) {
			continue
		}
		if q.Limit > 0 && len(page) == q.Limit {
			return page, true
		}
		page = append(page, *ev)
	}
	return page, false
}

// candidates returns the ascending numbers q has to look at: the shortest index list its filters
// name, or every kept number when it names no merchant.
func (st *eventStore) candidates(q EventQuery) []uint64 {
	if q.Merchant == "" {
		all := make([]uint64, 0, len(st.events.buf))
		for seq := st.events.first(); seq < st.events.next; seq++ {
			all = append(all, seq)
		}
		return all
	}
	best := st.index.live(eventKey{q.Merchant, byMerchant, ""})
	for _, k := range []eventKey{{q.Merchant, byType, q.Type}, {q.Merchant, byObject, q.ObjectID}} {
		if k.value == "" {
			continue
		}
		if l := st.index.live(k); len(l) < len(best) {
			best = l
		} else if l == nil {
			return nil // nothing has this type or object
		}
	}
	return best
}

// addAttempt stores a delivery attempt and returns its number; an event's attempts stay listable
// while they are kept.
func (st *eventStore) addAttempt(att Attempt) uint64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	seq, old, full := st.attempts.push(att)
	if full {
		st.attemptsByEvent.drop(old.EventID, seq-uint64(st.attempts.retain))
	}
	st.attemptsByEvent.add(att.EventID, seq)
	return seq
}

// attemptsOf returns the kept attempts of the event with id, oldest first; "" returns every kept
// attempt.
func (st *eventStore) attemptsOf(eventID string) []Attempt {
	st.mu.RLock()
	defer st.mu.RUnlock()
	if eventID == "" {
		out := make([]Attempt, 0, len(st.attempts.buf))
		for seq := st.attempts.first(); seq < st.attempts.next; seq++ {
			a, _ := st.attempts.get(seq)
			out = append(out, *a)
		}
		return out
	}
	seqs := st.attemptsByEvent.live(eventID)
	out := make([]Attempt, 0, len(seqs))
	for _, seq := range seqs {
		a, _ := st.attempts.get(seq)
		out = append(out, *a)
	}
	return out
}

// cloneBodies gives each event a body of its own, so that callers cannot change the store's bytes.
// The store never changes a body once added, so this runs after the lock is released.
func cloneBodies(evs []Event) []Event {
	for i := range evs {
		evs[i].Body = bytes.Clone(evs[i].Body)
	}
	return evs
}

// replaceEvents takes the events (numbers and indexes) of loaded, keeping the attempts.
func (st *eventStore) replaceEvents(loaded *eventStore) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.events, st.lastEmitted, st.byID, st.index = loaded.events, loaded.lastEmitted, loaded.byID, loaded.index
}
