package sandbox

import (
	"crypto/sha256"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// idemSweepBatch bounds how many expired keys one request forgets, so that no request pays for a
// whole day of expiries at once; every request that stores a key sweeps, so they keep up.
const idemSweepBatch = 64

// idempotentWait bounds how long a retry waits for the first request with its key before it is told
// 409/4001 instead.
const idempotentWait = 30 * time.Second

// The Idempotency-Key layer (IETF httpapi idempotency-key draft, as the spec describes it): the first
// request with a key runs and its response is kept for IdempotencyTTL; the same key with the same body
// (method, path, canonical JSON) replays it with `Idempotent-Replayed: true`; with another body it is
// 409/4000. A request that arrives while the first is still running waits for it and is then
// replayed, so N parallel identical requests create exactly one object. 5xx responses are not kept,
// so a retry runs again. idempotent (server.go) runs a request between claimKey and keep.

// idemKey is the Idempotency-Key a request runs under: scoped to its operation, and the store's record
// that the request is running. It is zero for a request without one.
type idemKey struct {
	scoped string
	run    *store.KeyRun
}

// claimKey makes a POST the first request with its Idempotency-Key and returns the key, or returns
// the answer the request gets instead: the kept response (replayed), 409/4000 for another body, or
// 409/4001 when the first request is still running after idempotentWait or the client gives up. A
// request without a key, or not a POST, claims nothing.
func (s *Server) claimKey(req *request) (idemKey, *response) {
	key := req.r.Header.Get(api.HeaderIdempotencyKey)
	if key == "" || !isPost(req.op) {
		return idemKey{}, nil
	}
	scoped := req.op.ID + "\x00" + key
	fp := fingerprint(req.r.Method, req.r.URL.Path, req.value)
	var deadline <-chan time.Time // set at the first wait: most requests never wait, and need no timer
	m := req.m
	for {
		m.mu.Lock()
		run, kept := m.st.FindKey(scoped, time.Now())
		switch {
		case run == nil && kept == nil:
			run = m.st.StartKey(scoped, fp)
			m.mu.Unlock()
			return idemKey{scoped, run}, nil
		case run != nil && run.Fingerprint != fp, kept != nil && kept.Fingerprint != fp:
			m.mu.Unlock()
			return idemKey{}, s.fail(api.CodeIdempotencyKeyReused, "This Idempotency-Key was already used with a different request body. Use a new key for a new request, or resend the original body.",
				[]FieldError{{Field: "header.idempotency-key", Reason: "already used with a different body"}}, nil)
		case kept != nil:
			m.mu.Unlock()
			req.commit = kept.Written // replayed once the first response is durable: a crash cannot undo what it says
			stored := response{status: kept.Response.Status, json: kept.Response.JSON, header: kept.Response.Header, body: kept.Response.Body}
			return idemKey{}, stored.replay()
		}
		done := run.Done()
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
			return idemKey{}, s.inUse()
		case <-deadline:
			return idemKey{}, s.inUse()
		}
	}
}

// keep keeps resp as the key's first response for replays, in the request's transaction, and wakes
// the requests waiting for it. A 5xx is not kept: the key is freed, so that a retry runs again. The
// caller holds m.mu; a request without a key keeps nothing.
func (k idemKey) keep(req *request, resp *response) {
	if k.run == nil {
		return
	}
	now := time.Now() // under m.mu: the records' order is exactly the order of expiry
	var kept *store.Response
	if resp.status < 500 {
		kept = &store.Response{Status: resp.status, JSON: resp.json, Header: resp.header, Body: resp.body}
	}
	req.m.st.FinishKey(req.tx, k.scoped, k.run, kept, now, now.Add(IdempotencyTTL), idemSweepBatch)
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
