package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Loaded is what a restart owes besides the state Load put back: the objects whose simulated change
// is still to come, and the deliveries not yet finished, in event order.
type Loaded struct {
	Pending []Pending
	Outbox  []Delivery
	// Orphans counts outbox entries of merchants no longer configured; they stay in the file.
	Orphans int
}

// Pending is a processing payment or payout of a merchant: its simulated change is still to come.
type Pending struct {
	Merchant string
	Payment  *Payment
	Payout   *Payout
}

// Load reads the data file into the store's merchants (added before) and its event and attempt logs,
// through the code that stores a new object, so that the indexes and reference claims are derived as
// they were the first time. Objects of merchants no longer configured stay in the file untouched; keys
// and delivery failures expired at now are deleted from it.
func (st *Store) Load(now time.Time) (Loaded, error) {
	var out Loaded
	if st.j == nil {
		return out, nil
	}
	split := func(k []byte) (*Merchant, string) {
		i := bytes.IndexByte(k, 0)
		if i < 0 {
			return nil, ""
		}
		return st.merchants[string(k[:i])], string(k[i+1:])
	}
	cleanup := st.Begin()
	none := st.Begin() // loading writes nothing: what is read is in the file already
	none.st = New()
	var maxOutbox uint64
	err := st.j.db.View(func(btx *bolt.Tx) error {
		if err := loadObjects(btx, split, &paymentKind, none, &out); err != nil {
			return err
		}
		if err := loadObjects(btx, split, &payoutKind, none, &out); err != nil {
			return err
		}
		if err := st.loadEndpoints(btx, split, none); err != nil {
			return err
		}
		if err := st.loadKeys(btx, split, now, cleanup); err != nil {
			return err
		}
		err := forEach(btx, bucketFailures, func(k, v []byte) error {
			m, _ := split(k)
			if m == nil {
				return nil
			}
			var f DeliveryFailure
			if err := json.Unmarshal(v, &f); err != nil {
				return fmt.Errorf("delivery failure %q: %w", k, err)
			}
			if !now.Before(f.Until) {
				cleanup.del(bucketFailures, bytes.Clone(k))
				return nil
			}
			m.failures = append(m.failures, f)
			return nil
		})
		if err != nil {
			return err
		}
		for _, m := range st.merchants {
			slices.SortStableFunc(m.failures, func(a, b DeliveryFailure) int { return a.CreatedAt.Compare(b.CreatedAt) })
		}
		if err := st.loadEvents(btx); err != nil {
			return err
		}
		if err := st.loadAttempts(btx); err != nil {
			return err
		}
		// The outbox's keys start with the event's number, so this is emission order: every object's
		// events reach each receiver in the order they happened, as before the restart.
		return forEach(btx, bucketOutbox, func(k, v []byte) error {
			var d Delivery
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("outbox entry: %w", err)
			}
			if len(k) == 16 {
				maxOutbox = max(maxOutbox, binary.BigEndian.Uint64(k[8:]))
			}
			if st.merchants[d.Merchant] == nil {
				out.Orphans++
				return nil
			}
			d.Key = bytes.Clone(k)
			out.Outbox = append(out.Outbox, d)
			return nil
		})
	})
	if err != nil {
		return Loaded{}, err
	}
	st.outboxSeq.Store(maxOutbox)
	cleanup.Commit()
	return out, nil
}

// loadObjects stores every object of k in the data file, of the merchants configured, through create (so
// the reference claims and indexes are derived as they were the first time), and adds the processing
// ones to out.Pending. none is a Tx that writes nothing: what is read is in the file already.
func loadObjects[T any](btx *bolt.Tx, split func([]byte) (*Merchant, string), k *kind[T], none *Tx, out *Loaded) error {
	return forEach(btx, k.bucket, func(key, v []byte) error {
		m, _ := split(key)
		if m == nil {
			return nil
		}
		o, err := k.decode(v)
		if err != nil {
			return fmt.Errorf("%s %q: %w", k.name, key, err)
		}
		stored, _, _ := create(none, m, k, o, ClaimReference)
		if p, ok := k.pending(&stored); ok {
			p.Merchant = m.publicKey
			out.Pending = append(out.Pending, p)
		}
		return nil
	})
}

func forEach(btx *bolt.Tx, bucket []byte, fn func(k, v []byte) error) error {
	return btx.Bucket(bucket).ForEach(fn)
}

func (st *Store) loadEndpoints(btx *bolt.Tx, split func([]byte) (*Merchant, string), none *Tx) error {
	err := forEach(btx, bucketEndpoints, func(k, v []byte) error {
		m, _ := split(k)
		if m == nil {
			return nil
		}
		var rec endpointRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("webhook endpoint %q: %w", k, err)
		}
		e, err := rec.endpoint()
		if err != nil {
			return fmt.Errorf("webhook endpoint %s: %w", rec.Endpoint.ID, err)
		}
		m.PutEndpoint(none, e)
		return nil
	})
	if err != nil {
		return err
	}
	for _, m := range st.merchants {
		v := btx.Bucket(bucketOrder).Get([]byte(m.publicKey))
		if v == nil {
			continue
		}
		var order []string
		if err := json.Unmarshal(v, &order); err != nil {
			return fmt.Errorf("webhook endpoint order: %w", err)
		}
		m.endpointOrder = slices.DeleteFunc(order, func(id string) bool { return m.endpoints[id] == nil })
	}
	return nil
}

// loadKeys reads the stored first responses that have not expired, in order of expiry as the sweep
// needs them; the expired ones are deleted from the file.
func (st *Store) loadKeys(btx *bolt.Tx, split func([]byte) (*Merchant, string), now time.Time, cleanup *Tx) error {
	type key struct {
		scoped  string
		run     KeyRun
		resp    Response
		expires time.Time
	}
	byMerchant := map[*Merchant][]key{}
	err := forEach(btx, bucketIdem, func(k, v []byte) error {
		m, scoped := split(k)
		if m == nil {
			return nil
		}
		var rec idemRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("idempotency key: %w", err)
		}
		if !now.Before(rec.Expires) {
			cleanup.del(bucketIdem, bytes.Clone(k))
			return nil
		}
		kept := key{scoped: scoped, resp: Response{Status: rec.Status, JSON: rec.JSON, Header: rec.Header, Body: rec.Body}, expires: rec.Expires}
		copy(kept.run.Fingerprint[:], rec.Fingerprint)
		byMerchant[m] = append(byMerchant[m], kept)
		return nil
	})
	if err != nil {
		return err
	}
	for m, keys := range byMerchant {
		sort.SliceStable(keys, func(i, j int) bool { return keys[i].expires.Before(keys[j].expires) })
		for _, k := range keys {
			m.idem.add(k.scoped, k.run.Fingerprint, &k.resp, k.expires.UnixNano())
		}
	}
	return nil
}

// loadEvents replaces the event log with the one on disk, numbers included, so that cursors handed
// out before the restart still work.
func (st *Store) loadEvents(btx *bolt.Tx) error {
	ev := newEventStore(MaxEventLog, MaxAttemptLog)
	c := btx.Bucket(bucketEvents).Cursor()
	k, _ := c.Last()
	if k == nil {
		return nil
	}
	last := binary.BigEndian.Uint64(k)
	first := uint64(1)
	if last > MaxEventLog {
		first = last - MaxEventLog + 1 // at most what the log keeps
	}
	for k, v := c.Seek(seqKey(first)); k != nil; k, v = c.Next() {
		var e Event
		if err := json.Unmarshal(v, &e); err != nil {
			return fmt.Errorf("event %d: %w", binary.BigEndian.Uint64(k), err)
		}
		if len(ev.events.buf) == 0 {
			ev.events.next = e.Seq
		}
		if e.Seq != ev.events.next {
			return fmt.Errorf("event %d follows event %d: the log has a gap", e.Seq, ev.events.next-1)
		}
		ev.add(e)
	}
	st.events.replaceEvents(ev)
	return nil
}

// loadAttempts puts the attempt log back, numbers included.
func (st *Store) loadAttempts(btx *bolt.Tx) error {
	c := btx.Bucket(bucketAttempts).Cursor()
	k, _ := c.Last()
	if k == nil {
		return nil
	}
	last := binary.BigEndian.Uint64(k)
	first := uint64(1)
	if last > MaxAttemptLog {
		first = last - MaxAttemptLog + 1
	}
	st.events.mu.Lock()
	defer st.events.mu.Unlock()
	for k, v := c.Seek(seqKey(first)); k != nil; k, v = c.Next() {
		var a Attempt
		if err := json.Unmarshal(v, &a); err != nil {
			return fmt.Errorf("delivery attempt %d: %w", binary.BigEndian.Uint64(k), err)
		}
		seq := binary.BigEndian.Uint64(k)
		if len(st.events.attempts.buf) == 0 {
			st.events.attempts.next = seq
		}
		if seq != st.events.attempts.next {
			return fmt.Errorf("delivery attempt %d follows attempt %d: the log has a gap", seq, st.events.attempts.next-1)
		}
		st.events.attempts.push(a)
		st.events.attemptsByEvent.add(a.EventID, seq)
	}
	return nil
}
