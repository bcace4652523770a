// Package store is the sandbox's state behind one seam: merchants' payments, payouts, webhook
// endpoints, idempotency keys and delivery failures, the event log, delivery attempts and the outbox
// of webhook deliveries not yet finished. Every change goes through a Tx: in memory (New) it changes
// the in-memory indexes and nothing else; with a data directory (Open) the same call also writes the
// change to a bbolt file, and Tx.Commit hands the whole Tx to the journal as one group, committed in
// one bbolt transaction (journal.go). So a change is durable when the store is, without its caller
// saving anything, and a request's changes (an object and its Idempotency-Key's response, a status
// change, its event and its deliveries) reach the disk together or not at all. Load reads the file
// back through the same code that stores a new object, so what a restart rebuilds (indexes, reference
// claims) is derived in one place; payments and payouts share that code too (kinds.go).
//
// What the store hands out is the caller's: copies, or strings whose bytes never change (arena.go),
// so nothing a handler, a Rules wrapper or a hook holds is ever overwritten under it.
//
// Its memory is shaped for a sandbox that has stored a million objects: payments and payouts in an
// arena (arena.go), idempotency keys in a pointer-free store (idem.go), events and attempts in
// bounded, indexed rings (events.go), so that the garbage collector's work does not grow with the
// history.
package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Store is the sandbox's state. Merchants are added before Load; each merchant's calls are
// serialized by the caller (the sandbox's merchant lock), the event log and the outbox have locks of
// their own.
type Store struct {
	j         *journal // nil in memory
	events    *eventStore
	merchants map[string]*Merchant
	outboxSeq atomic.Uint64 // tells apart outbox entries of one event (resends, several destinations)
	intern    func(*api.Payout)
}

// New returns an empty in-memory store.
func New() *Store {
	return &Store{events: newEventStore(MaxEventLog, MaxAttemptLog), merchants: map[string]*Merchant{}}
}

// OpenOption changes how Open opens a store.
type OpenOption func(*journal)

// LoseWritesAfter is for tests of crash recovery: from the first Tx whose writes lose reports true,
// nothing more reaches the file, as if the process had been killed just before that Tx was committed
// (the caller goes on believing its writes are durable).
func LoseWritesAfter(lose func(buckets []string) bool) OpenOption {
	return func(j *journal) {
		j.lose = func(ops []op) bool {
			names := make([]string, len(ops))
			for i, o := range ops {
				names[i] = string(o.bucket)
			}
			return lose(names)
		}
	}
}

// Open opens the durable store in dir (created if need be). initialized reports whether the file
// holds a sandbox's state already: then Load reads it; otherwise the caller adds its initial state
// through Tx and calls MarkInitialized. A directory in use by another store is refused.
func Open(dir string, opts ...OpenOption) (st *Store, initialized bool, err error) {
	j, err := openJournal(dir)
	if err != nil {
		return nil, false, err
	}
	for _, o := range opts {
		o(j)
	}
	st = New()
	st.j = j
	_ = j.db.View(func(tx *bolt.Tx) error {
		initialized = tx.Bucket(bucketMeta).Get(keyInitialized) != nil
		return nil
	})
	return st, initialized, nil
}

// Durable reports whether changes are written to a data directory.
func (st *Store) Durable() bool { return st.j != nil }

// Close writes what is queued and closes the data file (nothing in memory).
func (st *Store) Close() error {
	if st.j == nil {
		return nil
	}
	return st.j.close()
}

// Sync returns once everything committed so far is durable.
func (st *Store) Sync() error {
	if st.j == nil {
		return nil
	}
	return st.j.write(nil).Wait()
}

// InternPayouts makes the store replace the strings a payout shares with many others (its country,
// bank, kind of transfer) with intern's, equal in value, when it stores a payout: a million payouts
// holding a million copies of "ctry_zm" is memory and collector work for nothing.
func (st *Store) InternPayouts(intern func(*api.Payout)) { st.intern = intern }

// Tx is one change: what its calls change is visible at once in memory, and its writes reach the
// data file together when it is committed. The caller commits it under the lock that ordered the
// change, so that the file sees changes in the order memory did.
type Tx struct {
	st   *Store
	ops  []op
	then []func(Commit)
}

// Begin starts a change.
func (st *Store) Begin() *Tx { return &Tx{st: st} }

// durable reports whether the Tx writes anything; callers skip encoding records in memory.
func (tx *Tx) durable() bool { return tx.st.j != nil }

func (tx *Tx) put(bucket, key []byte, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("store: encode %T for the data file: %v", v, err)) // only plain data is stored
	}
	tx.ops = append(tx.ops, op{bucket, key, b})
}

func (tx *Tx) del(bucket, key []byte) { tx.ops = append(tx.ops, op{bucket, key, nil}) }

// Then runs f once the Tx is committed, with its Commit, before Commit returns: what must not start
// before the change is handed to the journal (a delivery's first attempt) starts there.
func (tx *Tx) Then(f func(Commit)) { tx.then = append(tx.then, f) }

// Commit hands the Tx's writes to the journal as one group and returns it (the zero Commit when it
// wrote nothing). The Tx is empty afterwards and may be used again.
func (tx *Tx) Commit() Commit {
	var c Commit
	if tx.st.j != nil && len(tx.ops) > 0 {
		c = tx.st.j.write(tx.ops)
	}
	then := tx.then
	tx.ops, tx.then = nil, nil
	for _, f := range then {
		f(c)
	}
	return c
}

// MarkInitialized records that the data file holds a sandbox's state, so that the next Open reports
// it initialized and its caller loads instead of seeding.
func (tx *Tx) MarkInitialized(at time.Time) {
	if tx.durable() {
		tx.ops = append(tx.ops, op{bucketMeta, keyInitialized, []byte(at.UTC().Format(time.RFC3339))})
	}
}

// AddEvent numbers ev, adds it to the event log and returns it as stored.
func (st *Store) AddEvent(tx *Tx, ev Event) Event {
	ev = st.events.add(ev)
	if tx.durable() {
		tx.put(bucketEvents, seqKey(ev.Seq), ev)
		if ev.Seq > MaxEventLog {
			tx.del(bucketEvents, seqKey(ev.Seq-MaxEventLog)) // what the log's retention just dropped
		}
	}
	return ev
}

// Event returns the event with id, if it is still kept.
func (st *Store) Event(id string) (Event, bool) {
	ev, ok := st.events.event(id)
	ev.Body = bytes.Clone(ev.Body)
	return ev, ok
}

// Events returns a page of the events q selects and whether more follow it (events.go).
func (st *Store) Events(q EventQuery) ([]Event, bool) {
	page, more := st.events.list(q)
	return cloneBodies(page), more
}

// Attempts returns the kept attempts of the event with id, oldest first; "" returns every kept
// attempt.
func (st *Store) Attempts(eventID string) []Attempt { return st.events.attemptsOf(eventID) }

// Enqueue puts d in the outbox: it stays there, and is handed back by Load, until Attempted reports
// its final attempt or Finish drops it. It sets d.Key.
func (st *Store) Enqueue(tx *Tx, d *Delivery) {
	if !tx.durable() {
		return
	}
	d.Key = binary.BigEndian.AppendUint64(seqKey(d.Event.Seq), st.outboxSeq.Add(1))
	tx.put(bucketOutbox, d.Key, d)
}

// Attempted records attempt att of d: it joins the attempt log, and d leaves the outbox when the
// attempt is final, or else remembers how many attempts were made and that the next is due at next,
// so that a restart continues the schedule instead of starting it again. Nothing waits for the write:
// were it lost, the attempt would be made once more, which at-least-once allows.
func (st *Store) Attempted(d *Delivery, att Attempt, next time.Time) {
	seq := st.events.addAttempt(att)
	if st.j == nil {
		return
	}
	tx := st.Begin()
	tx.put(bucketAttempts, seqKey(seq), att)
	if seq > MaxAttemptLog {
		tx.del(bucketAttempts, seqKey(seq-MaxAttemptLog))
	}
	d.Attempts, d.NextAt = att.Number, next
	if d.Key != nil {
		if att.Final {
			tx.del(bucketOutbox, d.Key)
		} else {
			tx.put(bucketOutbox, d.Key, d)
		}
	}
	tx.Commit()
}

// Finish takes d out of the outbox without an attempt (its endpoint went away, a hook dropped it).
func (st *Store) Finish(d *Delivery) {
	if st.j == nil || d.Key == nil {
		return
	}
	tx := st.Begin()
	tx.del(bucketOutbox, d.Key)
	tx.Commit()
}
