package faults

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// HTTP middleware faults: each rewrites requests on their way into the sandbox or responses on their
// way out. Each constructor is called once per sandbox, so that what a fault remembers (keys seen,
// secrets shown) is the sandbox's own.

type middlewareFunc = func(*sandbox.Server, http.Handler) http.Handler

// onResponse builds a middleware that lets change change every response before it is sent.
func onResponse(change func(r *http.Request, c *captured)) middlewareFunc {
	return func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c := capture(next, r)
			change(r, c)
			c.send(w)
		})
	}
}

func wrongSuccessStatus() middlewareFunc {
	return onResponse(func(_ *http.Request, c *captured) {
		if c.status == http.StatusCreated {
			c.status = http.StatusOK
		}
	})
}

// dropPayoutStatus removes data.status from the responses of create-payout and get-payout.
func dropPayoutStatus() middlewareFunc {
	return onResponse(func(r *http.Request, c *captured) {
		if is(r, api.OpProcessPayout()) || is(r, api.OpGetPayout()) {
			c.eachObject(func(o map[string]any) bool {
				_, had := o["status"]
				delete(o, "status")
				return had
			})
		}
	})
}

// authNotEnforced replaces missing or wrong keys by a merchant's pair before the sandbox sees them:
// the pair of the public key given, or the first merchant's.
func authNotEnforced() middlewareFunc {
	return func(s *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			pair, ok := pairOf(s, r.Header.Get(api.HeaderPublicKey))
			if !ok {
				pair = s.KeyPairs()[0]
			}
			r.Header.Set(api.HeaderPublicKey, pair.Public)
			r.Header.Set(api.HeaderSecretKey, pair.Secret)
			next.ServeHTTP(w, r)
		})
	}
}

// secretKeyNotChecked replaces any secret key sent with a known public key by that merchant's own.
func secretKeyNotChecked() middlewareFunc {
	return func(s *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if pair, ok := pairOf(s, r.Header.Get(api.HeaderPublicKey)); ok && strings.TrimSpace(r.Header.Get(api.HeaderSecretKey)) != "" {
				r.Header.Set(api.HeaderSecretKey, pair.Secret)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// errorNotEnvelope sends an error's message as text/plain instead of the JSON envelope.
func errorNotEnvelope() middlewareFunc {
	return onResponse(func(_ *http.Request, c *captured) {
		env := c.json()
		if c.status < 400 || env == nil {
			return
		}
		message, _ := env["message"].(string)
		c.header.Set("Content-Type", "text/plain; charset=utf-8")
		c.body = []byte(message + "\n")
	})
}

// errorMissingFieldPointer empties every error envelope's errors[].
func errorMissingFieldPointer() middlewareFunc {
	return onResponse(func(_ *http.Request, c *captured) {
		if env := c.json(); c.status >= 400 && env != nil {
			env["errors"] = []any{}
			c.setJSON(env)
		}
	})
}

// fieldErrorsStopAtFirst cuts an error's errors[] to its first entry.
func fieldErrorsStopAtFirst() middlewareFunc {
	return onResponse(func(_ *http.Request, c *captured) {
		if env := c.json(); c.status >= 400 && env != nil {
			if list, ok := env["errors"].([]any); ok && len(list) > 1 {
				env["errors"] = list[:1]
				c.setJSON(env)
			}
		}
	})
}

// rateLimitFieldsOnSuccessOnly removes the RateLimit fields from every 4xx answer.
func rateLimitFieldsOnSuccessOnly() middlewareFunc {
	return onResponse(func(_ *http.Request, c *captured) {
		if c.status >= 400 && c.status < 500 {
			for _, h := range api.RateLimitFields() {
				c.header.Del(h)
			}
		}
	})
}

// idempotencyIgnored removes the Idempotency-Key header, so every retry runs again.
func idempotencyIgnored() middlewareFunc {
	return func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Del(api.HeaderIdempotencyKey)
			next.ServeHTTP(w, r)
		})
	}
}

// idempotencyConflictIgnored removes the Idempotency-Key from a request whose body differs from the
// first body sent with that key, so it runs as a new request instead of being refused.
func idempotencyConflictIgnored() middlewareFunc {
	var mu sync.Mutex
	first := map[string]string{} // merchant, method, path and key -> canonical first body
	return func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if key := r.Header.Get(api.HeaderIdempotencyKey); key != "" {
				body := readAndRestore(r)
				scoped := strings.Join([]string{r.Header.Get(api.HeaderPublicKey), r.Method, r.URL.Path, key}, "\x00")
				mu.Lock()
				seen, ok := first[scoped]
				if !ok {
					first[scoped] = canonical(body)
				}
				mu.Unlock()
				if ok && seen != canonical(body) {
					r.Header.Del(api.HeaderIdempotencyKey)
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// validationErrorUsesKey stores a 400 under the request's Idempotency-Key and replays it to every later
// request with that key, the corrected one included: the key is used up by a request the service never
// carried out.
func validationErrorUsesKey() middlewareFunc {
	var mu sync.Mutex
	refused := map[string]*captured{} // merchant, method, path and key -> the 400 it got
	return func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get(api.HeaderIdempotencyKey)
			if key == "" {
				next.ServeHTTP(w, r)
				return
			}
			scoped := strings.Join([]string{r.Header.Get(api.HeaderPublicKey), r.Method, r.URL.Path, key}, "\x00")
			mu.Lock()
			stored, ok := refused[scoped]
			mu.Unlock()
			if ok {
				replay := stored.clone()
				replay.header.Set(api.HeaderIdempotentReplayed, "true")
				replay.send(w)
				return
			}
			c := capture(next, r)
			if c.status == http.StatusBadRequest {
				mu.Lock()
				refused[scoped] = c.clone()
				mu.Unlock()
			}
			c.send(w)
		})
	}
}

func replayHeaderMissing() middlewareFunc {
	return onResponse(func(_ *http.Request, c *captured) { c.header.Del(api.HeaderIdempotentReplayed) })
}

// rateLimitWithoutRetryAfter sends 429 without Retry-After, leaving a client to guess when to retry.
func rateLimitWithoutRetryAfter() middlewareFunc {
	return onResponse(func(_ *http.Request, c *captured) {
		if c.status == http.StatusTooManyRequests {
			c.header.Del(api.HeaderRetryAfter)
		}
	})
}

// loseFirstCreateResponse drops the connection instead of sending the first successful response of
// a POST with an Idempotency-Key: the object exists, and the client must retry with the key to learn
// about it.
func loseFirstCreateResponse() middlewareFunc {
	var mu sync.Mutex
	dropped := map[string]bool{}
	return func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get(api.HeaderIdempotencyKey)
			c := capture(next, r)
			if r.Method == http.MethodPost && key != "" && c.status < 300 {
				scoped := strings.Join([]string{r.Header.Get(api.HeaderPublicKey), r.URL.Path, key}, "\x00")
				mu.Lock()
				drop := !dropped[scoped]
				dropped[scoped] = true
				mu.Unlock()
				if drop {
					panic(http.ErrAbortHandler)
				}
			}
			c.send(w)
		})
	}
}

// crossMerchantVisible answers a GET that found nothing with what another merchant's keys find.
func crossMerchantVisible() middlewareFunc {
	return func(s *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c := capture(next, r)
			if r.Method == http.MethodGet && c.status == http.StatusNotFound {
				for _, pair := range s.KeyPairs() {
					other := r.Clone(r.Context())
					other.Header.Set(api.HeaderPublicKey, pair.Public)
					other.Header.Set(api.HeaderSecretKey, pair.Secret)
					if found := capture(next, other); found.status < 300 {
						c = found
						break
					}
				}
			}
			c.send(w)
		})
	}
}

// completeNotPendingAccepted answers a refused completion (422/5000) with 202 and the payment as the
// first completion showed it, as if the prompt had been sent again.
func completeNotPendingAccepted() middlewareFunc {
	var mu sync.Mutex
	shown := map[string]*captured{} // paymentReference -> the first accepted completion
	return onResponse(func(r *http.Request, c *captured) {
		if !is(r, api.OpCompletePayment()) {
			return
		}
		ref := pathParam(r, api.OpCompletePayment(), "payment_reference")
		mu.Lock()
		defer mu.Unlock()
		switch env := c.json(); {
		case c.status == http.StatusAccepted:
			shown[ref] = c.clone()
		case c.status == http.StatusUnprocessableEntity && env != nil && env["code"] == float64(api.CodeInvalidState) && shown[ref] != nil:
			*c = *shown[ref].clone()
		}
	})
}

// secretInEndpointRead adds each webhook endpoint's secret, as create and rotate-secret showed it, to
// what GET and list return.
func secretInEndpointRead() middlewareFunc {
	var mu sync.Mutex
	secrets := map[string]any{} // endpoint id -> secret
	return onResponse(func(r *http.Request, c *captured) {
		mu.Lock()
		defer mu.Unlock()
		c.eachObject(func(o map[string]any) bool {
			id, _ := o["id"].(string)
			if secret, ok := o["secret"]; ok {
				secrets[id] = secret
				return false
			}
			if secret, ok := secrets[id]; ok && r.Method == http.MethodGet {
				o["secret"] = secret
				return true
			}
			return false
		})
	})
}

// finalStateChanges shows a payout that was read as success as failed on every later read.
func finalStateChanges() middlewareFunc {
	var mu sync.Mutex
	succeeded := map[string]bool{}
	return onResponse(func(r *http.Request, c *captured) {
		if r.Method != http.MethodGet {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		c.eachObject(func(o map[string]any) bool {
			id, _ := o["payout_id"].(string)
			if id == "" || o["status"] != string(api.PayoutStatusSuccess) {
				return false
			}
			if !succeeded[id] {
				succeeded[id] = true
				return false
			}
			o["status"], o["failure_reason"] = string(api.PayoutStatusFailed), string(api.FailureReasonTransactionFailed)
			o["updated_at"] = time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
			return true
		})
	})
}

// wrongFailureReasonInResponses gives every object in a response another failure_reason than its own.
func wrongFailureReasonInResponses() middlewareFunc {
	return onResponse(func(_ *http.Request, c *captured) { c.eachObject(misstateFailureReason) })
}

// pairOf returns the key pair of the merchant whose public key is given.
func pairOf(s *sandbox.Server, publicKey string) (sandbox.KeyPair, bool) {
	for _, p := range s.KeyPairs() {
		if p.Public == strings.TrimSpace(publicKey) {
			return p, true
		}
	}
	return sandbox.KeyPair{}, false
}

// is reports whether a request is a call of op: its method, and its path against op's template.
func is(r *http.Request, op api.Operation) bool {
	_, ok := matchPath(r, op)
	return ok && r.Method == op.Method
}

// pathParam returns a path parameter of a request that is a call of op.
func pathParam(r *http.Request, op api.Operation, name string) string {
	params, _ := matchPath(r, op)
	return params[name]
}

func matchPath(r *http.Request, op api.Operation) (map[string]string, bool) {
	want := strings.Split(op.Path, "/")
	got := strings.Split(r.URL.Path, "/")
	if len(want) != len(got) {
		return nil, false
	}
	params := map[string]string{}
	for i, seg := range want {
		switch {
		case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}"):
			params[strings.Trim(seg, "{}")] = got[i]
		case seg != got[i]:
			return nil, false
		}
	}
	return params, true
}

// readAndRestore reads a request's body and puts it back for the next handler.
func readAndRestore(r *http.Request) []byte {
	if r.Body == nil {
		return nil
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body
}

// canonical is a JSON body with sorted keys and no insignificant space, or the bytes themselves
// when they are not JSON.
func canonical(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(body)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(body)
	}
	return string(out)
}
