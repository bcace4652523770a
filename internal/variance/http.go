package variance

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// middleware is the variant's HTTP layer: it reads requests in the sandbox's terms, answers for the
// extensions left out and for keys in use, and writes responses in the variant's.
func (st *state) middleware(s *sandbox.Server, next http.Handler) http.Handler {
	st.server = s
	for _, c := range s.Countries() {
		st.ids.addReference(c.ID, kindCountry, c.CountryCode)
		for _, b := range s.Banks(c.CountryCode) {
			st.ids.addReference(b.ID, kindBank, bankCode(b))
		}
	}
	if st.v.ReferenceSubset {
		st.leaveOutReferenceData(s)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := st.translateRequest(r)
		c := st.answer(next, r)
		if generatesReference(r, body) && c.status == http.StatusCreated {
			st.learnGeneratedReference(c.body)
		}
		if st.v.SecretBytes > 0 && generatesSecret(r, body) && c.status < http.StatusMultipleChoices {
			st.learnGeneratedSecret(c.body)
		}
		if typ := newEventType(r); st.v.NewEventTypes && typ != "" && c.status == http.StatusCreated && c.header.Get(api.HeaderIdempotentReplayed) != "true" {
			st.sendNewEvent(r, typ, c.body)
		}
		st.rewriteResponse(r, c)
		c.send(w)
	})
}

// answer is the response to a translated request: 429 when the variant limits the rate, 404 on an
// extension left out, 409 for a key in use, else the sandbox's.
func (st *state) answer(next http.Handler, r *http.Request) *captured {
	if every := int64(st.v.RateLimitEvery); every > 0 && r.RemoteAddr != "" && st.requests.Add(1)%every == 0 {
		// An implementation that limits request rates sends the three RateLimit fields on every answer
		// to accepted keys, its 429 too (RateLimitLimit's description): this window allowed every-1.
		c := errorResponse(api.CodeRateLimited, "Too many requests; retry after 1 second.", nil)
		c.header.Set(api.HeaderRetryAfter, "1")
		c.header.Set(api.HeaderRateLimitLimit, strconv.FormatInt(every-1, 10))
		c.header.Set(api.HeaderRateLimitRemaining, "0")
		c.header.Set(api.HeaderRateLimitReset, "1")
		return c
	}
	if st.leftOut(r.URL.Path) {
		return errorResponse(api.CodeNotFound, fmt.Sprintf("No operation exists at %s %s; this service does not have the extension.", r.Method, r.URL.Path), nil)
	}

	release, busy := st.claim(r)
	if busy {
		return errorResponse(api.CodeIdempotencyKeyInUse, "The first request with this Idempotency-Key is still running; retry in a moment with the same key and body.",
			[]api.FieldError{{Field: "header.idempotency-key", Reason: "first request still running"}})
	}
	defer release() // also when the sandbox drops the connection (a panic with http.ErrAbortHandler)
	return capture(next, r)
}

// leftOut reports whether path is one of an extension the variant leaves out.
func (st *state) leftOut(path string) bool {
	segs := strings.Split(path, "/")
	for _, tmpl := range st.absent {
		if matches(tmpl, segs) {
			return true
		}
	}
	return false
}

func matches(tmpl, segs []string) bool {
	if len(tmpl) != len(segs) {
		return false
	}
	for i, t := range tmpl {
		if !strings.HasPrefix(t, "{") && t != segs[i] {
			return false
		}
	}
	return true
}

// claimHook, when set, is told of each Idempotency-Key claim: a test sets it (onClaim) to send a retry
// once the first request holds its key.
var claimHook atomic.Pointer[func()]

// claim marks a POST's Idempotency-Key as running for its merchant, or reports that it already is.
// Only a variant with KeyInUse claims; the sandbox itself makes such a retry wait.
func (st *state) claim(r *http.Request) (release func(), busy bool) {
	key := r.Header.Get(api.HeaderIdempotencyKey)
	if !st.v.KeyInUse || r.Method != http.MethodPost || key == "" {
		return func() {}, false
	}
	scoped := strings.TrimSpace(r.Header.Get(api.HeaderPublicKey)) + "\x00" + key
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.inFlight[scoped] {
		return nil, true
	}
	st.inFlight[scoped] = true
	if f := claimHook.Load(); f != nil {
		(*f)()
	}
	return func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		delete(st.inFlight, scoped)
	}, false
}

// translateRequest puts the sandbox's ids, cursors and times where the client sent the variant's:
// path segments, query values and the strings of a JSON body. What the variant never gave out is left
// as it is, so that an unknown id stays unknown. It returns the body as sent, when it is JSON.
func (st *state) translateRequest(r *http.Request) *jsonValue {
	segs := strings.Split(r.URL.Path, "/")
	ids := st.idSegments(segs)
	changed := false
	for i, seg := range segs {
		if id, ok := st.readID(r, seg, ids[i]); ok {
			segs[i], changed = id, true
		}
	}
	if changed {
		r.URL.Path, r.URL.RawPath = strings.Join(segs, "/"), ""
	}
	st.translateQuery(r)
	return st.translateBody(r)
}

// countryParam is listBanks' query parameter, a country code; limitParam listEvents' page size.
const (
	countryParam = "country"
	limitParam   = "limit"
)

// isBanks reports whether a request lists a country's banks.
func isBanks(r *http.Request) bool { return isOperation(r, api.OpListBanks()) }

// isOperation reports whether a request is a call of op.
func isOperation(r *http.Request, op api.Operation) bool {
	return r.Method == op.Method && matches(strings.Split(op.Path, "/"), strings.Split(r.URL.Path, "/"))
}

// translateQuery reads a request's query values in the sandbox's terms: ids and cursors, date-times on
// the variant's grid, an event-log page no larger than the variant's, and a country the variant left
// out as one the sandbox does not know (which it refuses in its own order: keys and scenarios first).
func (st *state) translateQuery(r *http.Request) {
	q, changed := r.URL.Query(), false
	for name, values := range q {
		for i, value := range values {
			if id, ok := st.readID(r, value, st.fields.idParams[name]); ok {
				values[i], changed = id, true
			} else if t, ok := st.timeIn(value); ok && st.fields.timeParams[name] {
				values[i], changed = t, true
			}
		}
	}
	if st.v.EventPageCap > 0 && isOperation(r, api.OpListEvents()) {
		asked := q.Get(limitParam)
		n, err := strconv.Atoi(asked)
		// Only a limit the document allows is lowered: any other stays for the sandbox to refuse.
		if asked == "" || err == nil && n > st.v.EventPageCap && n <= st.limitMax {
			q.Set(limitParam, strconv.Itoa(st.v.EventPageCap))
			changed = true
		}
	}
	if code := q.Get(countryParam); st.leftOutCodes[code] && isBanks(r) {
		q.Set(countryParam, st.unsupportedCode)
		changed = true
	}
	if changed {
		r.URL.RawQuery = q.Encode()
	}
}

// readID reads one string of a request: a name the variant gave is the sandbox's id; where an id is
// expected (isID), the sandbox's own name of a kind the variant names otherwise is unknown. Requests
// made in-process, without a remote address (the sandbox's dashboard acting through the API), may
// name objects by the sandbox's ids, which are the ones its page shows.
func (st *state) readID(r *http.Request, s string, isID bool) (string, bool) {
	id, known := st.ids.in(s)
	if !known {
		id = s
	}
	if isID && st.leftOutRef[id] {
		return hidePrefix + id, true // reference data the variant does not support: unknown
	}
	if known {
		return id, true
	}
	if isID && r.RemoteAddr != "" {
		return st.ids.hide(s)
	}
	return "", false
}

// idSegments marks the segments of a path that are ObjectId parameters of an operation it matches.
func (st *state) idSegments(segs []string) map[int]bool {
	out := map[int]bool{}
	for _, op := range api.Operations() {
		tmpl := strings.Split(op.Path, "/")
		if !matches(tmpl, segs) {
			continue
		}
		for i, t := range tmpl {
			if name, ok := strings.CutPrefix(t, "{"); ok && st.fields.idParams[strings.TrimSuffix(name, "}")] {
				out[i] = true
			}
		}
	}
	return out
}

// translateBody rewrites the ids of a JSON request body and returns the body as sent (nil when it is
// not JSON). A body that is too large for the sandbox, or not JSON, reaches it unchanged, so that it
// answers 413 or 400 as it would.
func (st *state) translateBody(r *http.Request) *jsonValue {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, sandbox.MaxBodyBytes+1))
	if err != nil || len(body) > sandbox.MaxBodyBytes {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return nil
	}
	restore := func(b []byte) {
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		if r.Header.Get("Content-Length") != "" {
			r.Header.Set("Content-Length", strconv.Itoa(len(b)))
		}
	}
	v, err := parseJSON(body)
	if err != nil {
		restore(body)
		return nil
	}
	sent, _ := parseJSON(body)
	changed := false
	v.rewriteStrings("", func(member, s string) (string, bool) {
		id, ok := st.readID(r, s, st.fields.ids[member])
		changed = changed || ok
		return id, ok
	})
	if !changed {
		restore(body)
		return sent
	}
	restore((&encoder{}).encode(v))
	return sent
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// textMembers hold text for people that may name objects: an error's message and reasons, a
// delivery attempt's error.
var textMembers = map[string]bool{"message": true, "reason": true, "error": true}

// outString is how the variant writes one string of a response or webhook body.
func (st *state) outString(member, s string) (string, bool) {
	switch {
	case st.fields.ids[member]:
		return st.ids.out(s), true
	case member == cursorProperty:
		return st.ids.outCursor(s), true
	case member == referenceProperty:
		return st.ids.outReference(s), true
	case member == secretProperty:
		return st.secret(s), true
	case st.fields.times[member]:
		return st.timeOut(s)
	case textMembers[member]:
		return st.ids.outText(s), true
	}
	return "", false
}

// rewriteBody writes a JSON body as the variant does: its ids, references, cursors and times, its
// words, its field errors' order, a reference-data list's order (list), the fields it adds to events,
// and its JSON style. Anything but JSON is returned as it is.
func (st *state) rewriteBody(body []byte, list bool) []byte {
	v, err := parseJSON(body)
	if err != nil {
		return body
	}
	if data := v.member("data"); list && data != nil && data.kind == jsonArray && len(st.leftOutRef) > 0 {
		data.elems = slices.DeleteFunc(data.elems, func(e *jsonValue) bool {
			id := e.member("id")
			return id != nil && st.leftOutRef[id.text]
		})
	}
	v.rewriteStrings("", st.outString)
	if v.kind == jsonObject {
		st.reshapeEnvelope(v, list)
	}
	if st.v.EventFields {
		addEventFields(v)
	}
	e := encoder{style: st.v.JSON, seed: st.v.Seed}
	return e.encode(v)
}

// reshapeEnvelope rewords an envelope's message and its field errors' reasons, and reorders its field
// errors and, for a reference-data list, its data.
func (st *state) reshapeEnvelope(env *jsonValue, list bool) {
	if st.v.Reworded {
		if m := env.member("message"); m != nil && m.kind == jsonString {
			m.text = "OK."
			if code := env.member("code"); code != nil && code.text != "0" {
				m.text = "The request was not carried out (code " + code.text + "); the errors, if any, name the fields to correct."
			}
		}
	}
	if errs := env.member("errors"); errs != nil && errs.kind == jsonArray {
		for _, fe := range errs.elems {
			if reason := fe.member("reason"); st.v.Reworded && reason != nil && reason.kind == jsonString {
				reason.text = firstChars("not accepted: "+reason.text, st.reasonMax)
			}
		}
		if st.v.ErrorsReversed {
			slices.Reverse(errs.elems)
		}
	}
	if data := env.member("data"); list && st.v.ListsReversed && data != nil && data.kind == jsonArray {
		slices.Reverse(data.elems)
	}
}

// addEventFields adds fields the document does not declare to every event body in v (a webhook's
// body, an event's payload in the event log) and to its object. An event body is an object with a
// type and a data object holding an object.
func addEventFields(v *jsonValue) {
	for _, e := range v.elems {
		addEventFields(e)
	}
	if v.kind != jsonObject || v.member("type") == nil {
		return
	}
	data := v.member("data")
	if data == nil || data.kind != jsonObject || data.member("object") == nil || data.member("object").kind != jsonObject {
		return
	}
	v.add("livemode", &jsonValue{kind: jsonLiteral, text: "false"})
	v.add("api_version", &jsonValue{kind: jsonString, text: "2026-11-01"})
	data.member("object").add("channel", &jsonValue{kind: jsonString, text: "api"})
}

// isList reports whether a request lists countries or banks.
func isList(r *http.Request) bool {
	segs := strings.Split(r.URL.Path, "/")
	for _, op := range []api.Operation{api.OpListCountries(), api.OpListBanks()} {
		if r.Method == op.Method && matches(strings.Split(op.Path, "/"), segs) {
			return true
		}
	}
	return false
}

// rewriteResponse writes a response as the variant does: its body, and the headers it adds.
func (st *state) rewriteResponse(r *http.Request, c *captured) {
	if len(c.body) > 0 && isJSON(c.header.Get("Content-Type")) {
		c.body = st.rewriteBody(c.body, isList(r))
		if st.v.Response.Charset {
			c.header.Set("Content-Type", "application/json; charset=utf-8")
		}
	}
	h := st.v.Response
	if h.Extra {
		c.header.Set("X-Request-Id", requestID())
		c.header.Set("Server", fmt.Sprintf("malipo-variant (seed %d)", st.v.Seed))
		c.header.Set("Cache-Control", "no-store")
	}
	if h.ConnectionClose {
		c.header.Set("Connection", "close")
	}
	if allow := c.header.Get("Allow"); h.AllowReordered && allow != "" {
		methods := strings.Split(allow, ",")
		for i := range methods {
			methods[i] = strings.TrimSpace(methods[i])
		}
		slices.Reverse(methods)
		c.header.Set("Allow", strings.Join(methods, ","))
	}
	if h.ReplayedFalse && r.Method == http.MethodPost && c.status < http.StatusMultipleChoices && c.header.Get(api.HeaderIdempotentReplayed) == "" {
		c.header.Set(api.HeaderIdempotentReplayed, "false")
	}
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

func requestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}

// errorResponse is the document's error envelope, with the HTTP status its table gives the code.
func errorResponse(code api.ErrorCode, message string, errs []api.FieldError) *captured {
	if errs == nil {
		errs = []api.FieldError{}
	}
	body, err := json.Marshal(api.Error{Status: api.ErrorStatusError, Code: code, Message: message, Errors: errs})
	if err != nil {
		panic("variance: encode an error envelope: " + err.Error()) // plain strings and ints: cannot fail
	}
	return &captured{header: http.Header{"Content-Type": {"application/json"}}, status: code.HTTPStatus(), body: body}
}

// captured is a response the sandbox wrote, held back so that the variant can rewrite it.
type captured struct {
	header http.Header
	status int
	body   []byte
}

// capture runs next and keeps what it wrote.
func capture(next http.Handler, r *http.Request) *captured {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	return &captured{header: rec.Header(), status: rec.Code, body: rec.Body.Bytes()}
}

// send writes the response.
func (c *captured) send(w http.ResponseWriter) {
	for k, vs := range c.header {
		w.Header()[k] = vs
	}
	if c.status != http.StatusNoContent && c.status != http.StatusNotModified {
		w.Header().Set("Content-Length", strconv.Itoa(len(c.body)))
	}
	w.WriteHeader(c.status)
	_, _ = w.Write(c.body)
}

// firstChars is s cut to at most n characters (code points, as maxLength counts them).
func firstChars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
