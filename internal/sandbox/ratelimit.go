package sandbox

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// DefaultRateLimit is how many requests one merchant's keys may make per RateLimitWindow: high enough
// that no test, conform run or Terraform apply meets it, low enough that a runaway client does.
const DefaultRateLimit = 60000

// RateLimitWindow is the length of the fixed window the limit counts requests in.
const RateLimitWindow = time.Minute

// rateLimiter is one merchant's fixed-window request count. The document's RateLimit-Limit,
// RateLimit-Remaining and RateLimit-Reset tell a client where it stands, so that it slows down before
// a 429; the sandbox sends them on every answer to a request whose keys it accepted, and refuses the
// request past the limit with 429 and a Retry-After that ends with the window.
type rateLimiter struct {
	mu    sync.Mutex
	start time.Time // when the current window began
	used  int       // requests counted in it
}

// quota is where a merchant stands after one more request.
type quota struct {
	limit, remaining int
	reset            time.Duration // until the window ends
	exceeded         bool
}

// take counts one request at now against limit per window.
func (l *rateLimiter) take(now time.Time, limit int, window time.Duration) quota {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.start.IsZero() || !now.Before(l.start.Add(window)) {
		l.start, l.used = now, 0
	}
	l.used++
	return quota{limit: limit, remaining: max(limit-l.used, 0), reset: l.start.Add(window).Sub(now), exceeded: l.used > limit}
}

// seconds rounds the time left in the window up to whole seconds, as RateLimit-Reset and Retry-After
// carry it: a client that waits that long finds the window over.
func (q quota) seconds() int {
	return int((q.reset + time.Second - 1) / time.Second)
}

// setHeaders writes the three RateLimit fields.
func (q quota) setHeaders(h http.Header) {
	h.Set(api.HeaderRateLimitLimit, strconv.Itoa(q.limit))
	h.Set(api.HeaderRateLimitRemaining, strconv.Itoa(q.remaining))
	h.Set(api.HeaderRateLimitReset, strconv.Itoa(q.seconds()))
}

// limitRate counts the request against its merchant's limit, sets the RateLimit fields on w, and returns
// the 429 to send when the limit is spent (nil otherwise). A limit of 0 turns limiting, and the fields, off.
func (s *Server) limitRate(m *merchant, w http.ResponseWriter) *response {
	if s.cfg.rateLimit <= 0 {
		return nil
	}
	q := m.limiter.take(s.cfg.clock(), s.cfg.rateLimit, RateLimitWindow)
	q.setHeaders(w.Header())
	if !q.exceeded {
		return nil
	}
	resp := s.fail(api.CodeRateLimited, fmt.Sprintf("Too many requests: these keys may make %d per %s; retry after %d seconds.", q.limit, RateLimitWindow, q.seconds()), nil, nil)
	resp.set(api.HeaderRetryAfter, strconv.Itoa(q.seconds()))
	return resp
}
