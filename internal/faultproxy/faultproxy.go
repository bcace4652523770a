// Package faultproxy is an HTTP proxy for tests that breaks the network between a client and a
// server, the way net/http/httptest gives tests a server: it forwards requests to a target (an
// in-process sandbox) and, by a seeded schedule, injects the faults a real network and its gateways
// produce — a connection reset before the request reaches the server, a reset after the server acted
// (the response is lost), 502 and 503 from a gateway, 429 with Retry-After, and an answer slower than
// the client's time-out. It counts every fault it injects, so that a test can say what it survived.
//
// The schedule is deterministic per request, not per arrival order: the fault of a request is drawn
// from the seed, the request's identity (its method, path and body) and how often that identity was
// seen before. A retry is the same request again, so its faults follow from the first; concurrent
// callers meet the same faults on every run whatever order their requests arrive in, as long as the
// requests themselves are the same (a path with a server-generated id is not).
package faultproxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is one fault the proxy injects.
type Kind string

// The faults. "Forwarded" says whether the server received the request, and so may have acted on it.
const (
	// ResetBeforeForward resets the client's connection without forwarding: the server never sees the
	// request.
	ResetBeforeForward Kind = "reset-before-forward"
	// ResetAfterForward forwards the request, reads the server's whole response and then resets the
	// client's connection instead of answering: the server acted, the response is lost.
	ResetAfterForward Kind = "reset-after-forward"
	// BadGateway answers 502 without forwarding, as a gateway that cannot reach the server.
	BadGateway Kind = "502-not-forwarded"
	// Unavailable answers 503 without forwarding, as a gateway shedding load.
	Unavailable Kind = "503-not-forwarded"
	// BadGatewayAfterForward forwards the request and answers 502 instead of the server's response, as
	// a gateway whose upstream connection broke while the answer came back: the server acted.
	BadGatewayAfterForward Kind = "502-after-forward"
	// RateLimited answers 429 with Config.RetryAfter as Retry-After, without forwarding.
	RateLimited Kind = "429-retry-after"
	// SlowAnswer forwards the request and holds the server's response for Config.SlowDelay, or until
	// the client hangs up: with a delay beyond the client's time-out the server acted and the client
	// gave up on the answer.
	SlowAnswer Kind = "slow-answer"
)

// Kinds is every fault, in a fixed order.
func Kinds() []Kind {
	return []Kind{ResetBeforeForward, ResetAfterForward, BadGateway, Unavailable, BadGatewayAfterForward, RateLimited, SlowAnswer}
}

// Config sets up a Proxy.
type Config struct {
	// Target is the base URL requests are forwarded to, e.g. an httptest server's URL.
	Target string
	// Seed makes the schedule reproducible: the same seed gives every request identity the same faults.
	Seed uint64
	// Rate is the share of requests that get a fault, from 0 (none) to 1 (all, up to MaxConsecutive).
	Rate float64
	// Kinds are the faults drawn from, with equal chance; empty means all of Kinds().
	Kinds []Kind
	// MaxConsecutive caps how many faults in a row one request identity gets: the next request with
	// that identity is forwarded untouched. A client with more attempts than this always gets through.
	// It must be at least 1.
	MaxConsecutive int
	// RetryAfter is the Retry-After of a RateLimited answer, sent in whole seconds (0 allowed).
	RetryAfter time.Duration
	// SlowDelay is how long a SlowAnswer is held at most; make it longer than the client's time-out.
	SlowDelay time.Duration
}

// Stats is what a Proxy saw and did.
type Stats struct {
	// Requests is every request received, by method.
	Requests map[string]int
	// Forwarded is how many requests reached the target (with or without a fault afterwards).
	Forwarded int
	// Faults is every injected fault, by kind.
	Faults map[Kind]int
	// UpstreamErrors is how many forwarded requests got no answer from the target (answered 502 by
	// the proxy, not counted as a fault): a client that gave up mid-request, or a target that failed.
	UpstreamErrors int
}

// Total is the number of faults injected.
func (s Stats) Total() int {
	n := 0
	for _, v := range s.Faults {
		n += v
	}
	return n
}

// String lists the figures in a fixed order, for test logs.
func (s Stats) String() string {
	var b strings.Builder
	methods := make([]string, 0, len(s.Requests))
	for m := range s.Requests {
		methods = append(methods, m)
	}
	slices.Sort(methods)
	b.WriteString("requests:")
	for _, m := range methods {
		fmt.Fprintf(&b, " %s=%d", m, s.Requests[m])
	}
	fmt.Fprintf(&b, "; forwarded: %d; upstream errors: %d; faults: %d (", s.Forwarded, s.UpstreamErrors, s.Total())
	for i, k := range Kinds() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%d", k, s.Faults[k])
	}
	b.WriteString(")")
	return b.String()
}

// identity is what the schedule knows about one request identity.
type identity struct {
	seen int // requests with this identity so far
	run  int // faults in a row
}

// Proxy is a running fault-injecting proxy. Close it when done.
type Proxy struct {
	// URL is the proxy's base URL, for the client under test.
	URL string

	cfg      Config
	target   *url.URL
	srv      *httptest.Server
	upstream *http.Client

	mu    sync.Mutex
	ids   map[string]*identity
	stats Stats
}

// Start checks cfg and starts a proxy on a loopback port.
func Start(cfg Config) (*Proxy, error) {
	var problems []string
	target, err := url.Parse(cfg.Target)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		problems = append(problems, fmt.Sprintf("Target %q is not an absolute http or https URL", cfg.Target))
	}
	if cfg.Rate < 0 || cfg.Rate > 1 {
		problems = append(problems, fmt.Sprintf("Rate %v is not between 0 and 1", cfg.Rate))
	}
	if cfg.MaxConsecutive < 1 {
		problems = append(problems, fmt.Sprintf("MaxConsecutive %d is less than 1", cfg.MaxConsecutive))
	}
	if len(cfg.Kinds) == 0 {
		cfg.Kinds = Kinds()
	}
	for _, k := range cfg.Kinds {
		if !slices.Contains(Kinds(), k) {
			problems = append(problems, fmt.Sprintf("unknown fault %q", k))
		}
	}
	if slices.Contains(cfg.Kinds, SlowAnswer) && cfg.SlowDelay <= 0 {
		problems = append(problems, "SlowAnswer needs a SlowDelay longer than the client's time-out")
	}
	if cfg.RetryAfter < 0 {
		problems = append(problems, "RetryAfter is negative")
	}
	if len(problems) > 0 {
		return nil, errors.New("faultproxy: " + strings.Join(problems, "; "))
	}
	p := &Proxy{
		cfg:      cfg,
		target:   target,
		upstream: &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64}},
		ids:      map[string]*identity{},
		stats:    Stats{Requests: map[string]int{}, Faults: map[Kind]int{}},
	}
	p.upstream.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL
	return p, nil
}

// Close stops the proxy; requests still held (slow answers) are cut off.
func (p *Proxy) Close() {
	p.srv.CloseClientConnections()
	p.srv.Close()
	p.upstream.CloseIdleConnections()
}

// Stats returns a copy of the figures so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := Stats{Requests: map[string]int{}, Forwarded: p.stats.Forwarded, Faults: map[Kind]int{},
		UpstreamErrors: p.stats.UpstreamErrors}
	for k, v := range p.stats.Requests {
		out.Requests[k] = v
	}
	for k, v := range p.stats.Faults {
		out.Faults[k] = v
	}
	return out
}

// decide draws the fault of r, whose body is body (empty for none), and counts it.
func (p *Proxy) decide(r *http.Request, body []byte) Kind {
	sum := sha256.Sum256(body)
	name := r.Method + " " + r.URL.RequestURI() + " " + hex.EncodeToString(sum[:8])
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Requests[r.Method]++
	id := p.ids[name]
	if id == nil {
		id = &identity{}
		p.ids[name] = id
	}
	h := fnv.New64a()
	_, _ = fmt.Fprintf(h, "%s\x00%d", name, id.seen)
	rng := rand.New(rand.NewPCG(p.cfg.Seed, h.Sum64())) //nolint:gosec // a test schedule, not a secret
	id.seen++
	if id.run >= p.cfg.MaxConsecutive || rng.Float64() >= p.cfg.Rate {
		id.run = 0
		return ""
	}
	id.run++
	k := p.cfg.Kinds[rng.IntN(len(p.cfg.Kinds))]
	p.stats.Faults[k]++
	return k
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	kind := p.decide(r, body)
	switch kind {
	case ResetBeforeForward:
		reset(w)
		return
	case BadGateway, Unavailable, RateLimited:
		status := map[Kind]int{BadGateway: http.StatusBadGateway, Unavailable: http.StatusServiceUnavailable,
			RateLimited: http.StatusTooManyRequests}[kind]
		if kind == RateLimited {
			w.Header().Set("Retry-After", strconv.Itoa(int(p.cfg.RetryAfter/time.Second)))
		}
		injected(w, status, kind)
		return
	}
	res, err := p.forward(r, body)
	if err != nil {
		p.mu.Lock()
		p.stats.UpstreamErrors++
		p.mu.Unlock()
		injected(w, http.StatusBadGateway, Kind("upstream error: "+err.Error()))
		return
	}
	switch kind {
	case ResetAfterForward:
		reset(w)
		return
	case BadGatewayAfterForward:
		injected(w, http.StatusBadGateway, kind)
		return
	case SlowAnswer:
		t := time.NewTimer(p.cfg.SlowDelay)
		select {
		case <-t.C:
		case <-r.Context().Done():
		}
		t.Stop()
	}
	for k, vs := range res.header {
		w.Header()[k] = vs
	}
	w.WriteHeader(res.status)
	_, _ = w.Write(res.body)
}

// answer is a response of the target, read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// hopByHop are the headers of one connection, which a proxy does not pass on (RFC 9110, 7.6.1).
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forward sends r to the target and reads the whole answer, so that a fault after forwarding hits a
// request the server has finished with.
func (p *Proxy) forward(r *http.Request, body []byte) (*answer, error) {
	u := *p.target
	u.Path = strings.TrimRight(p.target.Path, "/") + r.URL.Path
	u.RawPath = ""
	u.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	out.Header = r.Header.Clone()
	for _, h := range hopByHop {
		out.Header.Del(h)
	}
	p.mu.Lock()
	p.stats.Forwarded++
	p.mu.Unlock()
	res, err := p.upstream.Do(out)
	if err != nil {
		return nil, err
	}
	defer func() { _ = res.Body.Close() }()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	h := res.Header.Clone()
	for _, name := range hopByHop {
		h.Del(name)
	}
	return &answer{status: res.StatusCode, header: h, body: data}, nil
}

// injected answers with status and a plain-text body naming the fault, as a gateway would.
func injected(w http.ResponseWriter, status int, kind Kind) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "faultproxy: injected %s\n", kind)
}

// reset closes the client's connection with a TCP reset (SO_LINGER 0), so that the client reads
// ECONNRESET rather than a clean end of stream.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		injected(w, http.StatusBadGateway, "reset (the connection cannot be hijacked)")
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
