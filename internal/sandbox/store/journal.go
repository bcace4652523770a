package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// The journal is the durable half of a Store: a bbolt file written by one goroutine. Every Tx is one
// group of key/value writes (ops), handed to the writer in the order the Tx were committed, which is
// the order of the changes (a Tx is committed under the lock that orders its changes). The writer
// commits whatever groups have queued up in one bbolt transaction (one fsync): group commit, which is
// what keeps a burst of creates fast on a disk that takes milliseconds per fsync. A group is never
// split across two transactions, so a Tx is all on disk or none of it is.
//
// bbolt (go.etcd.io/bbolt) rather than SQLite: pure Go, one file, ACID with an fsync per commit, a
// file lock that refuses a second sandbox on the same directory, and a fraction of modernc SQLite's
// build time (the store needs sorted keys and nothing a query language adds).

// FileName is the database in the data directory.
const FileName = "sandbox.db"

// maxCommitOps bounds one group commit, so that a huge backlog is written in transactions of a
// reasonable size rather than one that holds every dirty page at once (a group larger than it is
// still written whole).
const maxCommitOps = 4096

// op is one write: value nil deletes key.
type op struct {
	bucket []byte
	key    []byte
	value  []byte
}

// Commit names a Tx handed to the journal: durable once the writer has committed every group up to
// seq. It is a value, not a channel per write, because an idempotency key keeps its commit for a day
// and a million keys must not keep a million channels. The zero Commit (in memory, or nothing
// written) is durable already.
type Commit struct {
	j   *journal
	seq uint64
}

// Wait blocks until c is durable and returns why it is not, if writing failed.
func (c Commit) Wait() error {
	if c.j == nil {
		return nil
	}
	return c.j.waitFor(c.seq)
}

// batch is what the writer receives: one Tx's ops and the number of their group.
type batch struct {
	ops []op
	seq uint64
}

// journal is the data directory's database and its writer.
type journal struct {
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

	// lose, when set (tests of crash recovery), is asked before each group is committed; true drops
	// the group and every later one, as a crash at that point would.
	lose func(ops []op) bool
	lost bool
}

var errClosed = errors.New("the data file is closed: the sandbox is shutting down")

// openJournal opens (creating it if need be) the database in dir. A second sandbox on the same
// directory fails here with a clear error instead of corrupting the first one's file.
func openJournal(dir string) (*journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the data directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("the data directory %s is in use by another malipo sandbox (%s is locked); stop that sandbox or choose another --data directory", dir, FileName)
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
	j := &journal{db: db, ch: make(chan batch, 1024), done: make(chan struct{})}
	j.cond = sync.NewCond(&j.mu)
	go j.run()
	return j, nil
}

// write queues ops behind every earlier group and returns their commit.
func (j *journal) write(ops []op) Commit {
	j.sendMu.Lock()
	defer j.sendMu.Unlock()
	if j.closed {
		j.mu.Lock()
		if j.broken == nil {
			j.broken = errClosed
		}
		j.mu.Unlock()
		return Commit{j, ^uint64(0)} // never durable: waitFor reports the closed journal
	}
	j.next++
	j.ch <- batch{ops, j.next}
	return Commit{j, j.next}
}

// waitFor blocks until group seq is committed, or a commit failed.
func (j *journal) waitFor(seq uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.durable < seq && j.broken == nil {
		j.cond.Wait()
	}
	if j.durable >= seq {
		return nil
	}
	return j.broken
}

// run is the writer: it takes every group that is waiting, up to maxCommitOps ops, and writes them
// in one transaction.
func (j *journal) run() {
	defer close(j.done)
	for b := range j.ch {
		group := []batch{b}
		n := len(b.ops)
	more:
		for n < maxCommitOps {
			select {
			case next, ok := <-j.ch:
				if !ok {
					break more
				}
				group = append(group, next)
				n += len(next.ops)
			default:
				break more
			}
		}
		err := j.db.Update(func(tx *bolt.Tx) error {
			for _, b := range group {
				if j.lost || (j.lose != nil && j.lose(b.ops)) {
					j.lost = true
					return nil // the crash: this group and every later one never reach the file
				}
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
		j.mu.Lock()
		if err != nil && j.broken == nil {
			j.broken = fmt.Errorf("write the data file: %w", err)
		}
		if err == nil && j.broken == nil {
			j.durable = group[len(group)-1].seq
		}
		j.cond.Broadcast()
		j.mu.Unlock()
	}
}

// close writes what is queued and closes the file.
func (j *journal) close() error {
	j.sendMu.Lock()
	if j.closed {
		j.sendMu.Unlock()
		return nil
	}
	j.closed = true
	close(j.ch)
	j.sendMu.Unlock()
	<-j.done
	return j.db.Close()
}
