package sandbox

import (
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Payment is a stored payment: the document's Payment (package api, which the responses, events and
// in-process inspection all encode) and what the sandbox keeps beside it.
type Payment struct {
	api.Payment
	seeded      bool   // seed data (seed.go): nothing is delivered to its webhook_url
	redirectURL string // what RedirectURL points to in the arena
}

// Payout is a stored payout: the document's Payout and what the sandbox keeps beside it.
type Payout struct {
	api.Payout
	seeded        bool   // seed data (seed.go): nothing is delivered to its webhook_url
	accountNumber string // what AccountNumber points to in the arena
}

// objectArena is where a merchant's payments and payouts live: the structs in chunks of
// arenaObjects, their strings packed into chunks of arenaText bytes. A sandbox keeps every object it
// created, and the garbage collector visits every heap object of the live heap on every cycle, each a
// likely cache miss once the heap is large: a payout decoded field by field was half a dozen objects
// (the struct, each string, the pointer to an optional one), so a sandbox holding a million of them
// spent most of each collection visiting them and created payouts markedly slower than a fresh one.
// In the arena a million payouts are a few thousand chunks. The merchant's maps point into the arena
// too (keys by id and reference), so they add no objects either. Nothing is ever freed: a sandbox
// forgets no object. The caller holds the merchant's lock.
type objectArena struct {
	payouts  []Payout // the chunk being filled; a chunk is never moved, so pointers into it stay valid
	payments []Payment
	text     []byte
}

const (
	arenaObjects = 256
	arenaText    = 64 << 10
)

// payout stores a copy of p and returns it.
func (a *objectArena) payout(p Payout) *Payout {
	q := store(&a.payouts, p)
	intoOwn(&q.AccountNumber, &q.accountNumber)
	a.pack(&q.PayoutID, &q.Reference, &q.MomoPhoneNumber, &q.Narration, &q.WebhookURL, &q.accountNumber)
	return q
}

// payment stores a copy of p and returns it.
func (a *objectArena) payment(p Payment) *Payment {
	q := store(&a.payments, p)
	intoOwn(&q.RedirectURL, &q.redirectURL)
	a.pack(&q.PaymentReference, &q.Reference, &q.Narration, &q.PhoneNumber, &q.WebhookURL, &q.redirectURL)
	return q
}

// store copies v into the chunk being filled, starting a new chunk when it is full, and returns the
// copy.
func store[T any](chunk *[]T, v T) *T {
	if len(*chunk) == cap(*chunk) {
		*chunk = make([]T, 0, arenaObjects)
	}
	*chunk = append(*chunk, v)
	return &(*chunk)[len(*chunk)-1]
}

// intoOwn makes a set optional field point to own, a field of the stored object, holding its value:
// one pointer into the object itself instead of a separate heap string.
func intoOwn(opt **string, own *string) {
	if *opt != nil {
		*own = **opt
		*opt = own
	}
}

// pack copies the strings into the arena's text and points each at its copy. The text is only ever
// appended to, so the bytes under a string never change.
func (a *objectArena) pack(fields ...*string) {
	n := 0
	for _, f := range fields {
		n += len(*f)
	}
	if cap(a.text)-len(a.text) < n {
		a.text = make([]byte, 0, max(arenaText, n))
	}
	start := len(a.text)
	for _, f := range fields {
		a.text = append(a.text, *f...)
	}
	all := unsafe.String(unsafe.SliceData(a.text[start:]), n)
	off := 0
	for _, f := range fields {
		k := len(*f)
		if k > 0 { // an empty string stays the zero string: a pointer fewer for the collector to follow
			*f = all[off : off+k]
		}
		off += k
	}
}

// rewind takes back what was stored since saved (a copy of the arena taken before): an object that
// turned out not to be created (its reference was taken) must not stay in the arena for good.
func (a *objectArena) rewind(saved objectArena) {
	a.payouts = rewindChunk(a.payouts, saved.payouts)
	a.payments = rewindChunk(a.payments, saved.payments)
	a.text = saved.text // bytes past it are overwritten by the next pack
}

func rewindChunk[T any](cur, saved []T) []T {
	if unsafe.SliceData(cur) == unsafe.SliceData(saved) {
		clear(cur[len(saved):]) // no stale pointers left in the chunk
	}
	return saved
}

// WebhookEndpoint is a webhook endpoint as GET returns it: without its secret (the document's
// WebhookEndpoint).
type WebhookEndpoint = api.WebhookEndpoint

// endpoint is the stored form of a webhook endpoint: the public part plus its signing secrets.
type endpoint struct {
	WebhookEndpoint
	secret   webhook.Secret
	previous []previousSecret // the secret the last rotation replaced, while its grace lasts
	seeded   bool             // seed data (seed.go) with the documentation's url: receives nothing until the url changes
}

type previousSecret struct {
	secret  webhook.Secret
	expires time.Time
}

// validSecrets returns the secrets a delivery at now is signed with: the current one first, then
// every previous one whose grace period has not ended.
func (e *endpoint) validSecrets(now time.Time) []webhook.Secret {
	out := []webhook.Secret{e.secret}
	kept := e.previous[:0]
	for _, p := range e.previous {
		if now.Before(p.expires) {
			kept = append(kept, p)
			out = append(out, p.secret)
		}
	}
	e.previous = kept
	return out
}

// merchant holds one merchant's keys and objects. Every access to its maps holds mu; nothing of one
// merchant is reachable from another's requests.
type merchant struct {
	publicKey string
	secretKey string
	secret    webhook.Secret // secretKey parsed for signing deliveries to objects' webhook_url

	mu            sync.Mutex
	payments      map[string]*Payment // by paymentReference
	payouts       map[string]*Payout  // by payout_id
	references    map[string]string   // merchant reference -> paymentReference or payout_id
	endpoints     map[string]*endpoint
	endpointOrder []string // ids, oldest first
	idem          *idemStore
	arena         objectArena // payments and payouts live here

	// failuresMu guards failures apart from mu: the dispatcher reads them on every attempt, and a
	// delivery must not wait for the merchant's requests (nor they for it).
	failuresMu sync.Mutex
	failures   []*deliveryFailure // sandbox control: deliveries to these URLs fail until they expire
}

func newMerchant(publicKey, secretKey string) (*merchant, error) {
	sec, err := webhook.ParseSecret(secretKey)
	if err != nil {
		return nil, fmt.Errorf("merchant %s: the secret key cannot sign webhooks: %w", publicKey, err)
	}
	return &merchant{
		publicKey:  publicKey,
		secretKey:  secretKey,
		secret:     sec,
		payments:   map[string]*Payment{},
		payouts:    map[string]*Payout{},
		references: map[string]string{},
		endpoints:  map[string]*endpoint{},
		idem:       newIdemStore(),
	}, nil
}

// signingSecret is the key deliveries to an object's own webhook_url are signed with.
func (m *merchant) signingSecret() webhook.Secret { return m.secret }

// nonEmpty is s as an optional field: nil (absent) when empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is an optional field's value, "" when absent.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
