package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// WithDataDir keeps the sandbox's state in dir (created if need be) so that it survives a restart:
// merchants' objects, idempotency keys, events and the outbox of webhook deliveries not yet finished
// (persist.go). Without it everything is in memory and gone when the process ends. Two sandboxes
// cannot share a directory: the second fails to start.
func WithDataDir(dir string) Option {
	return func(c *config) {
		if dir == "" {
			c.errs = append(c.errs, fmt.Errorf("WithDataDir: the directory must not be empty"))
			return
		}
		c.dataDir = dir
	}
}

// DataDirError is why New could not use the directory WithDataDir names: in use by another sandbox,
// unreadable, or not a sandbox's data. It is the environment's fault, not the options'.
type DataDirError struct{ Err error }

func (e *DataDirError) Error() string { return e.Err.Error() }
func (e *DataDirError) Unwrap() error { return e.Err }

// openData opens the data directory and reports whether it holds a sandbox's state already (then the
// seed data is not added: it is in the file, as the merchant left it).
func (s *Server) openData() (initialized bool, err error) {
	d, err := openDiskStore(s.cfg.dataDir)
	if err != nil {
		return false, &DataDirError{err}
	}
	s.disk = d
	_ = d.db.View(func(tx *bolt.Tx) error {
		initialized = tx.Bucket(bucketMeta).Get(keyInitialized) != nil
		return nil
	})
	return initialized, nil
}

// loadData brings the sandbox to the state of its data directory, once the merchants and the
// dispatcher exist: on the first start the seed data is written to it, on later ones everything is
// read back, settlements still due are scheduled again and the outbox is queued again. It runs in New
// before the server is returned, so no request touches the sandbox yet.
func (s *Server) loadData(initialized bool) error {
	if !initialized {
		if err := s.saveEverything(); err != nil {
			return &DataDirError{fmt.Errorf("write the data directory %s: %w", s.cfg.dataDir, err)}
		}
		return nil
	}
	if err := s.restore(); err != nil {
		return &DataDirError{fmt.Errorf("read the data directory %s: %w (move it away to start afresh)", s.cfg.dataDir, err)}
	}
	return nil
}

// saveEverything writes the state a fresh sandbox starts with (the seed data) and marks the file
// initialized, so that the next start reads it instead of seeding again.
func (s *Server) saveEverything() error {
	var ops []op
	for _, m := range s.merchants {
		for _, p := range m.payments {
			ops = append(ops, paymentOp(m, p))
		}
		for _, p := range m.payouts {
			ops = append(ops, payoutOp(m, p))
		}
		for _, id := range m.endpointOrder {
			ops = append(ops, endpointOp(m, m.endpoints[id]))
		}
		ops = append(ops, endpointOrderOp(m))
	}
	all, _ := s.events.list(eventQuery{})
	for _, ev := range all {
		ops = append(ops, op{bucketEvents, seqKey(ev.Seq), mustJSON(ev)})
	}
	ops = append(ops, op{bucketMeta, keyInitialized, []byte(time.Now().UTC().Format(time.RFC3339))})
	return s.disk.write(ops...).wait()
}

// restore reads the data file into the (unseeded) merchants, the event log and the dispatcher.
// Objects of merchants no longer configured stay on disk untouched.
func (s *Server) restore() error {
	byKey := map[string]*merchant{}
	for _, m := range s.merchants {
		byKey[m.publicKey] = m
	}
	split := func(k []byte) (*merchant, string) {
		i := bytes.IndexByte(k, 0)
		if i < 0 {
			return nil, ""
		}
		return byKey[string(k[:i])], string(k[i+1:])
	}
	now := time.Now()
	var expired [][]byte
	var outbox []*delivery
	var maxOutbox uint64
	type settlement struct {
		in time.Duration
		fn func()
	}
	var due []settlement // armed once everything is read: a settlement must not race the reading
	err := s.disk.db.View(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketPayments).ForEach(func(k, v []byte) error {
			m, _ := split(k)
			if m == nil {
				return nil
			}
			var rec paymentRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("payment %q: %w", k, err)
			}
			p := m.arena.payment(Payment{Payment: rec.Payment, seeded: rec.Seeded})
			m.payments[p.PaymentReference] = p
			if p.Reference != "" {
				m.references[p.Reference] = p.PaymentReference
			}
			if p.Status == api.PaymentStatusProcessing {
				due = append(due, settlement{dueIn(p.UpdatedAt, s.cfg.timings.PromptDelay, now), func() { s.settlePayment(m, p) }})
			}
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketPayouts).ForEach(func(k, v []byte) error {
			m, _ := split(k)
			if m == nil {
				return nil
			}
			var rec payoutRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("payout %q: %w", k, err)
			}
			s.shareReferenceStrings(&rec.Payout)
			p := m.arena.payout(Payout{Payout: rec.Payout, seeded: rec.Seeded})
			m.payouts[p.PayoutID] = p
			if p.Reference != "" {
				m.references[p.Reference] = p.PayoutID
			}
			if p.Status == api.PayoutStatusProcessing {
				due = append(due, settlement{dueIn(p.CreatedAt, s.cfg.timings.PayoutDelay, now), func() { s.settlePayout(m, p) }})
			}
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketEndpoints).ForEach(func(k, v []byte) error {
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
			m.endpoints[e.ID] = e
			return nil
		}); err != nil {
			return err
		}
		for _, m := range s.merchants {
			if v := tx.Bucket(bucketOrder).Get([]byte(m.publicKey)); v != nil {
				var order []string
				if err := json.Unmarshal(v, &order); err != nil {
					return fmt.Errorf("webhook endpoint order: %w", err)
				}
				m.endpointOrder = slices.DeleteFunc(order, func(id string) bool { return m.endpoints[id] == nil })
			}
		}
		if err := s.restoreIdempotency(tx, split, now, &expired); err != nil {
			return err
		}
		if err := s.restoreEvents(tx); err != nil {
			return err
		}
		return tx.Bucket(bucketOutbox).ForEach(func(k, v []byte) error {
			var rec outboxRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("outbox entry: %w", err)
			}
			if len(k) == 16 {
				maxOutbox = max(maxOutbox, binary.BigEndian.Uint64(k[8:]))
			}
			m := byKey[rec.Merchant]
			if m == nil {
				s.log.Warn("webhook owed to a merchant no longer configured stays in the outbox", "event_id", rec.Event.ID)
				return nil
			}
			outbox = append(outbox, &delivery{event: rec.Event, merchant: m, endpointID: rec.EndpointID, url: rec.URL,
				resend: rec.Resend, chosen: rec.Chosen, outboxKey: bytes.Clone(k)})
			return nil
		})
	})
	if err != nil {
		return err
	}
	s.disk.outboxSeq.Store(maxOutbox)
	for _, d := range due {
		s.after(d.in, d.fn)
	}
	if len(expired) > 0 {
		ops := make([]op, len(expired))
		for i, k := range expired {
			ops[i] = op{bucketIdem, k, nil}
		}
		s.disk.write(ops...)
	}
	// The outbox's keys start with the event's number, so this is emission order: every object's
	// events reach each receiver in the order they happened, as before the restart.
	for _, del := range outbox {
		s.disp.enqueue(del)
	}
	if len(outbox) > 0 {
		s.log.Info("webhooks owed before the restart are queued again", "deliveries", len(outbox))
	}
	return nil
}

// dueIn is how long until a simulated change that was due delay after since happens: at once when it
// is overdue.
func dueIn(since time.Time, delay time.Duration, now time.Time) time.Duration {
	return max(since.Add(delay).Sub(now), 0)
}

func (rec *endpointRecord) endpoint() (*endpoint, error) {
	secret, err := webhook.ParseSecret(rec.Secret)
	if err != nil {
		return nil, err
	}
	e := &endpoint{WebhookEndpoint: rec.Endpoint, secret: secret, seeded: rec.Seeded}
	for _, p := range rec.Previous {
		ps, err := webhook.ParseSecret(p.Secret)
		if err != nil {
			return nil, err
		}
		e.previous = append(e.previous, previousSecret{ps, p.Expires})
	}
	return e, nil
}

// restoreIdempotency reads the stored first responses that have not expired, in order of expiry as
// the sweep needs them; the expired ones are collected for deletion.
func (s *Server) restoreIdempotency(tx *bolt.Tx, split func([]byte) (*merchant, string), now time.Time, expired *[][]byte) error {
	byMerchant := map[*merchant][]restoredKey{}
	err := tx.Bucket(bucketIdem).ForEach(func(k, v []byte) error {
		m, scoped := split(k)
		if m == nil {
			return nil
		}
		var rec idemRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("idempotency key: %w", err)
		}
		if !now.Before(rec.Expires) {
			*expired = append(*expired, bytes.Clone(k))
			return nil
		}
		kept := restoredKey{scoped: scoped, resp: response{status: rec.Status, json: rec.JSON, header: rec.Header, body: rec.Body}, expires: rec.Expires}
		copy(kept.fingerprint[:], rec.Fingerprint)
		byMerchant[m] = append(byMerchant[m], kept)
		return nil
	})
	if err != nil {
		return err
	}
	for m, keys := range byMerchant {
		// The store keeps its records in order of expiry.
		sort.SliceStable(keys, func(i, j int) bool { return keys[i].expires.Before(keys[j].expires) })
		for _, k := range keys {
			m.idem.add(k.scoped, k.fingerprint, &k.resp, k.expires.UnixNano())
		}
	}
	return nil
}

// restoredKey is a stored first response read back from disk.
type restoredKey struct {
	scoped      string
	fingerprint [sha256.Size]byte
	resp        response
	expires     time.Time
}

// restoreEvents replaces the event log with the one on disk, numbers included, so that cursors
// handed out before the restart still work.
func (s *Server) restoreEvents(tx *bolt.Tx) error {
	st := newEventStore(maxEventLog, maxAttemptLog)
	c := tx.Bucket(bucketEvents).Cursor()
	k, _ := c.Last()
	if k == nil {
		s.events = st
		return nil
	}
	// Start at most maxEventLog before the last one: what the log keeps.
	last := binary.BigEndian.Uint64(k)
	first := uint64(1)
	if last > maxEventLog {
		first = last - maxEventLog + 1
	}
	for k, v := c.Seek(seqKey(first)); k != nil; k, v = c.Next() {
		var ev Event
		if err := json.Unmarshal(v, &ev); err != nil {
			return fmt.Errorf("event %d: %w", binary.BigEndian.Uint64(k), err)
		}
		if len(st.events.buf) == 0 {
			st.events.next = ev.Seq
		}
		if ev.Seq != st.events.next {
			return fmt.Errorf("event %d follows event %d: the log has a gap", ev.Seq, st.events.next-1)
		}
		st.add(ev)
	}
	s.events = st
	return nil
}
