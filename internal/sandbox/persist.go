package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// State that survives a restart (WithDataDir, `malipo sandbox --data DIR`). The sandbox keeps serving
// from memory exactly as without it; the disk is a write-ahead copy that is read once, at start:
//
//   - every state change is turned, where it happens and under the lock that orders it (the merchant's
//     m.mu), into a few key/value writes (ops) and handed to one writer goroutine, in order. So the
//     disk sees one object's changes in the order memory saw them (a payout's `processing` is never
//     written after its `success`), without a lock held across an fsync;
//   - the writer commits whatever has queued up in one bbolt transaction (one fsync): group commit,
//     which is what keeps a burst of creates fast on a disk that takes milliseconds per fsync;
//   - a request that created or changed something waits, before its response is written, until its
//     writes are durable: a 201 for an object a crash then loses would be a lie. The idempotency key's
//     stored response is written after the object, so when the key is durable the object is too;
//   - a webhook delivery is written to the outbox when it is queued and deleted when it is finished
//     (acknowledged, given up, or dropped because its endpoint went away). Its first attempt waits
//     until the outbox entry is durable, so no receiver ever sees an event a restart forgets. A
//     delivery abandoned at shutdown or by a crash stays in the outbox and is queued again at the next
//     start, from its first attempt: at least once, never lost.
//
// bbolt (go.etcd.io/bbolt) rather than SQLite: pure Go, one file, ACID with an fsync per commit, a
// file lock that refuses a second sandbox on the same directory, and a fraction of modernc SQLite's
// build time (the sandbox needs sorted keys and nothing a query language adds).

// Buckets of the data file. Objects are keyed by the merchant's public key and their id, so that the
// merchants configured at the next start find theirs.
var (
	bucketMeta      = []byte("meta")
	bucketPayments  = []byte("payments")
	bucketPayouts   = []byte("payouts")
	bucketEndpoints = []byte("endpoints")
	bucketOrder     = []byte("endpoint_order")
	bucketIdem      = []byte("idempotency")
	bucketEvents    = []byte("events")
	bucketOutbox    = []byte("outbox")
	allBuckets      = [][]byte{bucketMeta, bucketPayments, bucketPayouts, bucketEndpoints, bucketOrder, bucketIdem, bucketEvents, bucketOutbox}
	keyInitialized  = []byte("initialized")
)

// dataFileName is the database in the data directory.
const dataFileName = "sandbox.db"

// maxCommitOps bounds one group commit, so that a huge backlog is written in transactions of a
// reasonable size rather than one that holds every dirty page at once.
const maxCommitOps = 4096

// op is one write: value nil deletes key.
type op struct {
	bucket []byte
	key    []byte
	value  []byte
}

// commit names a group of ops handed to the writer: durable once the writer has committed every group
// up to seq. It is a value, not a channel per write, because an idempotency key keeps its commit for a
// day and a million keys must not keep a million channels. The zero commit (in memory, or nothing
// written) is durable already.
type commit struct {
	d   *diskStore
	seq uint64
}

// wait blocks until c is durable and returns why it is not, if writing failed.
func (c commit) wait() error {
	if c.d == nil {
		return nil
	}
	return c.d.waitFor(c.seq)
}

// batch is what the writer receives: ops and the number of their group.
type batch struct {
	ops []op
	seq uint64
}

// diskStore is the data directory's database and its writer.
type diskStore struct {
	db *bolt.DB

	sendMu sync.Mutex // numbers groups in the order they enter ch, and guards closed
	next   uint64
	closed bool
	ch     chan batch
	done   chan struct{}

	mu      sync.Mutex
	cond    *sync.Cond
	durable uint64 // every group up to it is committed
	broken  error  // the first failed commit: nothing after it is durable

	outboxSeq atomic.Uint64 // tells apart outbox entries of one event and destination (resends)
}

var errStoreClosed = errors.New("the data file is closed: the sandbox is shutting down")

// openDiskStore opens (creating it if need be) the database in dir. A second sandbox on the same
// directory fails here with a clear error instead of corrupting the first one's file.
func openDiskStore(dir string) (*diskStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the data directory: %w", err)
	}
	path := filepath.Join(dir, dataFileName)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("the data directory %s is in use by another malipo sandbox (%s is locked); stop that sandbox or choose another --data directory", dir, dataFileName)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w (remove the file to start afresh)", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("prepare %s: %w", path, err)
	}
	d := &diskStore{db: db, ch: make(chan batch, 1024), done: make(chan struct{})}
	d.cond = sync.NewCond(&d.mu)
	go d.run()
	return d, nil
}

// write queues ops behind every earlier write and returns their commit; the zero commit on a nil
// store (in memory).
func (d *diskStore) write(ops ...op) commit {
	if d == nil {
		return commit{}
	}
	d.sendMu.Lock()
	defer d.sendMu.Unlock()
	if d.closed {
		d.mu.Lock()
		if d.broken == nil {
			d.broken = errStoreClosed
		}
		d.mu.Unlock()
		return commit{d, ^uint64(0)} // never durable: waitFor reports the closed store
	}
	d.next++
	d.ch <- batch{ops, d.next}
	return commit{d, d.next}
}

// waitFor blocks until group seq is committed, or a commit failed.
func (d *diskStore) waitFor(seq uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for d.durable < seq && d.broken == nil {
		d.cond.Wait()
	}
	if d.durable >= seq {
		return nil
	}
	return d.broken
}

// run is the writer: it takes every group that is waiting, up to maxCommitOps ops, and writes them
// in one transaction.
func (d *diskStore) run() {
	defer close(d.done)
	for b := range d.ch {
		group := []batch{b}
		n := len(b.ops)
	more:
		for n < maxCommitOps {
			select {
			case next, ok := <-d.ch:
				if !ok {
					break more
				}
				group = append(group, next)
				n += len(next.ops)
			default:
				break more
			}
		}
		err := d.db.Update(func(tx *bolt.Tx) error {
			for _, b := range group {
				for _, o := range b.ops {
					bk := tx.Bucket(o.bucket)
					var err error
					if o.value == nil {
						err = bk.Delete(o.key)
					} else {
						err = bk.Put(o.key, o.value)
					}
					if err != nil {
						return err
					}
				}
			}
			return nil
		})
		d.mu.Lock()
		if err != nil && d.broken == nil {
			d.broken = fmt.Errorf("write the data file: %w", err)
		}
		if err == nil && d.broken == nil {
			d.durable = group[len(group)-1].seq
		}
		d.cond.Broadcast()
		d.mu.Unlock()
	}
}

// close writes what is queued and closes the file.
func (d *diskStore) close() error {
	if d == nil {
		return nil
	}
	d.sendMu.Lock()
	if d.closed {
		d.sendMu.Unlock()
		return nil
	}
	d.closed = true
	close(d.ch)
	d.sendMu.Unlock()
	<-d.done
	return d.db.Close()
}

// Records as stored. JSON: the wire types already encode themselves, and the file stays readable with
// any bbolt browser.

type paymentRecord struct {
	Payment api.Payment `json:"payment"`
	Seeded  bool        `json:"seeded,omitempty"`
}

type payoutRecord struct {
	Payout api.Payout `json:"payout"`
	Seeded bool       `json:"seeded,omitempty"`
}

// endpointRecord keeps the endpoint's signing secrets: a restarted sandbox must sign with the secret
// the merchant was given. The data directory is created readable by its owner only.
type endpointRecord struct {
	Endpoint api.WebhookEndpoint `json:"endpoint"`
	Secret   string              `json:"secret"`
	Previous []previousRecord    `json:"previous,omitempty"`
	Seeded   bool                `json:"seeded,omitempty"`
}

type previousRecord struct {
	Secret  string    `json:"secret"`
	Expires time.Time `json:"expires"`
}

type idemRecord struct {
	Fingerprint []byte      `json:"fingerprint"`
	Status      int         `json:"status"`
	JSON        bool        `json:"json,omitempty"`
	Header      http.Header `json:"header,omitempty"`
	Body        []byte      `json:"body,omitempty"`
	Expires     time.Time   `json:"expires"`
}

// outboxRecord is a delivery not yet finished, with its event: the event log's retention may drop
// the event before a long retry schedule ends.
type outboxRecord struct {
	Event      Event  `json:"event"`
	Merchant   string `json:"merchant"`
	EndpointID string `json:"endpoint_id,omitempty"`
	URL        string `json:"url"`
	Resend     bool   `json:"resend,omitempty"`
	Chosen     bool   `json:"chosen,omitempty"`
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("sandbox: encode %T for the data file: %v", v, err)) // only plain data is stored
	}
	return b
}

func merchantKey(m *merchant, id string) []byte { return []byte(m.publicKey + "\x00" + id) }

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

func paymentOp(m *merchant, p *Payment) op {
	return op{bucketPayments, merchantKey(m, p.PaymentReference), mustJSON(paymentRecord{p.Payment, p.seeded})}
}

func payoutOp(m *merchant, p *Payout) op {
	return op{bucketPayouts, merchantKey(m, p.PayoutID), mustJSON(payoutRecord{p.Payout, p.seeded})}
}

func endpointOp(m *merchant, e *endpoint) op {
	rec := endpointRecord{Endpoint: e.copyPublic(), Secret: e.secret.Reveal(), Seeded: e.seeded}
	for _, p := range e.previous {
		rec.Previous = append(rec.Previous, previousRecord{p.secret.Reveal(), p.expires})
	}
	return op{bucketEndpoints, merchantKey(m, e.ID), mustJSON(rec)}
}

func endpointOrderOp(m *merchant) op {
	return op{bucketOrder, []byte(m.publicKey), mustJSON(m.endpointOrder)}
}

// The Server's writes: each is a no-op returning nil in memory, and costs nothing there but the nil
// check. Callers hold m.mu where the change was made, so that the order of writes is the order of
// changes.

func (s *Server) savePayment(m *merchant, p *Payment) commit {
	if s.disk == nil {
		return commit{}
	}
	return s.disk.write(paymentOp(m, p))
}

func (s *Server) savePayout(m *merchant, p *Payout) commit {
	if s.disk == nil {
		return commit{}
	}
	return s.disk.write(payoutOp(m, p))
}

func (s *Server) saveEndpoint(m *merchant, e *endpoint, orderChanged bool) commit {
	if s.disk == nil {
		return commit{}
	}
	if orderChanged {
		return s.disk.write(endpointOp(m, e), endpointOrderOp(m))
	}
	return s.disk.write(endpointOp(m, e))
}

func (s *Server) deleteEndpointRecord(m *merchant, id string) commit {
	if s.disk == nil {
		return commit{}
	}
	return s.disk.write(op{bucketEndpoints, merchantKey(m, id), nil}, endpointOrderOp(m))
}

func (s *Server) saveIdempotency(m *merchant, scoped string, fp [sha256.Size]byte, resp *response, expires time.Time) commit {
	if s.disk == nil {
		return commit{}
	}
	rec := idemRecord{Fingerprint: fp[:], Status: resp.status, JSON: resp.json, Header: resp.header, Body: resp.body, Expires: expires}
	return s.disk.write(op{bucketIdem, merchantKey(m, scoped), mustJSON(rec)})
}

// eventOps write an event and forget the one the event log's retention just dropped.
func (s *Server) eventOps(ev *Event) []op {
	ops := []op{{bucketEvents, seqKey(ev.Seq), mustJSON(ev)}}
	if ev.Seq > maxEventLog {
		ops = append(ops, op{bucketEvents, seqKey(ev.Seq - maxEventLog), nil})
	}
	return ops
}

// outboxOp is a delivery's outbox entry; it gives the delivery its key.
func (s *Server) outboxOp(del *delivery) op {
	del.outboxKey = binary.BigEndian.AppendUint64(seqKey(del.event.Seq), s.disk.outboxSeq.Add(1))
	rec := outboxRecord{Event: del.event, Merchant: del.merchant.publicKey, EndpointID: del.endpointID, URL: del.url, Resend: del.resend, Chosen: del.chosen}
	return op{bucketOutbox, del.outboxKey, mustJSON(rec)}
}

// saveOutbox writes a delivery queued on its own (a resend) to the outbox; its first attempt waits
// for the commit.
func (s *Server) saveOutbox(del *delivery) {
	if s.disk == nil {
		return
	}
	del.commit = s.disk.write(s.outboxOp(del))
}

// finishOutbox removes a finished delivery from the outbox. Nothing waits for it: were it lost, the
// delivery would be made once more after a restart, which at-least-once allows.
func (s *Server) finishOutbox(del *delivery) {
	if s.disk == nil || del.outboxKey == nil {
		return
	}
	s.disk.write(op{bucketOutbox, del.outboxKey, nil})
}
