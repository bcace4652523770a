package contracttests

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
)

// The embedded target: the reference implementation started in-process with fast timings, so that
// `malipo conform` without --target, and the suite's own tests, run in seconds.

// Second merchant of the embedded sandbox, for the cross-merchant isolation checks.
const (
	embeddedOtherPublicKey = "pk_test_malipo_conform_other"
	embeddedOtherSecretKey = "sk_test_malipo_conform_other"
)

// EmbeddedTimings are the simulated-network and webhook timings of the embedded sandbox.
var EmbeddedTimings = struct {
	Network        sandbox.Timings
	RetrySchedule  []time.Duration
	WebhookTimeout time.Duration
	Stall          time.Duration
}{
	Network:        sandbox.Timings{PromptDelay: 20 * time.Millisecond, PayoutDelay: 20 * time.Millisecond},
	RetrySchedule:  []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond, 160 * time.Millisecond, 320 * time.Millisecond},
	WebhookTimeout: 300 * time.Millisecond,
	Stall:          time.Second,
}

// StartEmbedded starts the reference sandbox on a loopback port and returns a Config aimed at it (two
// merchants, timings matched to the receiver's stall) and a function that stops it and reports an error
// the server met while serving.
func StartEmbedded() (Config, func() error, error) { return startEmbedded() }

// startEmbedded is StartEmbedded with extra sandbox options (a fault, for the self-test) applied after
// the defaults. It is not exported because package sandbox is internal: outside code could not name
// the options.
func startEmbedded(opts ...sandbox.Option) (Config, func() error, error) {
	base := []sandbox.Option{
		sandbox.WithMerchant(sandbox.DefaultPublicKey, sandbox.DefaultSecretKey),
		sandbox.WithMerchant(embeddedOtherPublicKey, embeddedOtherSecretKey),
		sandbox.WithTimings(EmbeddedTimings.Network),
		sandbox.WithRetrySchedule(EmbeddedTimings.RetrySchedule),
		sandbox.WithWebhookTimeout(EmbeddedTimings.WebhookTimeout),
	}
	srv, err := sandbox.New(append(base, opts...)...)
	if err != nil {
		return Config{}, nil, fmt.Errorf("start the embedded sandbox: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Config{}, nil, fmt.Errorf("start the embedded sandbox: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	stop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		// Deliveries still being retried when the run ends (to a receiver that is gone) are abandoned
		// when the drain's time is up; that is the end of a run, not an error.
		err := errors.Join(ignoreDeadline(hs.Shutdown(ctx)), ignoreDeadline(srv.Shutdown(ctx)))
		if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
			err = errors.Join(fmt.Errorf("embedded sandbox: %w", serveErr), err)
		}
		return err
	}
	cfg := Config{
		BaseURL:           "http://" + ln.Addr().String(),
		Keys:              Keys{Public: sandbox.DefaultPublicKey, Secret: sandbox.DefaultSecretKey},
		OtherMerchant:     &Keys{Public: embeddedOtherPublicKey, Secret: embeddedOtherSecretKey},
		WebhookStall:      EmbeddedTimings.Stall,
		EventuallyTimeout: 10 * time.Second,
	}
	return cfg, stop, nil
}

func ignoreDeadline(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}
