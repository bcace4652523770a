package store

import (
	"bytes"
	"crypto/sha256"
	"hash/maphash"
	"net/http"
)

// idemStore holds one merchant's Idempotency-Keys: the keys whose first request is still running,
// and the first responses stored for replay until they expire. The caller holds the merchant's lock.
//
// A sandbox keeps a day of keys, which under load is a million of them or more, and the garbage
// collector visits every pointer of the live heap on every cycle. Kept as heap objects (the key's
// string, an entry, the body), a million keys made each collection of a long-running sandbox cost
// seconds of CPU, and its payout creates a third slower than a fresh sandbox's. So a stored key holds
// no pointer at all:
//
//   - the index maps a 128-bit keyed hash of the key (not the key itself, a string) to the number of
//     its record; a lookup checks the key against the copy kept with the record, so that two keys with
//     the same hash (which in practice never happens) still get each their own response, the second
//     through spill;
//   - records are pointer-free structs in a chunked queue, in the order they were stored, which is the
//     order they expire (every key lives IdempotencyTTL), so forgetting expired keys takes them from
//     the front, O(1) each;
//   - each record's key and body are copied into a byte log of large chunks, which are freed from the
//     front as the records that use them expire.
//
// The collector then sees a few thousand chunks where it saw millions of objects.
type idemStore struct {
	seeds   [2]maphash.Seed
	index   map[idemHash]uint64      // a stored key's hash → its record's number
	spill   map[string]uint64        // stored keys whose hash another live key already held
	running map[string]*KeyRun       // keys whose first request is still running
	headers map[uint64]http.Header   // the few stored responses with headers of their own (a 429's Retry-After)
	records chunkQueue[keptResponse] // in order of storing, which is the order of expiry
	bytes   byteLog                  // each record's key, then its body

	// hash is the index's hash; a test replaces it to force collisions.
	hash func(st *idemStore, key string) idemHash
}

type idemHash [2]uint64

// KeyRun is a key whose first request is running; the requests that come with the same key
// meanwhile wait for Done, then replay what it stored (or run themselves if it stored nothing).
type KeyRun struct {
	Fingerprint [sha256.Size]byte
	done        chan struct{}
}

// Done is closed when the first request has stored its response or given the key up.
func (r *KeyRun) Done() <-chan struct{} { return r.done }

// Response is a stored first response, as replayed.
type Response struct {
	Status int
	JSON   bool
	Header http.Header
	Body   []byte
}

// keptResponse is a stored first response. It must hold no pointer (TestKeptResponseHoldsNoPointer):
// that is the point of the store.
type keptResponse struct {
	fingerprint [sha256.Size]byte
	hash        idemHash
	expires     int64  // Unix nanoseconds
	written     uint64 // the data directory's write of the response (its commit's number; 0 in memory): a replay waits for it
	chunk       uint64 // where the key and body are in the byte log
	off         uint32
	keyLen      uint32
	bodyLen     uint32
	status      int32
	json        bool
	hasHeader   bool
}

func newIdemStore() *idemStore {
	return &idemStore{
		seeds:   [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		index:   map[idemHash]uint64{},
		spill:   map[string]uint64{},
		running: map[string]*KeyRun{},
		headers: map[uint64]http.Header{},
		records: newChunkQueue[keptResponse](idemRecordsPerChunk),
		hash:    (*idemStore).keyedHash,
	}
}

const (
	idemRecordsPerChunk = 1024
	idemByteChunk       = 64 << 10
)

func (st *idemStore) keyedHash(key string) idemHash {
	return idemHash{maphash.String(st.seeds[0], key), maphash.String(st.seeds[1], key)}
}

// find returns what the store knows of key at now (Unix nanoseconds): its running first request, or
// its stored response and that record's number, or neither. An expired response counts as none: the
// key is free again.
func (st *idemStore) find(key string, now int64) (run *KeyRun, kept *keptResponse, num uint64) {
	if run := st.running[key]; run != nil {
		return run, nil, 0
	}
	num, kept = st.stored(key)
	if kept == nil || now > kept.expires {
		return nil, nil, 0
	}
	return nil, kept, num
}

// stored returns the record that holds key, live or expired but not yet swept.
func (st *idemStore) stored(key string) (uint64, *keptResponse) {
	if num, ok := st.index[st.hash(st, key)]; ok {
		if kept := st.records.at(num); kept != nil && st.holds(kept, key) {
			return num, kept
		}
	}
	if num, ok := st.spill[key]; ok {
		return num, st.records.at(num)
	}
	return 0, nil
}

func (st *idemStore) keyOf(kept *keptResponse) string {
	return string(st.bytes.get(kept.chunk, kept.off, kept.keyLen))
}

// holds reports whether kept is key's record, without copying its key (every lookup asks).
func (st *idemStore) holds(kept *keptResponse, key string) bool {
	return string(st.bytes.get(kept.chunk, kept.off, kept.keyLen)) == key
}

// start records that the first request with key is running.
func (st *idemStore) start(key string, fp [sha256.Size]byte) *KeyRun {
	run := &KeyRun{Fingerprint: fp, done: make(chan struct{})}
	st.running[key] = run
	return run
}

// abandon forgets a running first request that stored nothing (a 5xx), so that a retry runs again.
func (st *idemStore) abandon(key string, run *KeyRun) {
	if st.running[key] == run {
		delete(st.running, key)
	}
}

// keep stores the first response of a running key until expires (Unix nanoseconds) and returns its
// record's number. Records must be kept in order of expiry.
func (st *idemStore) keep(key string, run *KeyRun, resp *Response, expires int64) uint64 {
	st.abandon(key, run)
	return st.add(key, run.Fingerprint, resp, expires)
}

// add stores a response for key; restore uses it directly, in order of expiry.
func (st *idemStore) add(key string, fp [sha256.Size]byte, resp *Response, expires int64) uint64 {
	h := st.hash(st, key)
	chunk, off := st.bytes.add(key, resp.Body)
	kept := keptResponse{fingerprint: fp, hash: h, expires: expires, chunk: chunk, off: off,
		keyLen: uint32(len(key)), bodyLen: uint32(len(resp.Body)), status: int32(resp.Status), json: resp.JSON, hasHeader: len(resp.Header) > 0}
	num := st.records.push(kept)
	if kept.hasHeader {
		st.headers[num] = resp.Header
	}
	// The hash's slot is ours unless another key holds it (a collision, or one that has expired and
	// not yet been swept: both are rare, and spill serves either).
	if other, ok := st.index[h]; ok {
		if rec := st.records.at(other); rec != nil && !st.holds(rec, key) {
			st.spill[key] = num
			return num
		}
	}
	delete(st.spill, key) // an older spilled record of this key is superseded
	st.index[h] = num
	return num
}

// setWritten records the data directory's write of record num.
func (st *idemStore) setWritten(num, written uint64) {
	if kept := st.records.at(num); kept != nil {
		kept.written = written
	}
}

// response is record num's stored response. Its body is a copy: a replay goes through the
// middleware hooks, which may rewrite it, and the byte log must not change under a later replay.
func (st *idemStore) response(num uint64, kept *keptResponse) Response {
	stored := Response{Status: int(kept.status), JSON: kept.json, Body: bytes.Clone(st.bytes.get(kept.chunk, kept.off+kept.keyLen, kept.bodyLen))}
	if kept.hasHeader {
		stored.Header = st.headers[num].Clone()
	}
	return stored
}

// sweep forgets up to limit keys whose stored response expired by now (Unix nanoseconds), oldest
// first, and frees the byte chunks no kept record uses any more.
func (st *idemStore) sweep(now int64, limit int, forget func(key string)) {
	for range limit {
		num, kept := st.records.front()
		if kept == nil || now <= kept.expires {
			break
		}
		if st.index[kept.hash] == num {
			delete(st.index, kept.hash)
		} else if key := st.keyOf(kept); st.spill[key] == num {
			delete(st.spill, key)
		}
		if kept.hasHeader {
			delete(st.headers, num)
		}
		if forget != nil {
			forget(st.keyOf(kept))
		}
		st.records.pop()
	}
	if _, kept := st.records.front(); kept != nil {
		st.bytes.dropBefore(kept.chunk)
	} else {
		st.bytes.dropBefore(st.bytes.last())
	}
}

// len is the number of stored responses not yet swept.
func (st *idemStore) len() int { return st.records.len() }

// chunkQueue is a FIFO whose entries are numbered from 1 in order of arrival and keep their number
// for life. It is stored in fixed-size chunks, so that neither growing nor dropping from the front
// copies what it holds (a queue of a million records would otherwise copy tens of megabytes under
// the merchant's lock now and then).
type chunkQueue[T any] struct {
	per    int
	chunks [][]T // chunks[0][head] is the oldest entry
	head   int
	first  uint64 // the oldest entry's number
	next   uint64 // the number the next entry gets
}

func newChunkQueue[T any](per int) chunkQueue[T] {
	return chunkQueue[T]{per: max(per, 1), first: 1, next: 1}
}

func (q *chunkQueue[T]) len() int { return int(q.next - q.first) }

// push appends v and returns its number.
func (q *chunkQueue[T]) push(v T) uint64 {
	if n := len(q.chunks); n == 0 || len(q.chunks[n-1]) == q.per {
		q.chunks = append(q.chunks, make([]T, 0, q.per))
	}
	last := &q.chunks[len(q.chunks)-1]
	*last = append(*last, v)
	num := q.next
	q.next++
	return num
}

// at returns entry num, or nil if it was popped or never pushed. The pointer is valid until the
// entry is popped.
func (q *chunkQueue[T]) at(num uint64) *T {
	if num < q.first || num >= q.next {
		return nil
	}
	pos := int(num-q.first) + q.head
	return &q.chunks[pos/q.per][pos%q.per]
}

// front returns the oldest entry and its number (nil when empty).
func (q *chunkQueue[T]) front() (uint64, *T) {
	return q.first, q.at(q.first)
}

// pop drops the oldest entry; a chunk is let go as soon as its last entry is popped.
func (q *chunkQueue[T]) pop() {
	if q.first == q.next {
		return
	}
	var zero T
	q.chunks[0][q.head] = zero
	q.first++
	q.head++
	if q.head == q.per || q.first == q.next {
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.head = 0
	}
}

// byteLog is append-only storage for small byte strings in large chunks, numbered from 0, freed
// from the front. A string never straddles two chunks; one larger than a chunk gets a chunk of its
// own.
type byteLog struct {
	chunks [][]byte
	first  uint64 // the number of chunks[0]
}

// add appends key and then body, and returns where they start.
func (l *byteLog) add(key string, body []byte) (chunk uint64, off uint32) {
	n := len(key) + len(body)
	if len(l.chunks) == 0 || cap(l.chunks[len(l.chunks)-1])-len(l.chunks[len(l.chunks)-1]) < n {
		l.chunks = append(l.chunks, make([]byte, 0, max(idemByteChunk, n)))
	}
	i := len(l.chunks) - 1
	c := l.chunks[i]
	off = uint32(len(c))
	c = append(c, key...)
	l.chunks[i] = append(c, body...)
	return l.first + uint64(i), off
}

// get returns n bytes of chunk from off. The slice's capacity ends with it, so that appending to it
// cannot overwrite what follows.
func (l *byteLog) get(chunk uint64, off, n uint32) []byte {
	c := l.chunks[chunk-l.first]
	return c[off : off+n : off+n]
}

// last is the number of the chunk being filled (the next one when there is none).
func (l *byteLog) last() uint64 { return l.first + uint64(max(len(l.chunks)-1, 0)) }

// dropBefore frees the chunks numbered below chunk.
func (l *byteLog) dropBefore(chunk uint64) {
	for l.first < chunk && len(l.chunks) > 0 {
		l.chunks[0] = nil
		l.chunks = l.chunks[1:]
		l.first++
	}
}
