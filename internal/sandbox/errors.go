package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// FieldError is one entry of the error envelope's `errors`: the offending field as a JSON pointer
// (`/amount`) or parameter (`header.secret-key`), and what is wrong with it.
type FieldError = api.FieldError

// response is a complete HTTP response built by a handler. Handlers return it instead of writing, so
// that the idempotency layer can store and replay it byte for byte. A response is never changed once
// a handler has returned it (a replay is a copy, see replay): the idempotency layer keeps the very
// response it served, body and all, for IdempotencyTTL.
type response struct {
	status int
	json   bool        // Content-Type: application/json, as nearly every response has
	header http.Header // further headers; nil when there are none, which a stored response rarely has
	body   []byte
}

// set adds a header to a response that is not yet returned.
func (r *response) set(key, value string) {
	if r.header == nil {
		r.header = http.Header{}
	}
	r.header.Set(key, value)
}

// replay is a stored response as sent again: its own header with Idempotent-Replayed, the same body.
func (r *response) replay() *response {
	out := &response{status: r.status, json: r.json, header: r.header.Clone(), body: r.body}
	out.set(api.HeaderIdempotentReplayed, "true")
	return out
}

func (r *response) write(w http.ResponseWriter) {
	h := w.Header()
	if r.json {
		h["Content-Type"] = []string{"application/json"}
	}
	for k, v := range r.header {
		h[k] = append([]string(nil), v...)
	}
	w.WriteHeader(r.status)
	if len(r.body) > 0 {
		_, _ = w.Write(r.body)
	}
}

// encoder is a reusable buffer with a JSON encoder writing into it.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := &encoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// marshal encodes v as compact JSON without HTML escaping, so that URLs in objects read as sent. The
// result is a slice of its own, exactly as long as the JSON: stored responses and event bodies live
// for a day or longer, and a buffer grown by doubling would keep up to twice their size alive.
func marshal(v any) []byte {
	var out []byte
	marshalTo(v, func(b []byte) { out = bytes.Clone(b) })
	return out
}

// marshalTo encodes v as marshal does and hands the JSON to use, which must not keep it: the bytes
// are the pooled encoder's, reused once use returns. It spares a copy to a caller that only reads
// them (the idempotency fingerprint hashes them). use is not called if v cannot be encoded.
func marshalTo(v any, use func([]byte)) {
	e := encoders.Get().(*encoder)
	defer func() {
		if e.buf.Cap() <= 64<<10 { // a rare large list is not worth keeping a large buffer for
			encoders.Put(e)
		}
	}()
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		// Only our own types are encoded; a failure is a bug, reported as a 500 envelope by the caller.
		return
	}
	use(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")))
}

func jsonResponse(status int, body []byte) *response {
	return &response{status: status, json: true, body: body}
}

// success wraps data in the success envelope.
func (s *Server) success(status int, message string, data any) *response {
	body := successBody(message, data)
	if body == nil {
		return s.internalError("encode the response")
	}
	return jsonResponse(status, body)
}

// successBody encodes data in the success envelope; nil when it cannot be encoded.
func successBody(message string, data any) []byte {
	return marshal(api.Envelope[any]{Status: api.SuccessStatusSuccess, Code: 0, Message: message, Data: data})
}

// fail builds the error envelope for code; the HTTP status is the one the spec's table fixes. It
// keeps the envelope within the document's bounds, whatever the request held: the first field errors
// only, and texts cut to their maxLength (a reason may quote the offending value, and a pointer names
// members the request chose, both of any length up to the 1 MiB body).
func (s *Server) fail(code api.ErrorCode, message string, fields []FieldError, data *api.ErrorData) *response {
	status, ok := s.statuses[int(code)]
	if !ok {
		status = http.StatusInternalServerError
	}
	if fields == nil {
		fields = []FieldError{}
	}
	fields, message = s.limits.fieldErrorsOf(fields), clip(message, s.limits.message)
	body := marshal(api.Error{Status: api.ErrorStatusError, Code: code, Message: message, Errors: fields, Data: data})
	return jsonResponse(status, body)
}

func (s *Server) internalError(doing string) *response {
	body := marshal(api.Error{Status: api.ErrorStatusError, Code: api.CodeInternalError,
		Message: "An internal error occurred while trying to " + doing + "; retry with the same Idempotency-Key.", Errors: []FieldError{}})
	return jsonResponse(http.StatusInternalServerError, body)
}

func (s *Server) invalid(fields ...FieldError) *response {
	return s.fail(api.CodeValidationFailed, "The request is invalid; see errors for each field.", fields, nil)
}

func (s *Server) notFound(message string) *response {
	return s.fail(api.CodeNotFound, message, nil, nil)
}

// violationsResponse turns contract violations of a request into the error envelope: content-type
// problems are 415, an undecodable body 400/1001, everything else 400/1000 with one entry per
// violation.
func (s *Server) violationsResponse(vs openapi.Violations) *response {
	var mediaType, fields []FieldError
	for _, v := range vs {
		fe := FieldError{Field: v.Pointer, Reason: v.Message}
		switch {
		case v.In == openapi.InHeader && v.Pointer == "header.content-type":
			mediaType = append(mediaType, fe)
		case v.In == openapi.InBody && v.Pointer == "" && strings.Contains(v.Message, "cannot be decoded"):
			fe.Reason = "the body cannot be decoded as the documented JSON: " + v.Message
			fields = append(fields, fe)
		default:
			fields = append(fields, fe)
		}
	}
	if len(mediaType) > 0 {
		return s.fail(api.CodeUnsupportedMediaType, "The body's Content-Type is not supported; send application/json.", mediaType, nil)
	}
	return s.invalid(fields...)
}
