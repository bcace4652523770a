package sandbox

import (
	"crypto/sha256"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// idemEntry is the state of one Idempotency-Key of one merchant and operation.
type idemEntry struct {
	fingerprint [sha256.Size]byte
	done        chan struct{} // closed when the first request has finished
	stored      bool          // resp holds the first response; false while it runs
	// resp is held in the entry rather than pointed to: a sandbox keeps a day of keys, and a million
	// of them are a million heap objects fewer for the garbage collector to visit.
	resp    response
	expires time.Time
	written uint64 // the data directory's write of resp (its commit's number; 0 in memory): a replay waits for it
}

// idemStored is a key whose first response is stored, in m.idemExpiry. Every stored response lives
// IdempotencyTTL from when it was stored, so the order of storing is the order of expiry: forgetting
// expired keys takes them from the front, O(1) each, instead of walking every key a merchant ever
// sent under the lock all its requests need.
type idemStored struct {
	key string
	e   *idemEntry
}

// idemSweepBatch bounds how many expired keys one request forgets, so that no request pays for a
// whole day of expiries at once; every request that stores a key sweeps, so they keep up.
const idemSweepBatch = 64

// idempotentWait bounds how long a retry waits for the first request with its key before it is told
// 409/4001 instead.
const idempotentWait = 30 * time.Second

// idempotent runs a POST behind the Idempotency-Key layer (IETF httpapi idempotency-key draft, as the
// spec describes it): the first request with a key runs and its response is stored for
// IdempotencyTTL; the same key with the same body (method, path, canonical JSON) replays it with
// `Idempotent-Replayed: true`; with another body it is 409/4000. A request that arrives while the
// first is still running waits for it and is then replayed, so N parallel identical requests create
// exactly one object. 5xx responses are not stored, so a retry runs again.
func (s *Server) idempotent(req *request, h handlerFunc) *response {
	key := req.r.Header.Get(api.HeaderIdempotencyKey)
	if key == "" {
		return h(s, req)
	}
	scoped := req.op.ID + "\x00" + key
	e, answer := s.claimKey(req, scoped, fingerprint(req.r.Method, req.r.URL.Path, req.value))
	if answer != nil {
		return answer
	}
	resp := h(s, req)
	if c := req.m.storeFirstResponse(s, scoped, e, resp); c.d != nil {
		req.commit = c // written after the handler's writes: durable means both are
	}
	return resp
}

// claimKey makes this request the first one with its key and returns the new entry, or returns the
// answer the request gets instead: the stored response (replayed), 409/4000 for another body, or
// 409/4001 when the first request is still running after idempotentWait or the client gives up.
func (s *Server) claimKey(req *request, scoped string, fp [sha256.Size]byte) (*idemEntry, *response) {
	deadline := time.NewTimer(idempotentWait)
	defer deadline.Stop()
	m := req.m
	for {
		m.mu.Lock()
		cur := m.liveEntry(scoped, time.Now())
		switch {
		case cur == nil:
			e := &idemEntry{fingerprint: fp, done: make(chan struct{})}
			m.idempotency[scoped] = e
			m.mu.Unlock()
			return e, nil
		case cur.fingerprint != fp:
			m.mu.Unlock()
			return nil, s.fail(api.CodeIdempotencyKeyReused, "This Idempotency-Key was already used with a different request body. Use a new key for a new request, or resend the original body.",
				[]FieldError{{Field: "header.idempotency-key", Reason: "already used with a different body"}}, nil)
		case cur.stored:
			resp, written := cur.resp.replay(), cur.written
			m.mu.Unlock()
			if written != 0 {
				req.commit = commit{s.disk, written} // replayed once the first response is durable: a crash cannot undo what it says
			}
			return nil, resp
		}
		done := cur.done
		m.mu.Unlock()
		select {
		case <-done:
			continue // replay, or run ourselves if the first attempt was not stored
		case <-req.r.Context().Done():
			return nil, s.inUse()
		case <-deadline.C:
			return nil, s.inUse()
		}
	}
}

// liveEntry returns the entry of a key unless there is none or its stored response has expired
// (then the key is free again). The caller holds m.mu.
func (m *merchant) liveEntry(scoped string, now time.Time) *idemEntry {
	cur := m.idempotency[scoped]
	if cur != nil && cur.stored && now.After(cur.expires) {
		delete(m.idempotency, scoped)
		return nil
	}
	return cur
}

// storeFirstResponse keeps the first response of a key for replays and wakes the requests waiting
// for it. A 5xx is not kept: the key is freed, so that a retry runs again. The body is kept, not a
// copy: nothing changes a response once its handler returned it.
func (m *merchant) storeFirstResponse(s *Server, scoped string, e *idemEntry, resp *response) (c commit) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now() // under m.mu: the queue's order is exactly the order of expiry
	if resp.status >= 500 {
		delete(m.idempotency, scoped)
	} else {
		e.resp, e.stored = *resp, true
		e.expires = now.Add(IdempotencyTTL)
		m.idemExpiry = append(m.idemExpiry, idemStored{scoped, e})
		c = s.saveIdempotency(m, scoped, e)
		e.written = c.seq
	}
	close(e.done)
	e.done = nil // waiters hold their own copy; a stored entry is never waited on again
	m.sweepIdempotency(now)
	return c
}

func (s *Server) inUse() *response {
	return s.fail(api.CodeIdempotencyKeyInUse, "The first request with this Idempotency-Key is still running; retry in a moment with the same key and body.",
		[]FieldError{{Field: "header.idempotency-key", Reason: "first request still running"}}, nil)
}

// sweepIdempotency forgets keys whose stored response has expired, oldest first and at most
// idemSweepBatch of them, so that a long-running sandbox does not grow without bound and no request
// waits for a long sweep. The caller holds m.mu.
func (m *merchant) sweepIdempotency(now time.Time) {
	n := 0
	for ; n < idemSweepBatch && m.idemHead < len(m.idemExpiry); n++ {
		st := m.idemExpiry[m.idemHead]
		if !now.After(st.e.expires) {
			break
		}
		if m.idempotency[st.key] == st.e { // not already replaced by a new first request
			delete(m.idempotency, st.key)
		}
		m.idemExpiry[m.idemHead] = idemStored{}
		m.idemHead++
	}
	// Cut the forgotten prefix off once it is half the queue: O(1) amortized per key, and the queue's
	// memory follows the keys still live.
	if m.idemHead >= 32 && 2*m.idemHead >= len(m.idemExpiry) {
		k := copy(m.idemExpiry, m.idemExpiry[m.idemHead:])
		clear(m.idemExpiry[k:])
		m.idemExpiry, m.idemHead = m.idemExpiry[:k], 0
	}
}

// fingerprint identifies a request for the idempotency layer: method, path and the parsed body in
// canonical form (object keys sorted, insignificant whitespace removed, number literals kept as
// written, since the body was parsed with UseNumber), so that a client that re-encodes the same body
// differently is still recognised.
func fingerprint(method, path string, body any) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(path))
	h.Write([]byte{0})
	if body != nil {
		h.Write(marshal(body))
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
