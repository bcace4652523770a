package store

import (
	"encoding/binary"
	"encoding/json"
	"net/http"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Buckets of the data file. A merchant's objects are keyed by its public key and their id, so that
// the merchants configured at the next start find theirs; the event log, the attempt log and the
// outbox by number, so that a cursor walks them in order.
var (
	bucketMeta      = []byte("meta")
	bucketPayments  = []byte("payments")
	bucketPayouts   = []byte("payouts")
	bucketEndpoints = []byte("endpoints")
	bucketOrder     = []byte("endpoint_order")
	bucketIdem      = []byte("idempotency")
	bucketEvents    = []byte("events")
	bucketAttempts  = []byte("attempts")
	bucketFailures  = []byte("delivery_failures")
	bucketOutbox    = []byte("outbox")
	allBuckets      = [][]byte{bucketMeta, bucketPayments, bucketPayouts, bucketEndpoints, bucketOrder, bucketIdem,
		bucketEvents, bucketAttempts, bucketFailures, bucketOutbox}
	keyInitialized = []byte("initialized")
)

// Records as stored. JSON: the wire types already encode themselves, and the file stays readable with
// any bbolt browser. Events, attempts, delivery failures and outbox entries are stored as their own
// types.

type paymentRecord struct {
	Payment api.Payment `json:"payment"`
	Seeded  bool        `json:"seeded,omitempty"`
}

type payoutRecord struct {
	Payout api.Payout `json:"payout"`
	Seeded bool       `json:"seeded,omitempty"`
}

func (rec paymentRecord) object() Payment { return Payment{Payment: rec.Payment, Seeded: rec.Seeded} }
func (rec payoutRecord) object() Payout   { return Payout{Payout: rec.Payout, Seeded: rec.Seeded} }

// decodeRecord reads a record of the data file back into the object it keeps.
func decodeRecord[R interface{ object() T }, T any](b []byte) (T, error) {
	var rec R
	err := json.Unmarshal(b, &rec)
	return rec.object(), err
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

func endpointRecordOf(e *Endpoint) endpointRecord {
	rec := endpointRecord{Endpoint: e.WebhookEndpoint, Secret: e.Secret.Reveal(), Seeded: e.Seeded}
	for _, p := range e.Previous {
		rec.Previous = append(rec.Previous, previousRecord{p.Secret.Reveal(), p.Expires})
	}
	return rec
}

func (rec *endpointRecord) endpoint() (Endpoint, error) {
	secret, err := webhook.ParseSecret(rec.Secret)
	if err != nil {
		return Endpoint{}, err
	}
	e := Endpoint{WebhookEndpoint: rec.Endpoint, Secret: secret, Seeded: rec.Seeded}
	for _, p := range rec.Previous {
		ps, err := webhook.ParseSecret(p.Secret)
		if err != nil {
			return Endpoint{}, err
		}
		e.Previous = append(e.Previous, PreviousSecret{ps, p.Expires})
	}
	return e, nil
}

type idemRecord struct {
	Fingerprint []byte      `json:"fingerprint"`
	Status      int         `json:"status"`
	JSON        bool        `json:"json,omitempty"`
	Header      http.Header `json:"header,omitempty"`
	Body        []byte      `json:"body,omitempty"`
	Expires     time.Time   `json:"expires"`
}

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }
