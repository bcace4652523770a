// Package sandbox is the reference implementation of the Malipo v1 Collections & Payouts API
// (openapi/malipo.yaml): an http.Handler that validates every request against the contract,
// simulates the mobile-money network according to the document's x-malipo-test-values, and delivers
// signed webhooks with retries. Its state (package store) is held in memory, and with WithDataDir
// written to a data directory too, so that it survives a restart: requests always read memory.
//
// It exists for two audiences. Merchant developers run it (`malipo sandbox`) to integrate without
// moving money; implementers read it to learn what the contract means where prose is ambiguous. The
// contract suite runs against it with zero violations. Its handlers hold no fault injection: the
// suite's self-test breaks rules from outside, through the seams in hooks.go (package internal/faults).
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The well-known test keys of the default merchant. They are public on purpose: a developer can
// start `malipo sandbox` and call it without configuring anything, and tests of other packages can
// use the same values.
const (
	DefaultPublicKey = "pk_test_malipo_sandbox"
	DefaultSecretKey = "sk_test_malipo_sandbox"
)

// MaxBodyBytes is the largest request body the API accepts (the spec's 413, code 1003).
const MaxBodyBytes = 1 << 20

// IdempotencyTTL is how long an Idempotency-Key and its first response are kept (the spec promises
// at least 24 hours).
const IdempotencyTTL = 24 * time.Hour

// Server is the sandbox: an http.Handler serving every operation of the contract, plus the webhook
// dispatcher that reports status changes. Create it with New, mount it on an http.Server or
// httptest.Server, and call Shutdown when done so that queued webhooks are delivered.
type Server struct {
	spec     *openapi.Spec
	cfg      config
	statuses map[int]int // error code -> HTTP status, from the spec
	limits   limits      // the document's caps and lengths (limits.go)
	outcomes outcomes
	refdata  *refData
	log      *slog.Logger

	merchants []*merchant // in WithMerchant order

	// What WithHooks installed: the handler ServeHTTP runs (s.serve unless wrapped), the state
	// rules (contractRules unless wrapped) and the hooks of outgoing webhook attempts.
	handler  http.Handler
	rules    Rules
	outgoing []func(*Outgoing)

	disp *dispatcher

	timersMu sync.Mutex
	timers   map[*time.Timer]struct{}
	running  int // timer callbacks (simulated status changes) that fired and have not returned
	closed   bool

	// store is all the state: objects, keys, events, attempts, failures, the outbox; in memory or in
	// the data directory (WithDataDir). Every change goes through it (package store).
	store *store.Store

	notices notifier // in-process watchers of changes (notify.go)
}

// New builds a sandbox. Without options it has one merchant with DefaultPublicKey and
// DefaultSecretKey, realistic timings (DefaultTimings) and the default retry schedule.
func New(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, opt := range opts {
		opt(&cfg)
	}
	if len(cfg.errs) > 0 {
		return nil, fmt.Errorf("configure sandbox: %w", errors.Join(cfg.errs...))
	}
	if len(cfg.merchants) == 0 {
		cfg.merchants = []merchantKeys{{DefaultPublicKey, DefaultSecretKey}}
	}
	spec := cfg.spec
	if spec == nil {
		var err error
		if spec, err = openapi.Default(); err != nil {
			return nil, fmt.Errorf("load the embedded contract: %w", err)
		}
	}
	statuses, err := spec.ErrorStatuses()
	if err != nil {
		return nil, fmt.Errorf("read the error table from the contract: %w", err)
	}
	tv, err := spec.TestValues()
	if err != nil {
		return nil, fmt.Errorf("read the test values from the contract: %w", err)
	}
	lim, err := readLimits(spec)
	if err != nil {
		return nil, err
	}
	s := &Server{
		spec:     spec,
		cfg:      cfg,
		statuses: statuses,
		limits:   lim,
		outcomes: newOutcomes(tv),
		refdata:  newRefData(),
		log:      cfg.logger,
		timers:   map[*time.Timer]struct{}{},
	}
	initialized, err := s.openStore()
	if err != nil {
		return nil, err
	}
	defer func() {
		if s.disp == nil { // failed before the dispatcher (after it, Close closes the file)
			_ = s.store.Close() // the file lock must not outlive a sandbox that failed to start
		}
	}()
	s.store.InternPayouts(s.shareReferenceStrings)
	seen := map[string]bool{}
	for _, k := range cfg.merchants {
		if seen[k.public] {
			return nil, fmt.Errorf("configure sandbox: public key %q is given for two merchants; every merchant needs its own public key", k.public)
		}
		seen[k.public] = true
		m, err := newMerchant(k.public, k.secret, s.store)
		if err != nil {
			return nil, fmt.Errorf("configure sandbox: %w", err)
		}
		s.merchants = append(s.merchants, m)
		if s.seedMerchant(m) && !initialized {
			if err := s.seed(m); err != nil {
				return nil, fmt.Errorf("seed the default merchant from the contract's examples: %w", err)
			}
		}
	}
	s.installHooks()
	s.disp = newDispatcher(s)
	if s.store.Durable() {
		if err := s.loadData(initialized); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Shutdown stops the simulated network (no further status changes) and the dispatcher's intake, then
// waits until every queued webhook delivery has been acknowledged or given up, or until ctx ends, in
// which case the remaining attempts are abandoned and ctx's error is returned. Stop the http.Server
// that serves the sandbox first, so that no request creates new work during the drain.
func (s *Server) Shutdown(ctx context.Context) error {
	s.timersMu.Lock()
	s.closed = true
	for t := range s.timers {
		t.Stop()
	}
	clear(s.timers)
	s.timersMu.Unlock()
	err := s.disp.shutdown(ctx)
	if cerr := s.store.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("close the data file: %w", cerr)
	}
	return err
}

// Close stops the sandbox at once: pending status changes and webhook deliveries are abandoned.
// It is Shutdown with no time to drain, for tests and error paths.
func (s *Server) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// after runs fn after d on the simulated network, unless the sandbox is shut down first.
func (s *Server) after(d time.Duration, fn func()) {
	s.timersMu.Lock()
	defer s.timersMu.Unlock()
	if s.closed {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		s.timersMu.Lock()
		_, live := s.timers[t]
		delete(s.timers, t)
		if live {
			s.running++
		}
		s.timersMu.Unlock()
		if live {
			fn()
			s.timersMu.Lock()
			s.running--
			s.timersMu.Unlock()
		}
	})
	s.timers[t] = struct{}{}
}

// Idle reports whether nothing is left to happen on its own: no simulated status change is scheduled or
// running, and no webhook delivery is queued, in flight or waiting to be retried. Tests wait for it to
// prove that something did not happen, instead of sleeping and hoping it would have by then.
func (s *Server) Idle() bool {
	s.timersMu.Lock()
	busy := len(s.timers) > 0 || s.running > 0
	s.timersMu.Unlock()
	return !busy && s.disp.pending() == 0
}

// now is the sandbox's clock for timestamps in objects and events, in UTC and whole seconds as the
// spec's examples show them.
func (s *Server) now() time.Time { return s.cfg.clock().UTC().Truncate(time.Second) }

// merchantByPublicKey finds a merchant by public key, comparing every configured key in constant
// time so that response timing does not reveal how much of a guessed key is right.
func (s *Server) merchantByPublicKey(key string) *merchant {
	var found *merchant
	for _, m := range s.merchants {
		if equalConstantTime(m.publicKey, key) && found == nil {
			found = m
		}
	}
	return found
}

// ServeHTTP implements http.Handler; see server.go for the request pipeline.
var _ http.Handler = (*Server)(nil)
