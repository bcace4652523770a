package sandbox

import (
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Timings sets how long the simulated mobile-money network takes. Zero durations mean "at once";
// tests use milliseconds, a developer running the sandbox wants seconds so that intermediate states
// (a `processing` payout) can be observed.
type Timings struct {
	// PromptDelay is how long the simulated customer takes to answer a push prompt, i.e. the time
	// between complete-payment (`processing`) and the final `success` or `failed`.
	PromptDelay time.Duration
	// PayoutDelay is how long a payout stays `processing` before it settles.
	PayoutDelay time.Duration
	// Spread makes settlement times differ from object to object, as a real network's do: each
	// payment and payout settles its delay plus a share of Spread drawn from its id (the same share
	// after a restart), so that the delays run from the delay to the delay plus Spread.
	Spread time.Duration
}

// settleAfter is how long the object id stays processing when its delay is delay: delay plus its
// share of Spread, drawn from a hash of the id.
func (t Timings) settleAfter(delay time.Duration, id string) time.Duration {
	if t.Spread <= 0 {
		return delay
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return delay + time.Duration(h.Sum64()%uint64(t.Spread+1))
}

// DefaultTimings are the timings of a sandbox built without WithTimings: slow enough for a person to
// see the intermediate states, fast enough not to be annoying.
var DefaultTimings = Timings{PromptDelay: 3 * time.Second, PayoutDelay: 2 * time.Second}

// DefaultRetrySchedule is the wait before each webhook retry when WithRetrySchedule is not given:
// exponential back-off from one second to ten minutes, six attempts in all.
var DefaultRetrySchedule = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute}

// DefaultWebhookTimeout is how long one delivery attempt may take before it counts as failed: the
// time-out the document promises receivers (x-malipo-delivery-timeout-seconds, api.WebhookDeliveryTimeout).
const DefaultWebhookTimeout = api.WebhookDeliveryTimeout

// DefaultDeliveryConcurrency is how many webhook attempts may be in flight at once.
const DefaultDeliveryConcurrency = 16

// Option configures New.
type Option func(*config)

type merchantKeys struct{ public, secret string }

type config struct {
	merchants      []merchantKeys
	timings        Timings
	retrySchedule  []time.Duration
	webhookTimeout time.Duration
	concurrency    int
	independent    bool
	logger         *slog.Logger
	clock          func() time.Time
	validation     bool
	rateLimit      int // requests per RateLimitWindow per merchant; 0: no limit, no RateLimit fields
	hooks          []Hooks
	httpClient     *http.Client
	spec           *openapi.Spec
	noSeed         bool
	dataDir        string
	storeOpts      []store.OpenOption
	errs           []error
}

func defaultConfig() config {
	return config{
		timings:        DefaultTimings,
		retrySchedule:  append([]time.Duration(nil), DefaultRetrySchedule...),
		webhookTimeout: DefaultWebhookTimeout,
		concurrency:    DefaultDeliveryConcurrency,
		logger:         slog.New(slog.DiscardHandler),
		clock:          time.Now,
		validation:     true,
		rateLimit:      DefaultRateLimit,
	}
}

// WithMerchant adds a merchant with its key pair. Repeat it for several merchants (the contract suite
// needs two to check that objects of one are invisible to the other); without it the sandbox has one
// merchant with DefaultPublicKey and DefaultSecretKey.
func WithMerchant(publicKey, secretKey string) Option {
	return func(c *config) {
		if err := CheckKeys(publicKey, secretKey); err != nil {
			c.errs = append(c.errs, fmt.Errorf("WithMerchant: %w", err))
			return
		}
		c.merchants = append(c.merchants, merchantKeys{publicKey, secretKey})
	}
}

// CheckKeys says why a key pair cannot be a merchant's, or returns nil: WithMerchant refuses such a
// pair, and a command line checks one first so that its error can name the flag that gave it. The
// error never repeats a key.
func CheckKeys(publicKey, secretKey string) error {
	switch {
	case strings.TrimSpace(publicKey) == "" || strings.TrimSpace(secretKey) == "":
		return errors.New("the public and the secret key must both be non-empty")
	case !validHeaderValue(publicKey) || !validHeaderValue(secretKey):
		return errors.New("keys must be printable ASCII without spaces, since they travel in HTTP headers")
	case strings.HasPrefix(secretKey, "whsec_"):
		return errors.New("a secret key must not start with whsec_, which marks webhook endpoint secrets; use a key like sk_test_abc")
	}
	return nil
}

// WithTimings sets the timings of the simulated network; see Timings.
func WithTimings(t Timings) Option {
	return func(c *config) {
		if t.PromptDelay < 0 || t.PayoutDelay < 0 || t.Spread < 0 {
			c.errs = append(c.errs, fmt.Errorf("WithTimings: delays must not be negative (got prompt %s, payout %s, spread %s)", t.PromptDelay, t.PayoutDelay, t.Spread))
			return
		}
		c.timings = t
	}
}

// WithRetrySchedule sets the waits between webhook attempts: schedule[i] is the wait after the
// (i+1)-th failed attempt, so a delivery gets len(schedule)+1 attempts before it is given up. An
// empty schedule means one attempt only.
func WithRetrySchedule(schedule []time.Duration) Option {
	return func(c *config) {
		for _, d := range schedule {
			if d < 0 {
				c.errs = append(c.errs, fmt.Errorf("WithRetrySchedule: waits must not be negative (got %s)", d))
				return
			}
		}
		c.retrySchedule = append([]time.Duration(nil), schedule...)
	}
}

// WithWebhookTimeout sets how long one delivery attempt may take (connect, send, receive the status)
// before it counts as failed and is retried.
func WithWebhookTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.errs = append(c.errs, fmt.Errorf("WithWebhookTimeout: the timeout must be positive (got %s)", d))
			return
		}
		c.webhookTimeout = d
	}
}

// WithDeliveryConcurrency bounds how many webhook attempts are in flight at once, so that a burst of
// status changes cannot open unbounded connections to receivers.
func WithDeliveryConcurrency(n int) Option {
	return func(c *config) {
		if n < 1 {
			c.errs = append(c.errs, fmt.Errorf("WithDeliveryConcurrency: need at least 1 (got %d)", n))
			return
		}
		c.concurrency = n
	}
}

// WithIndependentDeliveries sends every event on its own instead of after the earlier events of its
// object to the same destination, so that an object's events can arrive in any order: the document
// promises one event per status change, at least once, and no order. The sandbox keeps them in order
// by default because a person reading a receiver's log expects it; an implementation need not, and
// package internal/variance uses this to show that the contract suite does not assume it.
func WithIndependentDeliveries() Option { return func(c *config) { c.independent = true } }

// WithLogger makes the sandbox log one structured line per request and per webhook attempt. Keys and
// webhook secrets are never logged. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithClock sets the clock used for the timestamps in objects and events (not for the simulated
// delays), so that tests can produce stable output.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithValidation turns validation of requests against the contract on (the default) or off. Off
// exists only to measure what validation costs; an unvalidated sandbox is not a reference for anything.
func WithValidation(on bool) Option { return func(c *config) { c.validation = on } }

// WithRateLimit sets how many requests each merchant's keys may make per RateLimitWindow (default
// DefaultRateLimit); past it the sandbox answers 429 until the window ends. 0 turns limiting off, and
// with it the RateLimit response fields, which the document lets an implementation leave out.
func WithRateLimit(requests int) Option {
	return func(c *config) {
		if requests < 0 {
			c.errs = append(c.errs, fmt.Errorf("rate limit %d: give 0 (no limit) or a positive number of requests per %s", requests, RateLimitWindow))
			return
		}
		c.rateLimit = requests
	}
}

// WithHTTPClient sets the client webhook deliveries are sent with, e.g. one whose transport reaches
// an in-process receiver. Its own Timeout, if any, applies on top of WithWebhookTimeout.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) {
		if hc != nil {
			c.httpClient = hc
		}
	}
}

// WithSpec serves a different copy of the contract than the embedded one, for tests that check the
// sandbox follows the document rather than hard-coded knowledge.
func WithSpec(spec *openapi.Spec) Option {
	return func(c *config) {
		if spec != nil {
			c.spec = spec
		}
	}
}

// validHeaderValue reports whether s can be sent as a header value unchanged and compared exactly.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
