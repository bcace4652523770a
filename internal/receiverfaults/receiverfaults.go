// Package receiverfaults builds webhook receivers that break one rule each, for the tests that prove
// `malipo webhooks test` (package receivertests) notices each broken rule with the check that guards
// it, and no other. Every receiver is the correct one (Correct: webhook.Receiver around a lenient
// handler) with one rule broken from outside, as internal/faults breaks the sandbox.
package receiverfaults

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Fault is a receiver with one rule broken.
type Fault struct {
	// Name identifies the fault in test names.
	Name string
	// Rule says which rule it breaks.
	Rule string
	// New builds the receiver for a secret.
	New func(secret webhook.Secret) http.Handler
}

// app is the merchant's own handler as a correct receiver has it: it decodes leniently (unknown
// fields ignored), handles the types it knows and acknowledges the others.
type app struct {
	strict      bool // decode with DisallowUnknownFields and fail on an unknown field
	failUnknown bool // answer 500 to an event type it does not know
}

func (a app) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var ev struct {
		ID        string          `json:"id"`
		Type      api.EventType   `json:"type"`
		CreatedAt string          `json:"created_at"`
		Data      json.RawMessage `json:"data"`
	}
	dec := json.NewDecoder(r.Body)
	if a.strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&ev); err != nil {
		status := http.StatusBadRequest
		if a.strict {
			status = http.StatusInternalServerError // the strict decoder's error escapes as a crash
		}
		http.Error(w, "cannot decode the event", status)
		return
	}
	known := false
	for _, t := range api.EventTypeValues() {
		known = known || t == ev.Type
	}
	if !known && a.failUnknown {
		http.Error(w, "unhandled event type", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// verifier is the correct receiver's verifier for secret.
func verifier(secret webhook.Secret) webhook.Verifier {
	return webhook.Verifier{Secrets: []webhook.Secret{secret}}
}

// Correct is the receiver that follows every rule: webhook.NewReceiver around a lenient handler.
func Correct(secret webhook.Secret) http.Handler { return webhook.NewReceiver(verifier(secret), app{}) }

// CorrectTyped follows every rule too, and decodes each event it knows into package api's types (an
// amount into int64 or float64, as the document types it), answering 400 to a body that does not
// decode: what a merchant's Go handler written from the generated types does. The grader must not
// send a correct receiver a body it cannot decode.
func CorrectTyped(secret webhook.Secret) http.Handler {
	return webhook.NewReceiver(verifier(secret), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		var head struct{ Type string }
		if err := json.Unmarshal(body, &head); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var typed any
		switch {
		case strings.HasPrefix(head.Type, "payout."):
			typed = &api.PayoutEvent{}
		case strings.HasPrefix(head.Type, "payment."):
			typed = &api.PaymentEvent{}
		}
		if typed != nil && slices.Contains(api.EventTypeValues(), api.EventType(head.Type)) {
			if err := json.Unmarshal(body, typed); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
}

// rewrite calls next after fn has changed the request; the body is read first so fn can see it.
func rewrite(next http.Handler, fn func(r *http.Request, body []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		fn(r, body)
		next.ServeHTTP(w, r)
	})
}

// Named returns the fault called name, and false when there is none.
func Named(name string) (Fault, bool) {
	for _, f := range All() {
		if f.Name == name {
			return f, true
		}
	}
	return Fault{}, false
}

// All returns every fault: those that break one rule, then SkipsVerificationFor each event type.
func All() []Fault {
	faults := []Fault{
		{Name: "accepts-any-signature", Rule: "a webhook-signature is checked for presence, never verified",
			New: func(secret webhook.Secret) http.Handler {
				return rewrite(Correct(secret), func(r *http.Request, body []byte) {
					if r.Header.Get(webhook.HeaderSignature) == "" {
						return
					}
					// Whatever it carries, the receiver behaves as if it were the right signature.
					if n, err := strconv.ParseInt(r.Header.Get(webhook.HeaderTimestamp), 10, 64); err == nil {
						r.Header.Set(webhook.HeaderSignature, webhook.Sign(r.Header.Get(webhook.HeaderID), time.Unix(n, 0), body, secret))
					}
				})
			}},
		{Name: "accepts-no-signature", Rule: "a delivery without webhook-signature skips verification",
			New: func(secret webhook.Secret) http.Handler {
				verified := Correct(secret)
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get(webhook.HeaderSignature) == "" {
						app{}.ServeHTTP(w, r)
						return
					}
					verified.ServeHTTP(w, r)
				})
			}},
		{Name: "ignores-timestamp", Rule: "webhook-timestamp is signed but its age is never checked",
			New: func(secret webhook.Secret) http.Handler {
				v := verifier(secret)
				v.Tolerance = 100 * 365 * 24 * time.Hour
				return webhook.NewReceiver(v, app{})
			}},
		{Name: "accepts-empty-signature-list", Rule: "every signature listed must verify, so a webhook-signature that lists none (empty, or \"v1,\" with no HMAC) passes",
			New: func(secret webhook.Secret) http.Handler {
				verified := Correct(secret)
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					values, present := r.Header[http.CanonicalHeaderKey(webhook.HeaderSignature)]
					listed := 0
					for _, sig := range strings.Fields(strings.Join(values, " ")) {
						if _, mac, _ := strings.Cut(sig, ","); mac != "" {
							listed++
						}
					}
					if present && listed == 0 {
						app{}.ServeHTTP(w, r) // the loop over the signatures found nothing wrong
						return
					}
					verified.ServeHTTP(w, r)
				})
			}},
		{Name: "trusts-several-signatures", Rule: "a webhook-signature that lists more than one signature is taken for a rotation and trusted without verifying any of them; a single signature is verified",
			New: func(secret webhook.Secret) http.Handler {
				return rewrite(Correct(secret), func(r *http.Request, body []byte) {
					if len(strings.Fields(strings.Join(r.Header.Values(webhook.HeaderSignature), " "))) < 2 {
						return
					}
					// Whatever the list holds, the receiver behaves as if it held the right signature.
					if n, err := strconv.ParseInt(r.Header.Get(webhook.HeaderTimestamp), 10, 64); err == nil {
						r.Header.Set(webhook.HeaderSignature, webhook.Sign(r.Header.Get(webhook.HeaderID), time.Unix(n, 0), body, secret))
					}
				})
			}},
		{Name: "tries-last-signature-only", Rule: "only the last signature of webhook-signature is tried (a service that signs with the new secret first is refused during a rotation)",
			New: func(secret webhook.Secret) http.Handler {
				return rewrite(Correct(secret), func(r *http.Request, _ []byte) {
					if sigs := strings.Fields(r.Header.Get(webhook.HeaderSignature)); len(sigs) > 1 {
						r.Header.Set(webhook.HeaderSignature, sigs[len(sigs)-1])
					}
				})
			}},
		{Name: "unknown-type-4xx", Rule: "an event type the handler does not know is answered 422 (not acknowledged, so it is retried)",
			New: func(secret webhook.Secret) http.Handler {
				return webhook.NewReceiver(verifier(secret), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					var ev struct {
						Type string `json:"type"`
					}
					body, _ := io.ReadAll(r.Body)
					_ = json.Unmarshal(body, &ev)
					if !slices.Contains(api.EventTypeValues(), api.EventType(ev.Type)) {
						http.Error(w, "unknown event type", http.StatusUnprocessableEntity)
						return
					}
					w.WriteHeader(http.StatusNoContent)
				}))
			}},
		{Name: "tolerance-doubled", Rule: "webhook-timestamp is checked against ten minutes, twice the documented tolerance",
			New: func(secret webhook.Secret) http.Handler {
				v := verifier(secret)
				v.Tolerance = 10 * time.Minute
				return webhook.NewReceiver(v, app{})
			}},
		{Name: "rejects-dual-signature", Rule: "only the first signature of webhook-signature is tried",
			New: func(secret webhook.Secret) http.Handler {
				return rewrite(Correct(secret), func(r *http.Request, _ []byte) {
					if first, _, ok := strings.Cut(strings.TrimSpace(r.Header.Get(webhook.HeaderSignature)), " "); ok {
						r.Header.Set(webhook.HeaderSignature, first)
					}
				})
			}},
		{Name: "duplicate-500", Rule: "no dedupe on webhook-id: a redelivery hits a unique constraint and answers 500",
			New: func(secret webhook.Secret) http.Handler {
				var mu sync.Mutex
				seen := map[string]bool{}
				rc := webhook.NewReceiver(verifier(secret), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					id := r.Header.Get(webhook.HeaderID)
					mu.Lock()
					dup := seen[id]
					seen[id] = true
					mu.Unlock()
					if dup {
						http.Error(w, "duplicate key value violates unique constraint", http.StatusInternalServerError)
						return
					}
					app{}.ServeHTTP(w, r)
				}))
				rc.Store = nil
				return rc
			}},
		{Name: "slow", Rule: "the event is handled before answering, slower than the delivery time-out",
			New: func(secret webhook.Secret) http.Handler {
				return webhook.NewReceiver(verifier(secret), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					select { // until the sender gives up (or a minute, should it not)
					case <-r.Context().Done():
					case <-time.After(time.Minute):
					}
					w.WriteHeader(http.StatusNoContent)
				}))
			}},
		{Name: "unknown-type-500", Rule: "an event type the handler does not know is answered 500",
			New: func(secret webhook.Secret) http.Handler {
				return webhook.NewReceiver(verifier(secret), app{failUnknown: true})
			}},
		{Name: "unknown-field-500", Rule: "the event is decoded strictly: an undeclared field is a 500",
			New: func(secret webhook.Secret) http.Handler {
				return webhook.NewReceiver(verifier(secret), app{strict: true})
			}},
		{Name: "verifies-go-reencoded-body", Rule: "the signature is checked over json.Marshal of the decoded body, not over the bytes received",
			New: func(secret webhook.Secret) http.Handler { return verifiesReencoded(secret, goReencode) }},
		{Name: "verifies-js-stringified-body", Rule: "the signature is checked over JSON.stringify(JSON.parse(body)), as an Express receiver that signs JSON.stringify(req.body) does",
			New: func(secret webhook.Secret) http.Handler { return verifiesReencoded(secret, jsStringify) }},
		// Receivers whose handler breaks on values only generated payloads carry: the document's
		// examples pass them.
		{Name: "failure-reason-switch-500", Rule: "a failed event's handler switches on failure_reason and answers 500 to the reasons it was not written for",
			New: func(secret webhook.Secret) http.Handler {
				reasons := api.FailureReasonValues()
				handled := reasons[:len(reasons)-2] // written before the last two reasons were documented
				return refuses(secret, func(ev map[string]any) string {
					if t, _ := ev["type"].(string); !strings.HasSuffix(t, ".failed") {
						return ""
					}
					reason, _ := object(ev)["failure_reason"].(string)
					for _, h := range handled {
						if string(h) == reason {
							return ""
						}
					}
					return "unhandled failure reason " + reason
				})
			}},
		{Name: "amount-int32-500", Rule: "the amount is stored in a 32-bit integer column: an amount above 2,147,483,647 is a 500",
			New: func(secret webhook.Secret) http.Handler {
				return refuses(secret, func(ev map[string]any) string {
					if amount, _ := object(ev)["amount"].(float64); amount > math.MaxInt32 {
						return "numeric field overflow"
					}
					return ""
				})
			}},
		{Name: "narration-varchar-100-500", Rule: "the narration is stored in a VARCHAR(100): a longer one is a 500",
			New: func(secret webhook.Secret) http.Handler {
				return refuses(secret, func(ev map[string]any) string {
					if n, _ := object(ev)["narration"].(string); utf8.RuneCountInString(n) > 100 {
						return "value too long for type character varying(100)"
					}
					return ""
				})
			}},
		{Name: "non-bmp-500", Rule: "text is stored in a 3-byte UTF-8 column (MySQL utf8mb3): a character outside the BMP (an emoji) is a 500",
			New: func(secret webhook.Secret) http.Handler {
				return refuses(secret, func(ev map[string]any) string {
					if n, _ := object(ev)["narration"].(string); strings.ContainsFunc(n, func(r rune) bool { return r > 0xffff }) {
						return "Incorrect string value for column 'narration'"
					}
					return ""
				})
			}},
	}
	for _, t := range api.EventTypeValues() {
		faults = append(faults, SkipsVerificationFor(string(t)))
	}
	return faults
}

// refuses is the correct receiver whose handler answers 500 to an event when refuse gives a reason:
// a verified delivery that breaks the merchant's code after the signature check.
func refuses(secret webhook.Secret, refuse func(ev map[string]any) string) http.Handler {
	return webhook.NewReceiver(verifier(secret), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev map[string]any
		if json.Unmarshal(body, &ev) == nil {
			if why := refuse(ev); why != "" {
				http.Error(w, why, http.StatusInternalServerError)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		app{}.ServeHTTP(w, r)
	}))
}

// object is the event's data.object, or an empty map.
func object(ev map[string]any) map[string]any {
	data, _ := ev["data"].(map[string]any)
	obj, _ := data["object"].(map[string]any)
	if obj == nil {
		return map[string]any{}
	}
	return obj
}

// SkipsVerificationFor is the receiver that trusts deliveries of one event type without verifying
// them (a switch on the body's type before the signature check, a handler that verifies in some
// branches only): every attack of that type is accepted, every other type is verified.
func SkipsVerificationFor(eventType string) Fault {
	return Fault{Name: "skips-verification/" + eventType, Rule: "deliveries of " + eventType + " are handled without verifying the signature or the timestamp",
		New: func(secret webhook.Secret) http.Handler {
			verified := Correct(secret)
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				var ev struct {
					Type string `json:"type"`
				}
				if json.Unmarshal(body, &ev) == nil && ev.Type == eventType {
					app{}.ServeHTTP(w, r)
					return
				}
				verified.ServeHTTP(w, r)
			})
		}}
}

// verifiesReencoded is the correct receiver fed the body as reencode writes it back after decoding:
// the mistake of a framework that parses JSON before the verifier runs.
func verifiesReencoded(secret webhook.Secret, reencode func([]byte) ([]byte, error)) http.Handler {
	return rewrite(Correct(secret), func(r *http.Request, body []byte) {
		if again, err := reencode(body); err == nil {
			r.Body = io.NopCloser(bytes.NewReader(again))
		}
	})
}
