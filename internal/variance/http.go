package variance

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// state is one variant sandbox's: the ids it translated, the requests it has running, and what it
// read from the document. Options makes one per sandbox.
type state struct {
	v      Variant
	ids    *translator
	fields fields
	// absent are the path templates of the extensions the variant leaves out.
	absent [][]string

	// leftOutRef are the sandbox's reference-data ids a ReferenceSubset variant does not support, and
	// leftOutCodes the country codes among them; unsupportedCode is a country code the sandbox does not
	// know, which stands for them in a request. All are filled once, by middleware.
	leftOutRef      map[string]bool
	leftOutCodes    map[string]bool
	unsupportedCode string
	// limitMax is the largest limit the document lets listEvents ask for.
	limitMax int

	// requests counts the requests that came over the network, for RateLimitEvery.
	requests atomic.Int64
	// server is the sandbox, for its merchants' keys (NewEventTypes signs with them); client sends the
	// events of new types.
	server *sandbox.Server
	client *http.Client

	mu       sync.Mutex
	inFlight map[string]bool   // merchant public key and Idempotency-Key of the POSTs running
	secrets  map[string]string // endpoint secrets the sandbox generated -> the variant's
}

func newState(v Variant) *state {
	f, err := documentFields()
	if err != nil {
		// The embedded document has these fields (TestDocumentFields); only a broken build lacks them.
		panic(err)
	}
	st := &state{v: v, ids: newTranslator(v), fields: f, inFlight: map[string]bool{}, secrets: map[string]string{},
		leftOutRef: map[string]bool{}, leftOutCodes: map[string]bool{},
		client: &http.Client{Timeout: api.WebhookDeliveryTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	st.absent, err = absentTemplates(v)
	if err != nil {
		panic(err)
	}
	if st.limitMax, err = eventLimitMax(); err != nil {
		panic(err)
	}
	return st
}

// eventLimitMax reads the maximum of listEvents' limit from the document.
func eventLimitMax() (int, error) {
	spec, err := openapi.Default()
	if err != nil {
		return 0, fmt.Errorf("variance: load the embedded document: %w", err)
	}
	op, ok := spec.Operation(api.OpListEvents().ID)
	if !ok {
		return 0, fmt.Errorf("variance: the document has no operation %s", api.OpListEvents().ID)
	}
	for _, p := range op.Op.Parameters {
		if p.Name == limitParam && p.Schema != nil && p.Schema.Schema() != nil && p.Schema.Schema().Maximum != nil {
			return int(*p.Schema.Schema().Maximum), nil
		}
	}
	return 0, fmt.Errorf("variance: %s has no %s parameter with a maximum", api.OpListEvents().ID, limitParam)
}

// absentTemplates returns the path templates, split at "/", of the operations of each extension the
// variant leaves out. An extension is the set of operations of one tag that the document marks
// x-malipo-extension; the webhook-endpoint extension is the tag of createWebhookEndpoint, the event
// log that of listEvents.
func absentTemplates(v Variant) ([][]string, error) {
	spec, err := openapi.Default()
	if err != nil {
		return nil, fmt.Errorf("variance: load the embedded document: %w", err)
	}
	tagOf := map[string]string{}
	for _, op := range spec.Operations() {
		if len(op.Op.Tags) > 0 {
			tagOf[op.ID] = op.Op.Tags[0]
		}
	}
	leftOut := map[string]bool{}
	if !v.WebhookEndpoints {
		leftOut[tagOf[api.OpCreateWebhookEndpoint().ID]] = true
	}
	if !v.EventLog {
		leftOut[tagOf[api.OpListEvents().ID]] = true
	}
	var out [][]string
	for _, op := range api.Operations() {
		if op.Extension && leftOut[tagOf[op.ID]] {
			out = append(out, strings.Split(op.Path, "/"))
		}
	}
	return out, nil
}

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

// generatesReference reports whether a request initializes a payment without a merchant reference, so
// that the service generates one.
func generatesReference(r *http.Request, body *jsonValue) bool {
	op := api.OpInitializePayment()
	return r.Method == op.Method && matches(strings.Split(op.Path, "/"), strings.Split(r.URL.Path, "/")) &&
		body != nil && body.kind == jsonObject && body.member("reference") == nil
}

// newEventType is the undeclared event type a NewEventTypes variant sends for a request that creates a
// payment or a payout, or "".
func newEventType(r *http.Request) string {
	switch {
	case isOperation(r, api.OpInitializePayment()):
		return "payment.created"
	case isOperation(r, api.OpProcessPayout()):
		return "payout.created"
	}
	return ""
}

// generatesSecret reports whether a request creates a webhook endpoint or rotates its secret without a
// secret of the caller's, so that the service generates one.
func generatesSecret(r *http.Request, body *jsonValue) bool {
	if !isOperation(r, api.OpCreateWebhookEndpoint()) && !isOperation(r, api.OpRotateWebhookEndpointSecret()) {
		return false
	}
	return body == nil || body.member(secretProperty) == nil
}

// learnGeneratedSecret gives the secret of a created or rotated endpoint, as the sandbox answered, the
// variant's own: SecretBytes bytes derived from it, which the response shows and deliveries sign with.
func (st *state) learnGeneratedSecret(sandboxBody []byte) {
	var env struct {
		Data struct {
			Secret string `json:"secret"`
		} `json:"data"`
	}
	if json.Unmarshal(sandboxBody, &env) != nil || env.Data.Secret == "" {
		return
	}
	h := sha256.Sum256(append([]byte(fmt.Sprintf("%d\x00secret\x00", st.v.Seed)), env.Data.Secret...))
	key := make([]byte, 0, st.v.SecretBytes)
	for len(key) < st.v.SecretBytes {
		key = append(key, h[:]...)
		h = sha256.Sum256(h[:])
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.secrets[env.Data.Secret] = webhookSecretPrefix + base64.StdEncoding.EncodeToString(key[:st.v.SecretBytes])
}

// secret is the variant's secret for a secret the sandbox generated, or the secret itself.
func (st *state) secret(s string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if v, ok := st.secrets[s]; ok {
		return v
	}
	return s
}

// learnGeneratedReference makes the reference of a created payment, as the sandbox answered, one the
// variant names.
func (st *state) learnGeneratedReference(sandboxBody []byte) {
	var env struct {
		Data struct {
			Reference string `json:"reference"`
		} `json:"data"`
	}
	if json.Unmarshal(sandboxBody, &env) == nil && env.Data.Reference != "" {
		st.ids.addGenerated(env.Data.Reference)
	}
}

// leaveOutReferenceData picks the countries and banks a ReferenceSubset variant does not support:
// each country with odds of 2 in 5 and each bank of a supported country 1 in 3, by a hash of the seed
// and the id, then gives back the first bank of the first supported country that has one when no
// supported country would keep a bank (the bank test values need one), and the first country when
// none would be left; every other seed, the country listed first keeps no bank.
func (st *state) leaveOutReferenceData(s *sandbox.Server) {
	odds := func(id string, in, of uint64) bool {
		h := fnv.New64a()
		_, _ = fmt.Fprintf(h, "%d\x00ref\x00%s", st.v.Seed, id)
		return h.Sum64()%of < in
	}
	countries := s.Countries()
	var kept []sandbox.Country
	for _, c := range countries {
		if odds(c.ID, 2, 5) {
			st.leftOutRef[c.ID], st.leftOutCodes[c.CountryCode] = true, true
			for _, b := range s.Banks(c.CountryCode) {
				st.leftOutRef[b.ID] = true
			}
			continue
		}
		kept = append(kept, c)
	}
	if len(kept) == 0 {
		kept = countries[:1]
		delete(st.leftOutRef, kept[0].ID)
		delete(st.leftOutCodes, kept[0].CountryCode)
		for _, b := range s.Banks(kept[0].CountryCode) {
			delete(st.leftOutRef, b.ID)
		}
	}
	known := map[string]bool{}
	for _, c := range countries {
		known[c.CountryCode] = true
	}
	for a := 'A'; a <= 'Z' && st.unsupportedCode == ""; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			if code := string([]rune{a, b}); !known[code] {
				st.unsupportedCode = code
				break
			}
		}
	}
	var firstBank string
	banksKept := 0
	for _, c := range kept {
		for _, b := range s.Banks(c.CountryCode) {
			if firstBank == "" {
				firstBank = b.ID
			}
			if odds(b.ID, 1, 3) {
				st.leftOutRef[b.ID] = true
			} else {
				banksKept++
			}
		}
	}
	if banksKept == 0 && firstBank != "" {
		delete(st.leftOutRef, firstBank)
	}
	// Every other seed, the country listed first has no bank (a country where payouts go to wallets
	// only), as long as another supported country keeps one.
	first := kept[0]
	if st.v.ListsReversed {
		first = kept[len(kept)-1]
	}
	if odds("first-without-banks", 1, 2) {
		elsewhere := false
		for _, c := range kept {
			for _, b := range s.Banks(c.CountryCode) {
				elsewhere = elsewhere || (c.ID != first.ID && !st.leftOutRef[b.ID])
			}
		}
		if elsewhere {
			for _, b := range s.Banks(first.CountryCode) {
				st.leftOutRef[b.ID] = true
			}
		}
	}
}

// bankCode names a bank by its country and the last part of its sandbox id: `ZM.ZANACO`.
func bankCode(b sandbox.Bank) string {
	name := b.ID[strings.LastIndexByte(b.ID, '_')+1:]
	return b.CountryCode + "." + strings.ToUpper(name)
}

// answer is the response to a translated request: 429 when the variant limits the rate, 404 on an
// extension left out, 409 for a key in use, else the sandbox's.
func (st *state) answer(next http.Handler, r *http.Request) *captured {
	if every := int64(st.v.RateLimitEvery); every > 0 && r.RemoteAddr != "" && st.requests.Add(1)%every == 0 {
		c := errorResponse(api.CodeRateLimited, "Too many requests; retry after 1 second.", nil)
		c.header.Set(api.HeaderRetryAfter, "1")
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

// timeIn reads a date-time the client sent (a query's created_after) on the variant's grid: the
// earliest instant the variant writes as that text or later, so that "at or after" and "before" mean
// to the sandbox what they mean to the client.
func (st *state) timeIn(s string) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	t = t.UTC()
	grid := st.grid()
	if c := t.Truncate(grid); !c.Equal(t) {
		t = c.Add(grid)
	}
	return t.Format(time.RFC3339Nano), true
}

// grid is the smallest step of the variant's date-times.
func (st *state) grid() time.Duration {
	g := time.Second
	for range st.v.Time.Digits {
		g /= 10
	}
	return g
}

// timeOut writes a date-time as the variant does: truncated to its digits, every digit written.
func (st *state) timeOut(s string) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	t = t.UTC().Truncate(st.grid())
	layout := "2006-01-02T15:04:05"
	if st.v.Time.Digits > 0 {
		layout += "." + strings.Repeat("0", st.v.Time.Digits)
	}
	if st.v.Time.NumericOffset {
		return t.Format(layout) + "+00:00", true
	}
	return t.Format(layout) + "Z", true
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
				reason.text = "not accepted: " + reason.text
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

// losesAck reports whether the variant loses the acknowledgement of an event's first attempt: about
// half the events, the same ones for a seed.
func (st *state) losesAck(eventID string) bool {
	h := fnv.New64a()
	_, _ = fmt.Fprintf(h, "%d\x00%s", st.v.Seed, eventID)
	return h.Sum64()%2 == 0
}

// captured is a response the sandbox wrote, held back so that the variant can rewrite it.
type captured struct {
	header http.Header
	status int
	body   []byte
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// capture runs next and keeps what it wrote.
func capture(next http.Handler, r *http.Request) *captured {
	rec := &recorder{header: http.Header{}}
	next.ServeHTTP(rec, r)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return &captured{header: rec.header, status: rec.status, body: rec.body.Bytes()}
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
