package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// RetryPolicy says how often and how patiently a call is retried after a connection error, a 429, a
// 5xx (500, 502, 503, 504) or a 409 idempotency_key_in_use. Only idempotent calls are retried: GET,
// PATCH, DELETE, and a POST that carries an Idempotency-Key.
type RetryPolicy struct {
	// MaxAttempts is the total number of attempts, the first included; 1 disables retries.
	MaxAttempts int
	// MinBackoff is the wait before the first retry; each later retry waits twice as long, with
	// jitter between half and all of it.
	MinBackoff time.Duration
	// MaxBackoff caps every wait, Retry-After included, so that one call cannot hang on a server
	// that asks for a long pause; the call's context can shorten it further.
	MaxBackoff time.Duration
}

// DefaultRetryPolicy is used when New gets no WithRetryPolicy: four attempts, 250 ms then doubling,
// at most 8 s per wait — enough to ride out a restart or a short rate limit without hiding an outage.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 4, MinBackoff: 250 * time.Millisecond, MaxBackoff: 8 * time.Second}
}

// NoRetries makes every call a single attempt, for callers that retry at a higher level.
func NoRetries() RetryPolicy { return RetryPolicy{MaxAttempts: 1} }

func (p RetryPolicy) validate() error {
	var problems []string
	if p.MaxAttempts < 1 {
		problems = append(problems, fmt.Sprintf("MaxAttempts is %d; use at least 1 (1 disables retries)", p.MaxAttempts))
	}
	if p.MinBackoff < 0 || p.MaxBackoff < 0 {
		problems = append(problems, "back-offs must not be negative")
	}
	if p.MaxBackoff < p.MinBackoff {
		problems = append(problems, fmt.Sprintf("MaxBackoff %s is less than MinBackoff %s", p.MaxBackoff, p.MinBackoff))
	}
	if len(problems) > 0 {
		return errors.New("retry policy: " + strings.Join(problems, "; "))
	}
	return nil
}

// backoff is the jittered wait after the given failed attempt (1-based): MinBackoff·2^(attempt-1),
// capped at MaxBackoff, then a uniformly random point between half of it and all of it, so that
// clients that failed together do not retry together while still waiting at least half.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := p.MinBackoff
	for i := 1; i < attempt && d < p.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, p.MaxBackoff)
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// retryAfter parses a Retry-After value, delay-seconds or an HTTP-date, relative to now. ok is false
// when the header is absent or unusable.
func retryAfter(value string, now time.Time) (time.Duration, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(value, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(365*24*time.Hour/time.Second) { // absurd, and would overflow
			secs = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(value); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// retryableStatus reports whether a response may be retried: the service did not act (429, 409
// in-use) or may not have (5xx gateways and failures).
func retryableStatus(status int, code ErrorCode) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	case http.StatusConflict:
		return code == api.CodeIdempotencyKeyInUse
	}
	return false
}

// retryableNetError reports whether a transport error is worth another attempt: the connection
// failed, was reset or closed early, or the attempt timed out. Errors that another attempt cannot
// fix (a bad certificate, an unknown host, a mock that matches nothing) are not.
func retryableNetError(err error) bool {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // *url.Error is itself a net.Error; judge what it wraps
	}
	var (
		certErr    *tls.CertificateVerificationError
		unknownCA  x509.UnknownAuthorityError
		hostnameEr x509.HostnameError
		dnsErr     *net.DNSError
		netErr     net.Error
	)
	switch {
	case errors.Is(err, context.Canceled):
		return false
	case errors.Is(err, context.DeadlineExceeded): // the per-attempt timeout
		return true
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostnameEr):
		return false
	case errors.As(err, &dnsErr):
		return !dnsErr.IsNotFound
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return true
	case errors.As(err, &netErr):
		return true
	}
	return false
}

// sleepCtx waits d or until ctx is done, whichever is first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
