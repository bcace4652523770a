package harness

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Keys is one merchant's key pair.
type Keys struct {
	Public string
	Secret string
}

// Exchange is one recorded HTTP request and response.
type Exchange struct {
	Method    string
	Path      string
	Status    int
	Header    http.Header
	Body      []byte
	Operation string
	Duration  time.Duration
	// JSON is the decoded body, nil when it is not JSON.
	JSON any
	// Seq identifies the exchange's evidence (0 when none was recorded), so that failures about it can
	// point at it (T.FailAbout).
	Seq uint64
}

// String summarises the exchange for reports: `POST /v1/payment/payouts/process → 201`.
func (e *Exchange) String() string {
	return fmt.Sprintf("%s %s → %d", e.Method, e.Path, e.Status)
}

// Get returns the value at a JSON pointer of the body (`/data/status`), or nil.
func (e *Exchange) Get(pointer string) any {
	v, _ := openapi.ValueAt(e.JSON, openapi.PointerTokens(pointer))
	return v
}

// Str returns the string at a JSON pointer, or "".
func (e *Exchange) Str(pointer string) string {
	s, _ := e.Get(pointer).(string)
	return s
}

// Num returns the number at a JSON pointer, or -1.
func (e *Exchange) Num(pointer string) float64 {
	f, ok := e.Get(pointer).(float64)
	if !ok {
		return -1
	}
	return f
}

// FieldErrors returns the `field` of every entry of an error envelope's `errors`.
func (e *Exchange) FieldErrors() []string {
	list, _ := e.Get("/errors").([]any)
	out := make([]string, 0, len(list))
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			f, _ := m["field"].(string)
			out = append(out, f)
		}
	}
	return out
}

// request is what a check asks Do to send.
type request struct {
	method, path string
	body         []byte
	contentType  string
	header       http.Header
	keys         *Keys
	omitKeys     map[string]bool
	noDefault    bool // send exactly the given headers, no key headers at all
	documented   bool // method and path come from the run's document (see documentRequest)
	// collect, when set, receives the response's violations of the document instead of the check's
	// failures: a generated request is judged, and shrunk, before anything about it is recorded.
	collect *[]report.Failure
}

// CollectViolations has the response's violations of the document appended to into instead of
// recorded as failures of the check.
func CollectViolations(into *[]report.Failure) ReqOption {
	return func(r *request) { r.collect = into }
}

// ReqOption adjusts one request.
type ReqOption func(*request)

// WithHeader sets a header.
func WithHeader(name, value string) ReqOption {
	return func(r *request) { r.header.Set(name, value) }
}

// WithIdempotencyKey sets the Idempotency-Key header.
func WithIdempotencyKey(key string) ReqOption { return WithHeader(api.HeaderIdempotencyKey, key) }

// WithKeys sends these keys instead of the target's.
func WithKeys(k Keys) ReqOption { return func(r *request) { r.keys = &k } }

// WithoutKeyHeader leaves one key header (`secret-key`) out.
func WithoutKeyHeader(name string) ReqOption {
	return func(r *request) { r.omitKeys[name] = true }
}

// WithoutKeys sends no key header at all.
func WithoutKeys() ReqOption { return func(r *request) { r.noDefault = true } }

// WithRawBody sends body as it is, with the given content type ("" for none).
func WithRawBody(contentType string, body []byte) ReqOption {
	return func(r *request) { r.body, r.contentType = body, contentType }
}

// Do sends a request to the target and returns the exchange. A JSON body is any value json.Marshal
// accepts (nil for none). Key headers are the ones the operation's security requirement names, with
// the target's keys. The response is validated against the spec; every violation is a failure of the
// running check, with its pointer and spec location. A transport error ends the check.
func (t *T) Do(method, path string, body any, opts ...ReqOption) *Exchange {
	r := &request{method: method, path: path, header: http.Header{}, omitKeys: map[string]bool{}}
	t.noteEndpointURL(body)
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatalf("encode request body for %s %s: %v", method, path, err)
		}
		r.body, r.contentType = data, "application/json"
	}
	for _, o := range opts {
		o(r)
	}
	return t.send(r)
}

// noteEndpointURL tells the receiver when a request body names one of its paths as a webhook
// endpoint's `url` (create or update an endpoint): deliveries there are signed with the endpoint's
// secret, not the merchant's (webhooks.signatures).
func (t *T) noteEndpointURL(body any) {
	m, ok := body.(map[string]any)
	if !ok {
		return
	}
	u, ok := m["url"].(string)
	if !ok {
		return
	}
	if path, ok := strings.CutPrefix(u, t.suite.receiver.URL("")); ok {
		path, _, _ = strings.Cut(path, "?") // the receiver routes by path; a query is the endpoint's own
		t.suite.receiver.MarkEndpoint(path)
	}
}

// maxRateLimitRetries bounds how often one request is sent again after a 429.
const maxRateLimitRetries = 5

// send sends the request, and sends it again when the target answers 429 with a Retry-After the run's
// wait can afford: the document has every operation answer 429 when a merchant sends too much ("retry
// after `Retry-After` seconds", nothing done), which a production target may well do to a suite that
// sends hundreds of requests in seconds; a client that honours it is what the document asks for, so
// the verdict is on the answer after the wait. Both exchanges stay in the evidence. A request that asks
// for the 429 (the sandbox's scenario header) is judged on it.
func (t *T) send(r *request) *Exchange {
	for attempt := 0; ; attempt++ {
		ex := t.sendOnce(r)
		wait, ok := t.rateLimitWait(r, ex, attempt)
		if !ok {
			return ex
		}
		if !t.idleSleep(wait) {
			return ex
		}
	}
}

// rateLimitWait says how long to wait before sending r again after ex: the 429's Retry-After in
// seconds, when it is no longer than the run's --wait and the request was not asking for the 429.
func (t *T) rateLimitWait(r *request, ex *Exchange, attempt int) (time.Duration, bool) {
	asked := strings.HasPrefix(strings.TrimSpace(r.header.Get(api.HeaderSandboxScenario)), string(api.ScenarioRateLimited))
	if ex.Status != http.StatusTooManyRequests || attempt >= maxRateLimitRetries || asked {
		return 0, false
	}
	secs, err := strconv.Atoi(strings.TrimSpace(ex.Header.Get(api.HeaderRetryAfter)))
	if err != nil || secs < 0 {
		return 0, false // no usable Retry-After: judged as answered (the response's validation says why)
	}
	wait := max(time.Duration(secs)*time.Second, 50*time.Millisecond)
	if wait > t.suite.cfg.EventuallyTimeout {
		return 0, false
	}
	return wait, true
}

// sendOnce sends the request to the target, records the exchange (as evidence of the check, and, for a
// documented operation, the status in the coverage) and fails the check for every way the response
// breaks the spec.
func (t *T) sendOnce(r *request) *Exchange {
	s := t.suite
	t.documentRequest(r)
	req := t.newHTTPRequest(r)
	op, routed := s.spec.FindOperation(req)
	if !r.noDefault {
		t.setKeyHeaders(req, r, op, routed)
	}
	ev := t.requestEvidence(req, r)
	if routed {
		ev.Operation = op.ID
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.transportFailure(ev, r, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
	if err != nil {
		t.transportFailure(ev, r, fmt.Errorf("read response: %w", err))
	}
	ex := &Exchange{Method: r.method, Path: r.path, Status: resp.StatusCode, Header: resp.Header, Body: data,
		Duration: time.Since(ev.Started)}
	ev.Duration, ev.Response.Status = ex.Duration, resp.StatusCode
	s.red().Message(&ev.Response, resp.Header, data)
	ex.Seq = t.record(ev)
	if gatewayStatus(resp.StatusCode) && t.ctx.Err() == nil {
		// A target behind a proxy that goes down answers through the proxy: 502, 503 or 504 to every
		// request. Ask, as for a refused connection, whether the target still answers at all.
		s.confirmAlive(t.check.ID, fmt.Errorf("%s %s answered %d", r.method, r.path, resp.StatusCode))
		if s.run.Err() != nil {
			runtime.Goexit() // the run was aborted: this check is interrupted, not failed
		}
	}
	if len(data) > 0 {
		var v any
		if json.Unmarshal(data, &v) == nil {
			ex.JSON = v
		}
	}
	if routed {
		ex.Operation = op.ID
		s.coverage.sawStatus(op.ID, resp.StatusCode)
		t.validateResponse(r, resp, data, ex)
	}
	return ex
}

// newHTTPRequest builds the request against the target with the body, content type and headers the
// check asked for; a request that cannot be built ends the check.
func (t *T) newHTTPRequest(r *request) *http.Request {
	var reader io.Reader
	if r.body != nil {
		reader = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(t.ctx, r.method, t.suite.cfg.BaseURL+r.path, reader)
	if err != nil {
		t.Fatalf("build request %s %s: %v", r.method, r.path, err)
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	return req
}

// setKeyHeaders sets the key headers the operation's first security requirement names (both keys for
// a path the document does not have), with the target's keys or the ones the check chose, less those
// the check leaves out.
func (t *T) setKeyHeaders(req *http.Request, r *request, op *openapi.Operation, routed bool) {
	keys := t.suite.cfg.Keys
	if r.keys != nil {
		keys = *r.keys
	}
	headers := []string{api.HeaderPublicKey, api.HeaderSecretKey}
	if routed && len(op.KeyHeaders) > 0 {
		headers = op.KeyHeaders[0]
	}
	for _, h := range headers {
		if r.omitKeys[h] {
			continue
		}
		if h == api.HeaderSecretKey {
			req.Header.Set(h, keys.Secret)
		} else {
			req.Header.Set(h, keys.Public)
		}
	}
}

// maxResponseBody is how much of a response body the suite reads: 8 MiB.
const maxResponseBody = 8 << 20

// requestEvidence starts the evidence of a request about to be sent: the request as sent (redacted)
// and the curl command that sends it again.
func (t *T) requestEvidence(req *http.Request, r *request) report.Evidence {
	red := t.suite.red()
	url := t.suite.cfg.BaseURL + r.path
	ev := report.Evidence{Kind: report.EvidenceRequest, Check: t.check.ID, Started: time.Now(),
		Request: report.HTTPMessage{Method: r.method, URL: red.Text(url)}, Curl: red.Curl(r.method, url, req.Header, r.body, t.evidence.FreshReferences(req.Header, r.body))}
	red.Message(&ev.Request, req.Header, r.body)
	return ev
}

// transportFailure records a request that got no (whole) response as evidence with its error, and
// ends the check with a failure pointing at it. While the run goes on, it first asks whether the target
// still answers at all (confirmAlive): if not, the run is aborted, and this check, like every other one
// in flight, is interrupted rather than failed (T.Fail records nothing once the run has stopped).
func (t *T) transportFailure(ev report.Evidence, r *request, err error) {
	if t.ctx.Err() == nil {
		t.suite.confirmAlive(t.check.ID, err)
	}
	ev.Duration = time.Since(ev.Started)
	ev.Error = t.suite.red().Text(err.Error())
	seq := t.record(ev)
	t.FailAbout(seq, report.Failure{Message: fmt.Sprintf("%s %s: %v", r.method, r.path, err), Exchange: r.method + " " + r.path})
	runtime.Goexit()
}

// validateResponse fails the check for each violation of the spec in the response as the target sent
// it (data is its body, already read). The request is rebuilt for routing only; the response is
// copied, so that send still closes the body it read.
func (t *T) validateResponse(r *request, resp *http.Response, data []byte, ex *Exchange) {
	check, _ := http.NewRequest(r.method, t.suite.cfg.BaseURL+r.path, nil)
	sent := *resp
	sent.Body = io.NopCloser(bytes.NewReader(data))
	for _, v := range t.suite.spec.ValidateResponse(check, &sent) {
		f := report.Failure{Message: "response breaks the spec: " + v.Message, Exchange: ex.String(), Pointer: v.Pointer, SpecLocation: v.SpecLocation}
		if r.collect != nil {
			*r.collect = append(*r.collect, f)
			continue
		}
		t.FailAbout(ex.Seq, f)
	}
}

// ExpectStatus fails the check unless the exchange has the wanted status.
func (t *T) ExpectStatus(ex *Exchange, want int) bool {
	if ex.Status != want {
		t.FailAbout(ex.Seq, report.Failure{Message: fmt.Sprintf("want HTTP %d, got %d: %s", want, ex.Status, Snippet(ex.Body)), Exchange: ex.String()})
		return false
	}
	return true
}

// RequireStatus is ExpectStatus that ends the check on a mismatch.
func (t *T) RequireStatus(ex *Exchange, want int) {
	if !t.ExpectStatus(ex, want) {
		runtime.Goexit()
	}
}

// ExpectError checks an error response: the HTTP status the document's error table fixes for code, the
// envelope code, and (when pointers are given) that `errors[].field` names each pointer (or a field
// below it).
func (t *T) ExpectError(ex *Exchange, code api.ErrorCode, pointers ...string) bool {
	status, known := t.suite.errorStatuses[int(code)]
	if !known {
		// The document the run checks against has no such code: it does not say what the answer is.
		t.Skip(fmt.Sprintf("the document's error table (ErrorCode, x-malipo-http-status) has no code %d, which this check expects", code))
	}
	ok := t.ExpectStatus(ex, status)
	if ex.Str("/status") != "error" {
		t.FailAbout(ex.Seq, report.Failure{Message: fmt.Sprintf("want an error envelope with status \"error\", got %s", Snippet(ex.Body)),
			Exchange: ex.String(), Pointer: "/status"})
		ok = false
	}
	if int(ex.Num("/code")) != int(code) {
		t.FailAbout(ex.Seq, report.Failure{Message: fmt.Sprintf("want error code %d, got %v", code, ex.Get("/code")), Exchange: ex.String(), Pointer: "/code"})
		ok = false
	}
	fields := ex.FieldErrors()
	for _, p := range pointers {
		if !NamesField(fields, p) {
			t.FailAbout(ex.Seq, report.Failure{Message: fmt.Sprintf("errors[] must name %q, it names %q", p, fields), Exchange: ex.String(), Pointer: "/errors"})
			ok = false
		}
	}
	return ok
}

// NamesField reports whether the `field` of an error envelope's `errors` entries (Exchange.FieldErrors)
// names pointer, or a field below it.
func NamesField(fields []string, pointer string) bool {
	for _, f := range fields {
		if f == pointer || strings.HasPrefix(f, pointer+"/") {
			return true
		}
	}
	return false
}

// Snippet is a body as a failure message quotes it: trimmed, cut at 300 bytes, "(empty body)" when
// there is none.
func Snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

// NewID returns a random id for references and idempotency keys, prefixed for readability.
func NewID(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// Spec exposes the contract to checks that derive data from it.
func (t *T) Spec() *openapi.Spec { return t.suite.spec }
