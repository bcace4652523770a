package faults

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Faults that only generated inputs reveal. Each mishandles a value the document allows but none of
// its examples holds, so an example-driven suite passes against it: the examples' narrations are
// short ASCII ("Order 1044"), their amounts 150.5, 2500 and 120, their references letters, digits and
// dashes. Each is the kind of bug an implementation gets from a narrower idea of the input than the
// document's (an ASCII-only encoder, a column of 100 characters, a limit of its own, a decimal with one
// place, an older pattern), and each is a middleware or an outgoing hook: the sandbox's handlers hold
// no fault code.

// Bounds of the faults. narrationColumn and payoutLimit are the faulty implementation's own; the
// others are the document's, restated here only to keep a fault from changing what the document
// refuses into something accepted (a fault breaks one rule, not the negative checks' too).
const (
	// narrationColumn is the width the long-text fault cuts narrations to.
	narrationColumn = 100
	// narrationMaxLength is the Narration schema's maxLength: a longer narration is invalid, and the
	// sandbox must go on refusing it.
	narrationMaxLength = 255
	// payoutLimit is the largest payout amount the large-amount fault takes; the PayoutAmount schema
	// allows up to 2^53-1.
	payoutLimit = 1_000_000
	// roundedBelow bounds the payment amounts the cents fault rounds: the suite's own exactness check
	// (987654321.12 and above) is out of its reach, as a second code path for large amounts would be.
	roundedBelow = 100_000_000
)

// bodyRule looks at the decoded JSON body of a create (initializePayment or processPayout) before the
// sandbox sees it. It answers the request itself (a non-nil answer), or changes the body in place and
// says so, or leaves it alone.
type bodyRule func(s *sandbox.Server, r *http.Request, body map[string]any) (answer *captured, changed bool)

// onCreate builds a middleware that applies rule to the body of every create whose body is a JSON
// object; anything else (another operation, a body that is not JSON) goes to the sandbox untouched, so
// that the sandbox's own verdict on it stands.
func onCreate(rule bodyRule) func() middlewareFunc {
	return func() middlewareFunc {
		return func(s *sandbox.Server, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if is(r, api.OpInitializePayment()) || is(r, api.OpProcessPayout()) {
					if body := decodeObject(readAndRestore(r)); body != nil {
						answer, changed := rule(s, r, body)
						if answer != nil {
							answer.send(w)
							return
						}
						if changed {
							replaceBody(r, body)
						}
					}
				}
				next.ServeHTTP(w, r)
			})
		}
	}
}

// valid reports whether the sandbox would carry out a request as far as its keys and the document
// go: a merchant's own key pair, and nothing the document refuses. The faults that answer a create
// themselves do so only then, so that a request without keys still gets the sandbox's 401 and an
// invalid one its 400 naming every offending field: each fault breaks its one rule, not the auth or
// negative checks'.
func valid(s *sandbox.Server, r *http.Request) bool {
	pair, ok := pairOf(s, r.Header.Get(api.HeaderPublicKey))
	return ok && r.Header.Get(api.HeaderSecretKey) == pair.Secret && len(s.Spec().ValidateRequest(r)) == 0
}

// nonASCIICrash answers 500 to a valid create whose body holds a string with a character outside
// ASCII, as a server that validates the request, then passes its text to an ASCII-only encoder and
// dies of it. Nothing is created. Only the free text (narration) of a valid body can hold such a
// character: every other string's pattern is ASCII. An invalid request keeps the sandbox's 400, so
// that the fault breaks "never 5xx on valid input" and not the negative checks' rule (the suite sends
// URLs with Unicode spaces, which must still be refused as invalid).
func nonASCIICrash(s *sandbox.Server, r *http.Request, body map[string]any) (*captured, bool) {
	if !holdsNonASCII(body) || !valid(s, r) {
		return nil, false
	}
	return errorAnswer(api.CodeInternalError, "An internal error occurred while trying to encode the request; retry with the same Idempotency-Key.", nil), false
}

// largeAmountRefused refuses a valid payout above payoutLimit as invalid, naming /amount, although the
// document allows up to 2^53-1. Payments are left alone: the suite already sends payment amounts in
// the billions (positive.initializePayment.amount-exact), so there the fault would not be one that
// only generated inputs reveal.
func largeAmountRefused(s *sandbox.Server, r *http.Request, body map[string]any) (*captured, bool) {
	if !is(r, api.OpProcessPayout()) {
		return nil, false
	}
	amount, ok := decimal(body["amount"])
	if !ok || amount.Cmp(big.NewRat(payoutLimit, 1)) <= 0 || !valid(s, r) {
		return nil, false
	}
	return errorAnswer(api.CodeValidationFailed, "The request is invalid; see errors for each field.",
		[]api.FieldError{{Field: "/amount", Reason: "must be at most " + strconv.Itoa(payoutLimit)}}), false
}

// longTextTruncated cuts a narration longer than narrationColumn characters to its first
// narrationColumn, before the sandbox stores it: responses, read-backs and webhooks all show the cut
// text. A narration too long for the document is left whole, for the sandbox to refuse.
func longTextTruncated(_ *sandbox.Server, _ *http.Request, body map[string]any) (*captured, bool) {
	narration, ok := body["narration"].(string)
	if n := utf8.RuneCountInString(narration); !ok || n <= narrationColumn || n > narrationMaxLength {
		return nil, false
	}
	runes := []rune(narration)
	body["narration"] = string(runes[:narrationColumn])
	return nil, true
}

// centsRounded stores a payment's amount rounded to one decimal, halves away from zero (150.55
// becomes 150.6), when it is below roundedBelow and the rounding leaves a valid amount (0.05 and
// up). An amount the document refuses (three decimals, say) is left alone for the sandbox to refuse.
func centsRounded(_ *sandbox.Server, r *http.Request, body map[string]any) (*captured, bool) {
	if !is(r, api.OpInitializePayment()) {
		return nil, false
	}
	amount, ok := decimal(body["amount"])
	if !ok || amount.Cmp(big.NewRat(roundedBelow, 1)) >= 0 || amount.Cmp(big.NewRat(5, 100)) < 0 ||
		!new(big.Rat).Mul(amount, big.NewRat(100, 1)).IsInt() {
		return nil, false
	}
	rounded := amount.FloatString(1)
	if back, _ := new(big.Rat).SetString(rounded); back.Cmp(amount) == 0 {
		return nil, false
	}
	body["amount"] = json.Number(rounded)
	return nil, true
}

// patternCharRefused refuses a valid create whose merchant reference holds `:`, which the MerchantReference pattern
// allows, as if the implementation checked an older, narrower pattern.
func patternCharRefused(s *sandbox.Server, r *http.Request, body map[string]any) (*captured, bool) {
	reference, ok := body["reference"].(string)
	if !ok || !strings.Contains(reference, ":") || !valid(s, r) {
		return nil, false
	}
	return errorAnswer(api.CodeValidationFailed, "The request is invalid; see errors for each field.",
		[]api.FieldError{{Field: "/reference", Reason: "must match ^[A-Za-z0-9][A-Za-z0-9_.-]*$"}}), false
}

// lostMemberType and lostMember are the event type whose payload loses a member, and that member of
// its object: the Payout schema marks narration optional, so the payload stays valid, and says the
// payout's other fields echo the request, so a payout sent with a narration must show it.
const (
	lostMemberType = api.EventTypePayoutFailed
	lostMember     = "narration"
)

// dropMemberOfOneType removes lostMember from the object of every lostMemberType delivery, as a
// serializer written for failed payouts alone would. Payouts read through the API keep it, and so do
// the other event types.
func dropMemberOfOneType(o *sandbox.Outgoing) {
	if o.EventType != lostMemberType {
		return
	}
	event := decodeObject(o.Body)
	if event == nil || !dropLostMember(event) {
		return
	}
	o.Body = encode(event)
}

// dropMemberInEventLog removes lostMember from the payloads of lostMemberType events in the event
// log's answers, so that the log shows the body the deliveries carried, as the document says it does:
// the fault breaks the echo rule, not the log's.
func dropMemberInEventLog() middlewareFunc {
	return onResponse(func(r *http.Request, c *captured) {
		if r.Method != http.MethodGet || !is(r, api.OpGetEvent()) && !is(r, api.OpListEvents()) {
			return
		}
		env := decodeObject(c.body)
		if env != nil && dropInPayloads(env) {
			c.body = encode(env)
		}
	})
}

// dropInPayloads walks a decoded response and drops lostMember from every event payload of
// lostMemberType in it, wherever the listing puts the events.
func dropInPayloads(v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		if payload, ok := v["payload"].(map[string]any); ok && dropLostMember(payload) {
			changed = true
		}
		for _, member := range v {
			changed = dropInPayloads(member) || changed
		}
	case []any:
		for _, item := range v {
			changed = dropInPayloads(item) || changed
		}
	}
	return changed
}

// dropLostMember removes lostMember from data.object of an event body of lostMemberType.
func dropLostMember(event map[string]any) bool {
	if event["type"] != string(lostMemberType) {
		return false
	}
	data, _ := event["data"].(map[string]any)
	object, _ := data["object"].(map[string]any)
	if _, had := object[lostMember]; !had {
		return false
	}
	delete(object, lostMember)
	return true
}

// holdsNonASCII reports whether any string in a decoded JSON value has a character outside ASCII.
func holdsNonASCII(v any) bool {
	switch v := v.(type) {
	case string:
		for i := 0; i < len(v); i++ {
			if v[i] >= utf8.RuneSelf {
				return true
			}
		}
	case map[string]any:
		for _, member := range v {
			if holdsNonASCII(member) {
				return true
			}
		}
	case []any:
		for _, item := range v {
			if holdsNonASCII(item) {
				return true
			}
		}
	}
	return false
}

// decimal reads a JSON number, as decodeObject leaves it, exactly.
func decimal(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(n.String())
}

// decodeObject decodes a JSON object keeping its numbers' text (json.Number), or returns nil.
func decodeObject(b []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || dec.More() {
		return nil
	}
	return obj
}

// encode writes a decoded JSON value back as compact JSON, without HTML escaping, as the sandbox
// writes its own.
func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("faults: a decoded JSON value cannot be encoded again: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// replaceBody gives the request a new JSON body.
func replaceBody(r *http.Request, body map[string]any) {
	b := encode(body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	if r.Header.Get("Content-Length") != "" {
		r.Header.Set("Content-Length", strconv.Itoa(len(b)))
	}
}

// errorAnswer is the document's error envelope for code, with the status its error table gives.
func errorAnswer(code api.ErrorCode, message string, fields []api.FieldError) *captured {
	if fields == nil {
		fields = []api.FieldError{}
	}
	body := encode(api.Error{Status: api.ErrorStatusError, Code: code, Message: message, Errors: fields})
	return &captured{header: http.Header{"Content-Type": {"application/json"}}, status: code.HTTPStatus(), body: body}
}
