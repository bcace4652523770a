package sandbox

import (
	"fmt"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
)

// WithDataDir keeps the sandbox's state in dir (created if need be) so that it survives a restart:
// merchants' objects, idempotency keys, events, delivery attempts and failures, and the outbox of
// webhook deliveries not yet finished (package store). Without it everything is in memory and gone
// when the process ends. Two sandboxes cannot share a directory: the second fails to start.
func WithDataDir(dir string) Option {
	return func(c *config) {
		if dir == "" {
			c.errs = append(c.errs, fmt.Errorf("WithDataDir: the directory must not be empty"))
			return
		}
		c.dataDir = dir
	}
}

// withStoreOptions passes options to store.Open (tests of crash recovery).
func withStoreOptions(opts ...store.OpenOption) Option {
	return func(c *config) { c.storeOpts = append(c.storeOpts, opts...) }
}

// DataDirError is why New could not use the directory WithDataDir names: in use by another sandbox,
// unreadable, or not a sandbox's data. It is the environment's fault, not the options'.
type DataDirError struct{ Err error }

func (e *DataDirError) Error() string { return e.Err.Error() }
func (e *DataDirError) Unwrap() error { return e.Err }

// openStore opens the sandbox's store: in memory, or in the data directory, reporting whether that
// holds a sandbox's state already (then the seed data is not added: it is in the file, as the
// merchant left it).
func (s *Server) openStore() (initialized bool, err error) {
	if s.cfg.dataDir == "" {
		s.store = store.New()
		return false, nil
	}
	st, initialized, err := store.Open(s.cfg.dataDir, s.cfg.storeOpts...)
	if err != nil {
		return false, &DataDirError{err}
	}
	s.store = st
	return initialized, nil
}

// loadData brings the sandbox to the state of its data directory, once the merchants and the
// dispatcher exist: on the first start the seed data (already in the store, written with it) is
// marked as the file's state; on later ones the store loads the file, and what it owed is done again
// by the code that owed it the first time: settlements armed (at once when overdue), the outbox
// queued, each delivery from where its schedule was. It runs in New before the server is returned,
// so no request touches the sandbox yet.
func (s *Server) loadData(initialized bool) error {
	if !initialized {
		tx := s.store.Begin()
		tx.MarkInitialized(time.Now())
		if err := tx.Commit().Wait(); err != nil {
			return &DataDirError{fmt.Errorf("write the data directory %s: %w", s.cfg.dataDir, err)}
		}
		return nil
	}
	loaded, err := s.store.Load(time.Now())
	if err != nil {
		return &DataDirError{fmt.Errorf("read the data directory %s: %w (move it away to start afresh)", s.cfg.dataDir, err)}
	}
	for _, p := range loaded.Pending {
		m := s.merchantOf(p.Merchant)
		switch {
		case p.Payment != nil && p.Payment.Seeded, p.Payout != nil && p.Payout.Seeded:
			// Seed data waits for the sandbox's settle control, after a restart as at the first start.
		case p.Payment != nil:
			s.armPayment(m, p.Payment.PaymentReference, p.Payment.UpdatedAt)
		default:
			s.armPayout(m, p.Payout.PayoutID, p.Payout.CreatedAt)
		}
	}
	for _, d := range loaded.Outbox {
		s.disp.enqueue(&delivery{Delivery: d, merchant: s.merchantOf(d.Merchant)})
	}
	if loaded.Orphans > 0 {
		s.log.Warn("webhooks owed to merchants no longer configured stay in the outbox", "deliveries", loaded.Orphans)
	}
	if len(loaded.Outbox) > 0 {
		s.log.Info("webhooks owed before the restart are queued again", "deliveries", len(loaded.Outbox))
	}
	return nil
}
