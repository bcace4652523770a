package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// DefaultUserAgent is sent when New gets no WithUserAgent, so that the service's logs can tell this
// client apart from others.
const DefaultUserAgent = "malipo-go-client (+https://github.com/malipo/terraform-provider-malipo)"

// maxResponseBody bounds how much of a response is read, so that a misbehaving server cannot exhaust
// memory. The largest documented response, a list of banks, is far smaller.
const maxResponseBody = 8 << 20

// redactedMark replaces secrets in every rendering of a Client, a WebhookEndpointWithSecret and in text
// the server echoes back.
const redactedMark = "[redacted]"

// Client calls the Malipo v1 API. It is safe for concurrent use; build one per base URL and key pair
// and share it.
type Client struct {
	base      *url.URL
	publicKey string
	secret    secretKey
	http      *http.Client
	userAgent string
	retry     RetryPolicy
	timeout   time.Duration
	logger    *slog.Logger
	autoKey   bool
	sleep     func(context.Context, time.Duration) error // replaced by tests to observe waits
	now       func() time.Time
}

// secretKey holds the merchant's secret key behind a pointer: fmt prints nested pointers as addresses,
// so even reflection-based printing of a Client value (which bypasses its methods) cannot show the key.
type secretKey struct{ p *string }

func (s secretKey) reveal() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// Option configures New.
type Option func(*Client) error

// WithHTTPClient sets the *http.Client whose Transport, Jar and Timeout are used, e.g. to add a proxy,
// TLS settings or a recording transport. The client is copied: redirects are never followed (an API
// that redirects is misconfigured, and following one to another host would send it the secret key).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("WithHTTPClient: the *http.Client is nil; pass one or leave the option out")
		}
		cp := *hc
		cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		c.http = &cp
		return nil
	}
}

// WithUserAgent sets the User-Agent header, e.g. "terraform-provider-malipo/1.2.0", so that the
// service's operators can tell callers apart.
func WithUserAgent(ua string) Option {
	return func(c *Client) error {
		if strings.TrimSpace(ua) == "" || strings.ContainsAny(ua, "\r\n") {
			return errors.New("WithUserAgent: the user agent must be one non-empty line")
		}
		c.userAgent = ua
		return nil
	}
}

// WithRetryPolicy replaces DefaultRetryPolicy; NoRetries() turns retries off.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) error {
		if err := p.validate(); err != nil {
			return fmt.Errorf("WithRetryPolicy: %w", err)
		}
		c.retry = p
		return nil
	}
}

// WithRequestTimeout bounds each attempt (connection, request and reading the response), so that one
// stalled connection is abandoned and retried instead of consuming the whole call's deadline. Zero,
// the default, leaves attempts bounded only by the call's context.
func WithRequestTimeout(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 {
			return fmt.Errorf("WithRequestTimeout: %s is negative; use 0 for no per-attempt limit", d)
		}
		c.timeout = d
		return nil
	}
}

// WithLogger logs every attempt at debug level (operation, method, path, attempt, status, duration,
// and the wait before a retry) and never headers or bodies, so keys and personal data stay out of logs.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) error {
		if l == nil {
			return errors.New("WithLogger: the logger is nil; leave the option out to discard logs")
		}
		c.logger = l
		return nil
	}
}

// WithoutAutoIdempotencyKey stops the client from generating an Idempotency-Key for POSTs that have
// none. A POST then carries a key only when the call passes WithIdempotencyKey, and a POST without a
// key is never retried, since the service might have acted on the first attempt.
func WithoutAutoIdempotencyKey() Option {
	return func(c *Client) error {
		c.autoKey = false
		return nil
	}
}

// New returns a client of the service at baseURL (e.g. "http://127.0.0.1:8080" for a local sandbox)
// for the merchant with the given keys. secretKey may be empty for a client that only completes
// payments and reads reference data; operations that need it then fail before sending anything.
func New(baseURL, publicKey, secretKey string, opts ...Option) (*Client, error) {
	base, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("malipo: base URL %q is not an absolute http or https URL; use e.g. http://127.0.0.1:8080", baseURL)
	}
	if base.RawQuery != "" || base.Fragment != "" || base.User != nil {
		return nil, fmt.Errorf("malipo: base URL %q must not have credentials, a query or a fragment", base.Redacted())
	}
	base.Path = strings.TrimRight(base.Path, "/")
	base.RawPath = ""
	if err := checkKey("public key", publicKey, true); err != nil {
		return nil, err
	}
	if err := checkKey("secret key", secretKey, false); err != nil {
		return nil, err
	}
	c := &Client{
		base:      base,
		publicKey: publicKey,
		userAgent: DefaultUserAgent,
		retry:     DefaultRetryPolicy(),
		logger:    slog.New(slog.DiscardHandler),
		autoKey:   true,
		sleep:     sleepCtx,
		now:       time.Now,
	}
	if secretKey != "" {
		c.secret = secretKeyOf(secretKey)
	}
	if err := WithHTTPClient(&http.Client{})(c); err != nil {
		return nil, err
	}
	var problems []string
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(c); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return nil, errors.New("malipo: " + strings.Join(problems, "; "))
	}
	return c, nil
}

func secretKeyOf(s string) secretKey { return secretKey{p: &s} }

// checkKey rejects keys that cannot be sent as a header value. Its messages never include the key.
func checkKey(what, key string, required bool) error {
	if key == "" {
		if required {
			return fmt.Errorf("malipo: the %s is empty; pass the merchant's %s (e.g. from MALIPO_%s)",
				what, what, strings.ToUpper(strings.ReplaceAll(what, " ", "_")))
		}
		return nil
	}
	if strings.TrimSpace(key) != key {
		return fmt.Errorf("malipo: the %s has leading or trailing white space; remove it (a copied key often ends with a newline)", what)
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("malipo: the %s contains a control character; copy it again", what)
		}
	}
	return nil
}

// String describes the client without its secret key, so that printing or logging it is safe.
func (c *Client) String() string {
	if c == nil {
		return "client.Client(nil)"
	}
	secret := "<none>"
	if c.secret.p != nil {
		secret = redactedMark
	}
	return fmt.Sprintf("client.Client{baseURL: %q, publicKey: %q, secretKey: %s}", c.base.String(), c.publicKey, secret)
}

// GoString is the %#v form, the same as String.
func (c *Client) GoString() string { return c.String() }

// Format makes every fmt verb (%v, %+v, %#v, %s, %q, %x, …) print String, never the fields.
func (c *Client) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		_, _ = io.WriteString(f, strconv.Quote(c.String()))
		return
	}
	_, _ = io.WriteString(f, c.String())
}

// LogValue makes log/slog record String, never the fields.
func (c *Client) LogValue() slog.Value { return slog.StringValue(c.String()) }

// scrub removes secrets from text the server sent back: the secret key, in case a proxy echoes request
// headers, and every whsec_ webhook secret, in case a body quoted in an error carries one (an echoed
// request with a secret of the caller's, or a create response the client could not read).
func (c *Client) scrub(s string) string {
	if k := c.secret.reveal(); k != "" && strings.Contains(s, k) {
		s = strings.ReplaceAll(s, k, redactedMark)
	}
	if strings.Contains(s, whsecPrefix) {
		s = whsecToken.ReplaceAllString(s, whsecPrefix+redactedMark)
	}
	return s
}

// whsecToken is a webhook endpoint secret in text: the whsec_ prefix and what base64 may follow it,
// also JSON-escaped (\/, \u002b) or URL-encoded (%2B, %2F, %3D).
var whsecToken = regexp.MustCompile(`whsec_(?:[A-Za-z0-9+/=]|\\/|\\u002[bB]|%2[BbFf]|%3[Dd])*`)

const whsecPrefix = "whsec_"

// CallOption adjusts one call.
type CallOption func(*callOptions)

type callOptions struct {
	key    string
	keySet bool
	meta   *Meta
}

// WithIdempotencyKey sends key as the Idempotency-Key of a POST, on every attempt, instead of a
// generated one. Pass the same key when you repeat a logical operation later (for example after a
// crash) and the service replays the first outcome instead of acting twice. Operations other than
// POST ignore it.
func WithIdempotencyKey(key string) CallOption {
	return func(o *callOptions) { o.key, o.keySet = key, true }
}

// WithMeta fills m with what the call's exchange said beyond the model: status, replay, key, attempts.
// It is filled on success and on error.
func WithMeta(m *Meta) CallOption {
	return func(o *callOptions) { o.meta = m }
}

// Meta is what a call's last exchange said beyond its model, for callers that need to know it (the
// contract suite checks replays; the provider records the idempotency key).
type Meta struct {
	// StatusCode is the HTTP status of the last attempt; 0 when no response arrived.
	StatusCode int
	// Replayed is true when the service answered with `Idempotent-Replayed: true`: the response is the
	// first request's, and nothing was done again.
	Replayed bool
	// IdempotencyKey is the key sent with a POST, given or generated; empty otherwise.
	IdempotencyKey string
	// Attempts is how many attempts were made.
	Attempts int
	// Message is the envelope's message, for people.
	Message string
	// Header is the last response's header.
	Header http.Header
}

// request is one logical call.
type request struct {
	op     api.Operation
	params []string   // path parameter values, in template order, already validated
	query  url.Values // nil for none
	body   any        // nil sends no body
	out    any        // pointer the envelope's data is decoded into; nil ignores the body (204)
	opts   []CallOption
}

// do runs a call: it prepares the request once (checks, body, Idempotency-Key), so that every attempt
// sends the same bytes and key, then sends it until an attempt settles the call.
func (c *Client) do(ctx context.Context, r request) error {
	co, meta := applyCallOptions(r.opts)
	payload, err := c.prepare(ctx, r.op, r.body, co, meta)
	if err != nil {
		return err
	}
	// A POST without a key is not idempotent: the first attempt may have been acted on.
	retryable := r.op.Method != http.MethodPost || meta.IdempotencyKey != ""
	target := c.url(r.op, r.params, r.query)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("malipo: %s: not sent: %w", r.op.Words(), err)
	}
	return c.send(ctx, r, target, payload, meta, retryable)
}

// applyCallOptions collects the call's options, and returns the Meta to fill: the caller's (reset, so
// that nothing of an earlier call survives) or a scratch one, so that the rest of the call can fill it
// unconditionally.
func applyCallOptions(opts []CallOption) (callOptions, *Meta) {
	var co callOptions
	for _, o := range opts {
		if o != nil {
			o(&co)
		}
	}
	meta := co.meta
	if meta == nil {
		meta = &Meta{}
	}
	*meta = Meta{}
	return co, meta
}

// prepare does everything that can fail before the first attempt, so that a call that cannot be sent
// fails without touching the network: a nil context, a missing secret key, a body that does not encode,
// a bad Idempotency-Key. It returns the encoded body and records the key in meta.
func (c *Client) prepare(ctx context.Context, op api.Operation, body any, co callOptions, meta *Meta) ([]byte, error) {
	if ctx == nil {
		return nil, fmt.Errorf("malipo: %s: the context is nil; pass context.Background() or the caller's context", op.Words())
	}
	if op.Needs(api.HeaderSecretKey) && c.secret.p == nil {
		return nil, fmt.Errorf("malipo: %s: needs the secret key, but the client was created without one; pass the merchant's secret key to client.New", op.Words())
	}
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("malipo: %s: encode the request body: %w", op.Words(), err)
		}
	}
	key, err := c.idempotencyKey(op, co)
	if err != nil {
		return nil, err
	}
	meta.IdempotencyKey = key
	return payload, nil
}

// idempotencyKey returns the Idempotency-Key a POST carries on every attempt: the caller's, checked
// because a header cannot carry an empty, over-long or multi-line value, or a generated one unless
// WithoutAutoIdempotencyKey turned that off. Other methods are idempotent and carry none.
func (c *Client) idempotencyKey(op api.Operation, co callOptions) (string, error) {
	if op.Method != http.MethodPost {
		return "", nil
	}
	switch {
	case co.keySet:
		if co.key == "" || len(co.key) > 255 || strings.ContainsAny(co.key, "\r\n") {
			return "", &InvalidRequestError{Operation: op.Words(), Errors: []FieldError{{
				Field: "header.idempotency-key", Reason: "must be 1 to 255 characters on one line"}}}
		}
		return co.key, nil
	case c.autoKey:
		return newIdempotencyKey(), nil
	}
	return "", nil
}

// send makes attempts until one settles the call: a success, a failure another attempt cannot change,
// the last attempt the policy allows, or the context ending during the wait between attempts.
func (c *Client) send(ctx context.Context, r request, target string, payload []byte, meta *Meta, retryable bool) error {
	for attempt := 1; ; attempt++ {
		meta.Attempts = attempt
		res := c.attempt(ctx, r.op, target, payload, meta.IdempotencyKey, attempt)
		meta.StatusCode, meta.Header = res.status, res.header
		v := c.judge(ctx, r, res, meta, attempt, retryable)
		if v.final {
			return v.err
		}
		c.logger.LogAttrs(ctx, slog.LevelDebug, "malipo: retrying",
			slog.String("operation", r.op.ID), slog.Int("attempt", attempt), slog.Duration("wait", v.wait),
			slog.String("idempotency_key", meta.IdempotencyKey))
		if err := c.sleep(ctx, v.wait); err != nil {
			return &retryInterruptedError{op: r.op.Words(), attempts: attempt, ctxErr: err, last: v.err}
		}
	}
}

// verdict is what one attempt decided: the call's result (final), or another attempt after wait, with
// err the failure that the retry is for (kept for the error of an interrupted wait).
type verdict struct {
	final bool
	err   error
	wait  time.Duration
}

// judge decides what an attempt's result means for the call: a transport error, a success to decode,
// or an error response.
func (c *Client) judge(ctx context.Context, r request, res result, meta *Meta, attempt int, retryable bool) verdict {
	switch {
	case res.err != nil:
		return c.judgeTransportError(ctx, r.op, res.err, attempt, retryable)
	case res.status >= 200 && res.status < 300:
		meta.Replayed = strings.EqualFold(res.header.Get(api.HeaderIdempotentReplayed), "true")
		return verdict{final: true, err: c.decode(r.op, res, r.out, meta)}
	default:
		return c.judgeErrorResponse(r.op, res, attempt, retryable)
	}
}

// judgeTransportError retries a transient network failure with back-off, unless the call's own
// context ended (the caller gave up), the request is not retryable, or the attempts are used up.
func (c *Client) judgeTransportError(ctx context.Context, op api.Operation, err error, attempt int, retryable bool) verdict {
	if ctx.Err() != nil {
		return verdict{final: true, err: fmt.Errorf("malipo: %s: %w", op.Words(), err)}
	}
	if !retryable || !retryableNetError(err) || attempt >= c.retry.MaxAttempts {
		return verdict{final: true, err: c.netError(op, attempt, retryable, err)}
	}
	return verdict{err: err, wait: c.retry.backoff(attempt)}
}

// judgeErrorResponse turns a non-2xx response into an *APIError, and retries it when the status or
// code is transient; the service's Retry-After, capped by MaxBackoff, replaces the back-off.
func (c *Client) judgeErrorResponse(op api.Operation, res result, attempt int, retryable bool) verdict {
	apiErr := newAPIError(op.Words(), res.status, res.header, res.body, c.scrub)
	apiErr.Attempts = attempt
	if res.status >= 300 && res.status < 400 && apiErr.Code == 0 {
		apiErr.Message = fmt.Sprintf("the service redirected to %q; point the base URL there", c.scrub(res.header.Get("Location")))
	}
	ra, hasRA := retryAfter(res.header.Get(api.HeaderRetryAfter), c.now())
	if hasRA {
		apiErr.RetryAfter = ra
	}
	if !retryable || !retryableStatus(res.status, apiErr.Code) || attempt >= c.retry.MaxAttempts {
		return verdict{final: true, err: apiErr}
	}
	wait := c.retry.backoff(attempt)
	if hasRA {
		wait = min(ra, c.retry.MaxBackoff)
	}
	return verdict{err: apiErr, wait: wait}
}

// netError describes a transport failure that is not retried (again).
func (c *Client) netError(op api.Operation, attempts int, retryable bool, err error) error {
	switch {
	case !retryable && retryableNetError(err):
		return fmt.Errorf("malipo: %s: not retried, because a POST without an Idempotency-Key may have been acted on; "+
			"check its status before sending it again: %w", op.Words(), err)
	case attempts > 1:
		return fmt.Errorf("malipo: %s: after %d attempts: %w", op.Words(), attempts, err)
	default:
		return fmt.Errorf("malipo: %s: %w", op.Words(), err)
	}
}

// retryInterruptedError is returned when the call's context ends while waiting to retry. It wraps both
// the context's error and the last attempt's, so errors.Is(err, context.Canceled) and
// errors.As(err, &apiErr) both work.
type retryInterruptedError struct {
	op       string
	attempts int
	ctxErr   error
	last     error
}

func (e *retryInterruptedError) Error() string {
	last := e.last.Error()
	var apiErr *APIError
	if errors.As(e.last, &apiErr) {
		last = apiErr.detail()
	}
	return fmt.Sprintf("malipo: %s: %v while waiting to retry; attempt %d failed: %s", e.op, e.ctxErr, e.attempts, last)
}

func (e *retryInterruptedError) Unwrap() []error { return []error{e.ctxErr, e.last} }

// result is what one attempt produced: a response, or a transport error.
type result struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// attempt sends one request and reads its whole response within the per-attempt timeout.
func (c *Client) attempt(ctx context.Context, op api.Operation, target string, payload []byte, key string, n int) result {
	actx, cancel := ctx, context.CancelFunc(func() {})
	if c.timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, c.timeout)
	}
	defer cancel()
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, op.Method, target, body)
	if err != nil {
		return result{err: err}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set(api.HeaderPublicKey, c.publicKey)
	if op.Needs(api.HeaderSecretKey) {
		req.Header.Set(api.HeaderSecretKey, c.secret.reveal())
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set(api.HeaderIdempotencyKey, key)
	}
	start := time.Now()
	res := c.exchange(req)
	if res.err != nil && c.timeout > 0 && ctx.Err() == nil && errors.Is(res.err, context.DeadlineExceeded) {
		res.err = fmt.Errorf("attempt timed out after %s (WithRequestTimeout): %w", c.timeout, res.err)
	}
	attrs := []slog.Attr{
		slog.String("operation", op.ID), slog.String("method", op.Method), slog.String("path", req.URL.Path),
		slog.Int("attempt", n), slog.Int("status", res.status), slog.Duration("duration", time.Since(start)),
	}
	if res.err != nil {
		attrs = append(attrs, slog.String("error", c.scrub(res.err.Error())))
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "malipo: request", attrs...)
	return res
}

func (c *Client) exchange(req *http.Request) result {
	resp, err := c.http.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
	if err != nil {
		return result{err: fmt.Errorf("read the %d response: %w", resp.StatusCode, err)}
	}
	if len(data) > maxResponseBody {
		return result{err: fmt.Errorf("the %d response is larger than %d bytes; is the base URL the Malipo API?", resp.StatusCode, maxResponseBody)}
	}
	return result{status: resp.StatusCode, header: resp.Header, body: data}
}

// decode unpacks a 2xx success envelope into out.
func (c *Client) decode(op api.Operation, res result, out any, meta *Meta) error {
	if out == nil && len(bytes.TrimSpace(res.body)) == 0 {
		return nil
	}
	// Data stays raw, so that a missing or null `data` can be told from a zero one, and an error
	// envelope served with a 2xx status from a success, before data is decoded into its model.
	var env api.Envelope[json.RawMessage]
	if err := json.Unmarshal(res.body, &env); err != nil {
		return c.badSuccess(op, res, "is not a JSON success envelope: "+err.Error())
	}
	meta.Message = env.Message
	if env.Status == "error" || env.Code != 0 {
		apiErr := newAPIError(op.Words(), res.status, res.header, res.body, c.scrub)
		apiErr.Attempts = meta.Attempts
		return apiErr
	}
	if out == nil {
		return nil
	}
	if len(env.Data) == 0 || string(env.Data) == "null" {
		return c.badSuccess(op, res, "has no data")
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return c.badSuccess(op, res, "has data that does not match the client's model: "+err.Error())
	}
	return nil
}

func (c *Client) badSuccess(op api.Operation, res result, problem string) error {
	return fmt.Errorf("malipo: %s: the %d response %s; %s", op.Words(), res.status, problem,
		c.scrub(describeBody(res.header.Get("Content-Type"), []byte(c.scrub(string(res.body))), "body")))
}

// url builds the request URL: the operation's path with its parameters escaped, under the base URL.
func (c *Client) url(op api.Operation, params []string, query url.Values) string {
	u := *c.base
	u.Path = c.base.Path + op.URL(params...)
	u.RawQuery = query.Encode()
	return u.String()
}

// newIdempotencyKey returns a random (version 4) UUID, the kind of key the document suggests.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it crashes the program instead)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
