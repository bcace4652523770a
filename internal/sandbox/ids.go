package sandbox

import (
	"crypto/rand"
	"encoding/hex"
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

// newID returns prefix + 16 random hex digits; the spec's ObjectId pattern allows it.
func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it aborts the program instead)
	return prefix + hex.EncodeToString(b[:])
}
