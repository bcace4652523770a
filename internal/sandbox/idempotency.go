package sandbox

import (
	"crypto/sha256"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

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
	run, answer := s.claimKey(req, scoped, fingerprint(req.r.Method, req.r.URL.Path, req.value))
	if answer != nil {
		return answer
	}
	resp := h(s, req)
	if c := req.m.storeFirstResponse(s, scoped, run, resp); c.d != nil {
		req.commit = c // written after the handler's writes: durable means both are
	}
	return resp
}

// claimKey makes this request the first one with its key and returns its run, or returns the answer
// the request gets instead: the stored response (replayed), 409/4000 for another body, or 409/4001
// when the first request is still running after idempotentWait or the client gives up.
func (s *Server) claimKey(req *request, scoped string, fp [sha256.Size]byte) (*idemRun, *response) {
	var deadline <-chan time.Time // set at the first wait: most requests never wait, and need no timer
	m := req.m
	for {
		m.mu.Lock()
		run, kept, num := m.idem.find(scoped, time.Now().UnixNano())
		switch {
		case run == nil && kept == nil:
			run = m.idem.start(scoped, fp)
			m.mu.Unlock()
			return run, nil
		case run != nil && run.fingerprint != fp, kept != nil && kept.fingerprint != fp:
			m.mu.Unlock()
			return nil, s.fail(api.CodeIdempotencyKeyReused, "This Idempotency-Key was already used with a different request body. Use a new key for a new request, or resend the original body.",
				[]FieldError{{Field: "header.idempotency-key", Reason: "already used with a different body"}}, nil)
		case kept != nil:
			resp, written := m.idem.replay(num, kept), kept.written
			m.mu.Unlock()
			if written != 0 {
				req.commit = commit{s.disk, written} // replayed once the first response is durable: a crash cannot undo what it says
			}
			return nil, resp
		}
		done := run.done
		m.mu.Unlock()
		if deadline == nil {
			t := time.NewTimer(idempotentWait)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-done:
			continue // replay, or run ourselves if the first attempt was not stored
		case <-req.r.Context().Done():
			return nil, s.inUse()
		case <-deadline:
			return nil, s.inUse()
		}
	}
}

// storeFirstResponse keeps the first response of a key for replays and wakes the requests waiting
// for it. A 5xx is not kept: the key is freed, so that a retry runs again.
func (m *merchant) storeFirstResponse(s *Server, scoped string, run *idemRun, resp *response) (c commit) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now() // under m.mu: the records' order is exactly the order of expiry
	if resp.status >= 500 {
		m.idem.abandon(scoped, run)
	} else {
		expires := now.Add(IdempotencyTTL)
		num := m.idem.keep(scoped, run, resp, expires.UnixNano())
		c = s.saveIdempotency(m, scoped, run.fingerprint, resp, expires)
		m.idem.setWritten(num, c.seq)
	}
	close(run.done)
	m.idem.sweep(now.UnixNano(), idemSweepBatch)
	return c
}

func (s *Server) inUse() *response {
	return s.fail(api.CodeIdempotencyKeyInUse, "The first request with this Idempotency-Key is still running; retry in a moment with the same key and body.",
		[]FieldError{{Field: "header.idempotency-key", Reason: "first request still running"}}, nil)
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
		marshalTo(body, func(b []byte) { h.Write(b) })
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
