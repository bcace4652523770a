package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Hooks are the seams through which a layer outside the reference implementation changes what the
// sandbox does: the HTTP handler as a whole, the rules it applies to stored state, and each webhook
// attempt before it is signed. The handlers never know whether a hook is present; each seam's default
// is the contract. Two layers use them: package internal/faults, which breaks one rule of the contract
// at a time so that the contract suite's self-test can prove that it notices, and package
// internal/variance, which makes the choices the document leaves open otherwise than the sandbox does,
// so that the suite's variance test can prove it accepts every implementation the document allows.
type Hooks struct {
	// Middleware wraps the sandbox's HTTP handler; it sees every request and response. It is given
	// the server so that it can read the merchants' keys (KeyPairs) and re-enter the API.
	Middleware func(s *Server, next http.Handler) http.Handler
	// Rules wraps the contract's rules about state (see Rules); the wrapper delegates what it does
	// not change.
	Rules func(Rules) Rules
	// Outgoing may change a webhook attempt after it is built and before it is signed and sent.
	Outgoing func(*Outgoing)
}

// WithHooks installs hooks. Repeated, each later hook wraps the earlier ones (its middleware is the
// outer one, its rules wrapper sees the earlier wrapper) and outgoing hooks run in the order given.
func WithHooks(h Hooks) Option {
	return func(c *config) { c.hooks = append(c.hooks, h) }
}

// Rules are the contract's rules about stored state that handlers and the dispatcher apply. The
// sandbox's own implementation (contractRules) is the contract; a hook may wrap it.
type Rules interface {
	// PayoutDestination resolves a payout's country, and for a bank transfer its bank, from the
	// reference data. Problems are reported per field; the country is valid only without them.
	PayoutDestination(countryID string, transferTo api.TransferTo, bankID string) (Country, []FieldError)
	// ClaimReference gives the merchant reference ref to the object id in refs, a merchant's
	// reference book. When another object already holds it, it returns that holder and false. The
	// strings are the wrapper's to keep: their bytes never change (package store). A restart rebuilds
	// the book with the contract's rule (store.ClaimReference), not through this seam.
	ClaimReference(refs map[string]string, ref, id string) (holder string, ok bool)
	// URLProblem says what is wrong with a webhook or redirect URL beyond the document's pattern, or "".
	URLProblem(raw string) string
	// Receives reports whether a webhook endpoint gets deliveries of an event type.
	Receives(e WebhookEndpoint, t api.EventType) bool
	// EarlierSecretsKept says how many of the secrets that earlier rotations replaced keep signing,
	// while their own grace lasts, after a new rotation: the most recent ones of the earlier count.
	EarlierSecretsKept(inGrace int) int
}

// Outgoing is one webhook attempt as the dispatcher is about to sign and send it. A hook may change
// any field: the attempt is then signed with Secrets over Body, at Timestamp, as WebhookID.
type Outgoing struct {
	// Number counts the attempts of this delivery from 1.
	Number int
	// Resend is true for a delivery the events API's resend asked for.
	Resend    bool
	EventType api.EventType
	WebhookID string
	Timestamp time.Time
	Body      []byte
	// Secrets sign the attempt, the newest first: one signature per secret.
	Secrets []webhook.Secret
	// Drop, once a hook sets it, ends the delivery without sending anything.
	Drop bool
	// Header holds headers to send besides the dispatcher's own. They may replace Content-Type and
	// User-Agent; the Standard Webhooks headers are always the ones built from the fields above.
	Header http.Header
	// Delay holds the attempt back this long before it is sent, without taking a delivery slot
	// meanwhile; the signature's timestamp moves with it. A later event of the same object can
	// overtake a delayed one only when deliveries are independent (WithIndependentDeliveries).
	Delay time.Duration
	// AckLost makes the dispatcher disregard the receiver's answer, as when an acknowledgement is lost
	// on its way back: the attempt is recorded as failed without a status and the delivery is retried
	// with the same webhook-id, so a receiver that did acknowledge gets the event again. The document
	// allows it (delivery is at least once); the sandbox never loses one on its own.
	AckLost bool
}

// KeyPair is one merchant's API keys.
type KeyPair struct{ Public, Secret string }

// KeyPairs returns every merchant's keys, in WithMerchant order (the default merchant alone when none
// was given). The keys are the caller's own configuration; they are never logged.
func (s *Server) KeyPairs() []KeyPair {
	out := make([]KeyPair, len(s.merchants))
	for i, m := range s.merchants {
		out[i] = KeyPair{Public: m.publicKey, Secret: m.secretKey}
	}
	return out
}

// Spec returns the document the sandbox validates requests against, so that a hook can judge a request
// as the sandbox will before it reaches the handlers (a fault that breaks a rule only for valid
// requests leaves the sandbox's verdict on invalid ones standing).
func (s *Server) Spec() *openapi.Spec { return s.spec }

// contractRules are the rules as the contract states them.
type contractRules struct{ refdata *refData }

func (r contractRules) PayoutDestination(countryID string, transferTo api.TransferTo, bankID string) (Country, []FieldError) {
	country, ok := r.refdata.byID[countryID]
	if !ok {
		return Country{}, []FieldError{{Field: "/countryId", Reason: "no country has this id; see " + seeCountries}}
	}
	if transferTo != api.TransferToBank {
		return country, nil
	}
	bank, ok := r.refdata.banksByID[bankID]
	if !ok {
		return Country{}, []FieldError{{Field: "/bank_id", Reason: "no bank has this id; see " + seeBanks}}
	}
	if bank.CountryCode != country.CountryCode {
		return Country{}, []FieldError{{Field: "/bank_id", Reason: fmt.Sprintf("the bank is in %s, not in %s (countryId %s)", bank.CountryCode, country.CountryCode, country.ID)}}
	}
	return country, nil
}

func (contractRules) ClaimReference(refs map[string]string, ref, id string) (string, bool) {
	return store.ClaimReference(refs, ref, id)
}

func (contractRules) URLProblem(raw string) string { return urlProblem(raw) }

func (contractRules) Receives(e WebhookEndpoint, t api.EventType) bool {
	return e.Enabled && slices.Contains(e.Events, t)
}

// EarlierSecretsKept is none: a rotation's response is the whole truth about which secrets sign
// afterwards (the new one, and the one it replaced while its grace lasts).
func (contractRules) EarlierSecretsKept(int) int { return 0 }

// installHooks applies the configured hooks to a new server.
func (s *Server) installHooks() {
	var rules Rules = contractRules{refdata: s.refdata}
	var handler http.Handler = http.HandlerFunc(s.serve)
	for _, h := range s.cfg.hooks {
		if h.Middleware != nil {
			handler = h.Middleware(s, handler)
		}
		if h.Rules != nil {
			rules = h.Rules(rules)
		}
		if h.Outgoing != nil {
			s.outgoing = append(s.outgoing, h.Outgoing)
		}
	}
	s.rules, s.handler = rules, handler
}
