// Package embedded starts the reference sandbox in-process on a loopback port, with timings fast
// enough for a whole conformance run in seconds: the target of `malipo conform` without --target, and
// of the contract suite's own tests. It lives apart from the checks so that a program that imports
// the checks (contracttests, receivertests) does not get the sandbox and its database with them.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
)

// Second merchant of the embedded sandbox, for the cross-merchant isolation checks.
const (
	otherPublicKey = "pk_test_malipo_conform_other"
	otherSecretKey = "sk_test_malipo_conform_other"
)

// Timings are the simulated-network and webhook timings of the embedded sandbox.
var Timings = struct {
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

// Target is a started embedded sandbox as a grader reaches it.
type Target struct {
	// BaseURL is where it serves the API.
	BaseURL string
	// PublicKey and SecretKey are its first merchant's keys; OtherPublicKey and OtherSecretKey its
	// second merchant's, for the cross-merchant isolation checks.
	PublicKey, SecretKey           string
	OtherPublicKey, OtherSecretKey string
	// Stall is how long a receiver must stall for a delivery to time out (Timings.Stall).
	Stall time.Duration
	// Wait is how long a grader waits for an asynchronous outcome: far more than the sandbox takes.
	Wait time.Duration
}

// Start starts the reference sandbox on a loopback port with two merchants and the Timings, then the
// options given (a fault, a variant, another document), and returns the target and a function that
// stops it and reports an error the server met while serving.
func Start(opts ...sandbox.Option) (Target, func() error, error) {
	base := []sandbox.Option{
		sandbox.WithMerchant(sandbox.DefaultPublicKey, sandbox.DefaultSecretKey),
		sandbox.WithMerchant(otherPublicKey, otherSecretKey),
		sandbox.WithTimings(Timings.Network),
		sandbox.WithRetrySchedule(Timings.RetrySchedule),
		sandbox.WithWebhookTimeout(Timings.WebhookTimeout),
	}
	srv, err := sandbox.New(append(base, opts...)...)
	if err != nil {
		return Target{}, nil, fmt.Errorf("start the embedded sandbox: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Target{}, nil, fmt.Errorf("start the embedded sandbox: %w", err)
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
	return Target{
		BaseURL:   "http://" + ln.Addr().String(),
		PublicKey: sandbox.DefaultPublicKey, SecretKey: sandbox.DefaultSecretKey,
		OtherPublicKey: otherPublicKey, OtherSecretKey: otherSecretKey,
		Stall: Timings.Stall,
		Wait:  10 * time.Second,
	}, stop, nil
}

func ignoreDeadline(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}
