package sandbox

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	mrand "math/rand/v2"
	"sync"
)

// Id prefixes say what an id names, so that a developer reading a log or a status-check reference
// can tell a payment from a payout at a glance.
const (
	prefixPayment   = "pay_"
	prefixPayout    = "po_"
	prefixEndpoint  = "we_"
	prefixEvent     = "evt_"
	prefixReference = "ref_"
)

// idSource draws the ids' random digits: ChaCha8, a cryptographically strong generator, seeded once
// from crypto/rand. Not crypto/rand for every id: its reader needs a deep stack, and the simulated
// network's settlements run on new goroutines (time.AfterFunc), each of which grew its stack to draw
// its event's id, a few per cent of the CPU a payout costs.
var idSource = struct {
	sync.Mutex
	r *mrand.ChaCha8
}{r: mrand.NewChaCha8(idSeed())}

func idSeed() (seed [32]byte) {
	_, _ = rand.Read(seed[:]) // crypto/rand.Read never fails (it aborts the program instead)
	return seed
}

// newID returns prefix + 16 random hex digits; the spec's ObjectId pattern allows it.
func newID(prefix string) string {
	idSource.Lock()
	n := idSource.r.Uint64()
	idSource.Unlock()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	var digits [16]byte
	hex.Encode(digits[:], b[:])
	return prefix + string(digits[:])
}
