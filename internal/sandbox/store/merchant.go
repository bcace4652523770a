package store

import (
	"cmp"
	"crypto/sha256"
	"slices"
	"strings"
	"sync"
	"time"
)

// Merchant is one merchant's part of the store. Its calls are serialized by the caller (the
// sandbox's merchant lock), except the delivery failures', which have a lock of their own: the
// dispatcher reads them on every attempt and must not wait for the merchant's requests.
type Merchant struct {
	st        *Store
	publicKey string

	payments      map[string]*Payment // by paymentReference, into the arena
	payouts       map[string]*Payout  // by payout_id, into the arena
	references    map[string]string   // merchant reference -> paymentReference or payout_id
	endpoints     map[string]*Endpoint
	endpointOrder []string // ids, oldest first
	idem          *idemStore
	arena         objectArena

	failuresMu sync.Mutex
	failures   []DeliveryFailure
}

// AddMerchant adds the state of the merchant with publicKey, empty until Load or its first change.
func (st *Store) AddMerchant(publicKey string) *Merchant {
	m := &Merchant{st: st, publicKey: publicKey,
		payments: map[string]*Payment{}, payouts: map[string]*Payout{}, references: map[string]string{},
		endpoints: map[string]*Endpoint{}, idem: newIdemStore()}
	st.merchants[publicKey] = m
	return m
}

// Claim gives the merchant reference ref to the object id in refs, a merchant's reference book, or
// returns the object that holds it already and false. ClaimReference is the contract's; the sandbox's
// Rules seam may wrap it.
type Claim func(refs map[string]string, ref, id string) (holder string, ok bool)

// ClaimReference is the contract's rule: a merchant reference names one object.
func ClaimReference(refs map[string]string, ref, id string) (string, bool) {
	if holder, taken := refs[ref]; taken {
		return holder, false
	}
	refs[ref] = id
	return "", true
}

// ReferenceHolder returns the id of the object that holds the merchant reference ref.
func (m *Merchant) ReferenceHolder(ref string) (string, bool) {
	id, ok := m.references[ref]
	return id, ok
}

// ReferenceTaken reports whether an object of the merchant holds ref.
func (m *Merchant) ReferenceTaken(ref string) bool {
	_, taken := m.references[ref]
	return taken
}

// CreatePayment stores p unless claim refuses its reference, in which case it returns the holder and
// false. The returned payment is a copy.
func (m *Merchant) CreatePayment(tx *Tx, p Payment, claim Claim) (Payment, string, bool) {
	return create(tx, m, &paymentKind, p, claim)
}

// CreatePayout stores p unless claim refuses its reference (see CreatePayment).
func (m *Merchant) CreatePayout(tx *Tx, p Payout, claim Claim) (Payout, string, bool) {
	return create(tx, m, &payoutKind, p, claim)
}

// UpdatePayment applies change to a copy of the payment with ref, stores it and returns it; false
// when there is no such payment. change must not change the payment's id or reference.
func (m *Merchant) UpdatePayment(tx *Tx, ref string, change func(*Payment)) (Payment, bool) {
	return update(tx, m, &paymentKind, ref, change)
}

// UpdatePayout applies change to a copy of the payout with id (see UpdatePayment).
func (m *Merchant) UpdatePayout(tx *Tx, id string, change func(*Payout)) (Payout, bool) {
	return update(tx, m, &payoutKind, id, change)
}

// Payment returns a copy of the payment with paymentReference ref.
func (m *Merchant) Payment(ref string) (Payment, bool) { return get(m, &paymentKind, ref) }

// Payout returns a copy of the payout with id.
func (m *Merchant) Payout(id string) (Payout, bool) { return get(m, &payoutKind, id) }

// Payments returns every payment, in no particular order.
func (m *Merchant) Payments() []Payment { return all(m, &paymentKind) }

// Payouts returns every payout, in no particular order.
func (m *Merchant) Payouts() []Payout { return all(m, &payoutKind) }

// RecentPayments returns the n payments that changed last, newest first. It looks at every payment
// but copies only n.
func (m *Merchant) RecentPayments(n int) []Payment { return recent(m, &paymentKind, n) }

// RecentPayouts returns the n payouts that changed last, newest first.
func (m *Merchant) RecentPayouts(n int) []Payout { return recent(m, &payoutKind, n) }

// newest returns copies of the n values of objects with the latest (time, id), latest first.
func newest[T any](objects map[string]*T, n int, key func(*T) (time.Time, string)) []T {
	if n < 1 {
		return nil
	}
	after := func(a, b *T) int { // > 0 when a is newer than b
		ta, ia := key(a)
		tb, ib := key(b)
		return cmp.Or(ta.Compare(tb), strings.Compare(ia, ib))
	}
	top := make([]*T, 0, min(n, len(objects)))
	for _, o := range objects {
		if len(top) == n && after(o, top[n-1]) <= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, o, func(e, target *T) int { return after(target, e) })
		if len(top) == n {
			top = top[:n-1]
		}
		top = slices.Insert(top, i, o)
	}
	out := make([]T, len(top))
	for i, o := range top {
		out[i] = *o
	}
	return out
}

// Endpoint returns a copy of the webhook endpoint with id.
func (m *Merchant) Endpoint(id string) (Endpoint, bool) {
	e, ok := m.endpoints[id]
	if !ok {
		return Endpoint{}, false
	}
	return e.clone(), true
}

// Endpoints returns copies of the webhook endpoints, oldest first.
func (m *Merchant) Endpoints() []Endpoint {
	out := make([]Endpoint, 0, len(m.endpointOrder))
	for _, id := range m.endpointOrder {
		out = append(out, m.endpoints[id].clone())
	}
	return out
}

// PutEndpoint stores e, replacing the endpoint with its id or adding it after the others.
func (m *Merchant) PutEndpoint(tx *Tx, e Endpoint) {
	_, exists := m.endpoints[e.ID]
	stored := e.clone()
	m.endpoints[e.ID] = &stored
	if !exists {
		m.endpointOrder = append(m.endpointOrder, e.ID)
	}
	if tx.durable() {
		tx.put(bucketEndpoints, m.key(e.ID), endpointRecordOf(&stored))
		if !exists {
			tx.put(bucketOrder, []byte(m.publicKey), m.endpointOrder)
		}
	}
}

// DeleteEndpoint removes the endpoint with id; false when there is none.
func (m *Merchant) DeleteEndpoint(tx *Tx, id string) bool {
	if _, ok := m.endpoints[id]; !ok {
		return false
	}
	delete(m.endpoints, id)
	m.endpointOrder = slices.DeleteFunc(slices.Clone(m.endpointOrder), func(v string) bool { return v == id })
	if tx.durable() {
		tx.del(bucketEndpoints, m.key(id))
		tx.put(bucketOrder, []byte(m.publicKey), m.endpointOrder)
	}
	return true
}

// Kept is an Idempotency-Key's stored first response.
type Kept struct {
	Fingerprint [sha256.Size]byte
	Response    Response
	// Written is the response's write: a replay is sent once it is durable.
	Written Commit
}

// FindKey returns what the store knows of key at now: its running first request, or its stored
// response (a copy), or neither. An expired response counts as none: the key is free again.
func (m *Merchant) FindKey(key string, now time.Time) (*KeyRun, *Kept) {
	run, kept, num := m.idem.find(key, now.UnixNano())
	if kept == nil {
		return run, nil
	}
	return nil, &Kept{Fingerprint: kept.fingerprint, Response: m.idem.response(num, kept), Written: Commit{m.st.j, kept.written}}
}

// StartKey records that the first request with key is running.
func (m *Merchant) StartKey(key string, fp [sha256.Size]byte) *KeyRun { return m.idem.start(key, fp) }

// FinishKey ends the running first request of key: its response is stored until expires, or, with
// resp nil (a 5xx), the key is freed so that a retry runs again. The requests waiting for it are
// woken, and up to sweep expired keys are forgotten. The response is written with tx, so with the
// object the request created: after a crash the retry finds both or neither.
func (m *Merchant) FinishKey(tx *Tx, key string, run *KeyRun, resp *Response, now, expires time.Time, sweep int) {
	if resp == nil {
		m.idem.abandon(key, run)
	} else {
		num := m.idem.keep(key, run, resp, expires.UnixNano())
		if tx.durable() {
			tx.put(bucketIdem, m.key(key), idemRecord{Fingerprint: run.Fingerprint[:], Status: resp.Status, JSON: resp.JSON,
				Header: resp.Header, Body: resp.Body, Expires: expires})
			tx.Then(func(c Commit) { m.idem.setWritten(num, c.seq) })
		}
	}
	close(run.done)
	var forget func(string) // in memory a swept key leaves nothing behind
	if tx.durable() {
		forget = func(key string) { tx.del(bucketIdem, m.key(key)) }
	}
	m.idem.sweep(now.UnixNano(), sweep, forget)
}

// StoredKeys is the number of stored responses not yet swept.
func (m *Merchant) StoredKeys() int { return m.idem.len() }

// AddFailure adds a delivery failure, forgetting the expired ones.
func (m *Merchant) AddFailure(tx *Tx, f DeliveryFailure, now time.Time) {
	m.failuresMu.Lock()
	defer m.failuresMu.Unlock()
	m.failures = append(m.active(tx, now), f)
	if tx.durable() {
		tx.put(bucketFailures, m.key(f.ID), f)
	}
}

// DeleteFailure ends the delivery failure with id; false when none is in force at now.
func (m *Merchant) DeleteFailure(tx *Tx, id string, now time.Time) bool {
	m.failuresMu.Lock()
	defer m.failuresMu.Unlock()
	m.failures = m.active(tx, now)
	for i, f := range m.failures {
		if f.ID == id {
			m.failures = slices.Delete(slices.Clone(m.failures), i, i+1)
			if tx.durable() {
				tx.del(bucketFailures, m.key(id))
			}
			return true
		}
	}
	return false
}

// Failures returns the delivery failures in force at now, oldest first.
func (m *Merchant) Failures(now time.Time) []DeliveryFailure {
	m.failuresMu.Lock()
	defer m.failuresMu.Unlock()
	var out []DeliveryFailure
	for _, f := range m.failures {
		if now.Before(f.Until) {
			out = append(out, f)
		}
	}
	return out
}

// FailingDelivery returns the failure in force for deliveries to url at now, if any. The list is
// short (a developer's handful), so a scan is the right index.
func (m *Merchant) FailingDelivery(url string, now time.Time) (DeliveryFailure, bool) {
	m.failuresMu.Lock()
	defer m.failuresMu.Unlock()
	for _, f := range m.failures {
		if f.URL == url && now.Before(f.Until) {
			return f, true
		}
	}
	return DeliveryFailure{}, false
}

// active returns the failures in force at now and deletes the expired ones from the file. The caller
// holds failuresMu.
func (m *Merchant) active(tx *Tx, now time.Time) []DeliveryFailure {
	kept := m.failures[:0:0]
	for _, f := range m.failures {
		if now.Before(f.Until) {
			kept = append(kept, f)
		} else if tx.durable() {
			tx.del(bucketFailures, m.key(f.ID))
		}
	}
	return kept
}

func (m *Merchant) key(id string) []byte { return []byte(m.publicKey + "\x00" + id) }
