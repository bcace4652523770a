package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// request is what a handler needs: the authenticated merchant, the raw (validated) body and the path
// parameters.
type request struct {
	r      *http.Request
	op     *openapi.Operation
	m      *merchant
	body   []byte // nil when there is none
	value  any    // body parsed once (parseBody): what validation, fingerprint and decode read
	params map[string]string
	// tx is the store transaction the handler changes state in (run commits it); commit is its write,
	// or the replayed response's: the response is not sent before it is durable.
	tx     *store.Tx
	commit store.Commit
}

// ServeHTTP serves the API: through the installed middleware hooks, if any, to serve.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// serve runs the request pipeline: route (404/405), authenticate (401), read the body (413),
// check the media type (415) and JSON syntax (400/1001), validate against the contract (400/1000),
// then the operation itself behind the idempotency layer. A panic becomes a 500 envelope.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	var opID string
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler { //nolint:errorlint // sentinel identity, as net/http compares it
				s.logRequest(r, opID, 0, start, slog.String("outcome", "connection dropped"))
				panic(v)
			}
			s.log.Error("request panicked", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
			if !rec.wrote {
				s.internalError("handle the request").write(rec)
			}
		}
		s.logRequest(r, opID, rec.status, start, slog.Bool("replayed", rec.Header().Get(api.HeaderIdempotentReplayed) == "true"))
	}()
	resp := s.handle(r, rec, &opID)
	if resp != nil {
		resp.write(rec)
	}
}

// logRequest writes the request's log line: method, path, status, duration, operation and one more
// attribute about the outcome. It is on every request's path, so it costs as little as slog allows:
// nothing when Info is off (a sandbox without a logger), and otherwise one record handed straight to
// the handler, without the caller's program counter that Logger.LogAttrs looks up on every call
// (runtime.Callers; the line names its operation, so the source position adds nothing).
func (s *Server) logRequest(r *http.Request, opID string, status int, start time.Time, extra slog.Attr) {
	ctx := r.Context()
	h := s.log.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	now := time.Now()
	rec := slog.NewRecord(now, slog.LevelInfo, "request", 0)
	rec.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", status),
		slog.Duration("duration", now.Sub(start)), slog.String("operation", opID), extra)
	_ = h.Handle(ctx, rec) // as Logger does: a handler's error has nowhere to go
}

func (s *Server) handle(r *http.Request, w http.ResponseWriter, opID *string) *response {
	op, params, allowed := s.spec.Route(r.Method, r.URL.Path)
	if op == nil {
		if len(allowed) > 0 {
			resp := s.fail(api.CodeMethodNotAllowed, fmt.Sprintf("%s is not allowed on %s; use %s.", r.Method, r.URL.Path, strings.Join(allowed, " or ")), nil, nil)
			resp.set("Allow", strings.Join(allowed, ", "))
			return resp
		}
		return s.notFound(fmt.Sprintf("No operation exists at %s %s; check the path against the API reference (malipo spec).", r.Method, r.URL.Path))
	}
	*opID = op.ID
	h, ok := handlers[op.ID]
	if !ok {
		return s.notFound(fmt.Sprintf("The operation %s is not implemented by this server.", op.ID))
	}
	m, fail := s.authenticate(op, r.Header)
	if fail != nil {
		return fail
	}
	if limited := s.limitRate(m, w); limited != nil {
		return limited
	}
	sc, bad := parseScenario(r.Header)
	if bad != nil {
		return s.refuseScenario(op, r.Header, *bad)
	}
	switch sc.kind {
	case api.ScenarioRateLimited, api.ScenarioInternalError:
		return sc.answer(s)
	case api.ScenarioSlow, api.ScenarioDropAfterWrite:
		resp := s.operate(w, r, op, m, params, h)
		sc.after(r)
		return resp
	}
	return s.operate(w, r, op, m, params, h)
}

// operate reads, validates and carries out an authenticated request of op (idempotent), and answers
// once its change is durable.
func (s *Server) operate(w http.ResponseWriter, r *http.Request, op *openapi.Operation, m *merchant, params map[string]string, h handler) *response {
	req := &request{r: r, op: op, m: m, params: params}
	if op.HasBody {
		body, value, fail := s.readBody(w, r, op)
		if fail != nil {
			return fail
		}
		req.body, req.value = body, value
	}
	if s.cfg.validation {
		if vs := withoutKeyHeaders(s.spec.ValidateParsed(op, r, req.body, req.value)); len(vs) > 0 {
			return s.violationsResponse(explainSecret(op.ID, req.value, vs))
		}
	}
	resp := s.idempotent(req, h)
	if err := req.commit.Wait(); err != nil { // the answer waits until what it says is durable
		s.log.Error("the change could not be written to the data directory", "operation", op.ID, "error", err)
		return s.internalError("write the change to the data directory")
	}
	if r.Method != http.MethodGet && resp != nil && resp.status < http.StatusBadRequest {
		s.notices.publish(Notice{Kind: NoticeRequest, Merchant: m.publicKey})
	}
	return resp
}

// idempotent carries out a validated request, once however often a POST with an Idempotency-Key is
// sent (the other methods are idempotent as they are), in these phases:
//
//  1. claim the Idempotency-Key (claimKey): a replay or a refusal is the answer, and nothing runs;
//  2. prepare, for a create: decode and check the body and encode the answer, before the lock, since
//     that allocates, and a goroutine that allocates while the collector marks a large heap is made
//     to help it, which under the lock would hold up every request of the merchant;
//  3. lock the merchant: its lock orders every change of its state (timers and deliveries take it too);
//  4. change the state, only through the store, in one transaction (req.tx): the create's rest, or
//     the whole handler; handlers never save anything, and cannot forget to;
//  5. keep the answer as the key's response, in the same transaction: a crash keeps both or neither;
//  6. commit the transaction before the unlock, so that the data directory sees each merchant's
//     changes in the order they were made, and a timer or delivery the handler started sees them done;
//  7. answer: operate sends the answer once the commit is durable.
func (s *Server) idempotent(req *request, h handler) *response {
	key, answer := s.claimKey(req)
	if answer != nil {
		return answer
	}
	var rest func() *response
	if h.prepare != nil {
		rest, answer = h.prepare(s, req)
	}
	req.tx = s.store.Begin()
	req.m.mu.Lock()
	defer req.m.mu.Unlock()
	switch {
	case answer != nil: // refused before the lock: only the key's response is kept
	case rest != nil:
		answer = rest()
	default:
		answer = h.run(s, req)
	}
	key.keep(req, answer)
	req.commit = req.tx.Commit()
	return answer
}

// withoutKeyHeaders drops violations about the key headers: authenticate has already answered for
// them.
func withoutKeyHeaders(vs openapi.Violations) openapi.Violations {
	out := vs[:0]
	for _, v := range vs {
		if v.Pointer != "header."+api.HeaderPublicKey && v.Pointer != "header."+api.HeaderSecretKey {
			out = append(out, v)
		}
	}
	return out
}

// readBody reads at most MaxBodyBytes and parses a non-empty body, once: the parsed value is what
// validation, the idempotency fingerprint and the handler's decode all use. An empty or
// whitespace-only body is returned as nil; when the operation requires a body that is a 400 naming
// the whole body.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, op *openapi.Operation) ([]byte, any, *response) {
	tooLarge := func() *response {
		return s.fail(api.CodePayloadTooLarge, fmt.Sprintf("The request body is larger than %d bytes; send a smaller body.", MaxBodyBytes), nil, nil)
	}
	if r.ContentLength > MaxBodyBytes {
		return nil, nil, tooLarge()
	}
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, nil, tooLarge()
			}
			return nil, nil, s.fail(api.CodeMalformedJSON, "The request body could not be read completely: "+err.Error()+". Send the whole body again.", []FieldError{{Field: "", Reason: "body could not be read"}}, nil)
		}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if op.BodyRequired {
			return nil, nil, s.invalid(FieldError{Field: "", Reason: "a JSON object body is required"})
		}
		return nil, nil, nil
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		shown := ct
		if shown == "" {
			shown = "(none)"
		}
		return nil, nil, s.fail(api.CodeUnsupportedMediaType, fmt.Sprintf("Content-Type %s is not supported; send application/json.", shown),
			[]FieldError{{Field: "header.content-type", Reason: "must be application/json"}}, nil)
	}
	value, err := parseBody(body)
	if err != nil {
		return nil, nil, s.fail(api.CodeMalformedJSON, "The request body is not valid JSON: "+err.Error()+". Send a JSON object.",
			[]FieldError{{Field: "", Reason: "not valid JSON"}}, nil)
	}
	return body, value, nil
}

// statusRecorder remembers the status written, for the request log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
