package faults

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Faults of secrets a caller supplies on create and rotate-secret.

// suppliesSecret reports whether a request can carry a secret of the caller's: create and rotate-secret.
func suppliesSecret(r *http.Request) bool {
	return is(r, api.OpCreateWebhookEndpoint()) || is(r, api.OpRotateWebhookEndpointSecret())
}

// suppliedSecret returns the `secret` string of a request body, or "".
func suppliedSecret(body []byte) string {
	var in struct {
		Secret any `json:"secret"`
	}
	if json.Unmarshal(body, &in) != nil {
		return ""
	}
	s, _ := in.Secret.(string)
	return s
}

// ignoredSecrets lets the sandbox take and show a supplied secret, then signs every delivery with
// another one in its place, which the merchant was never given.
type ignoredSecrets struct {
	mu          sync.Mutex
	substitutes map[string]webhook.Secret // the supplied secret's text -> the secret that signs instead
}

func suppliedSecretIgnored() sandbox.Option {
	ig := &ignoredSecrets{substitutes: map[string]webhook.Secret{}}
	return sandbox.WithHooks(sandbox.Hooks{Middleware: ig.record, Outgoing: ig.substitute})
}

// record notes each supplied secret on its way in.
func (ig *ignoredSecrets) record(_ *sandbox.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if suppliesSecret(r) {
			if s := suppliedSecret(readAndRestore(r)); s != "" {
				ig.mu.Lock()
				if _, ok := ig.substitutes[s]; !ok {
					sub, err := webhook.NewSecret()
					if err != nil {
						panic("faults: no randomness for a webhook secret: " + err.Error())
					}
					ig.substitutes[s] = sub
				}
				ig.mu.Unlock()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// substitute signs with the stand-in of every supplied secret (a new slice: the sandbox's stays).
func (ig *ignoredSecrets) substitute(o *sandbox.Outgoing) {
	ig.mu.Lock()
	defer ig.mu.Unlock()
	secrets := make([]webhook.Secret, len(o.Secrets))
	for i, s := range o.Secrets {
		secrets[i] = s
		if sub, ok := ig.substitutes[s.Reveal()]; ok {
			secrets[i] = sub
		}
	}
	o.Secrets = secrets
}

// weakSecretAccepted answers a create or rotate-secret whose supplied secret the contract refuses as if
// it had been taken: the request goes on without it (the sandbox generates one) and the response
// shows the refused secret as the endpoint's.
func weakSecretAccepted() middlewareFunc {
	return func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !suppliesSecret(r) {
				next.ServeHTTP(w, r)
				return
			}
			body := readAndRestore(r)
			weak := suppliedSecret(body)
			var in map[string]any
			if _, err := webhook.ParseEndpointSecret(weak); weak == "" || err == nil || json.Unmarshal(body, &in) != nil {
				next.ServeHTTP(w, r)
				return
			}
			delete(in, "secret")
			stripped, err := json.Marshal(in)
			if err != nil {
				next.ServeHTTP(w, r)
				return
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(stripped)), int64(len(stripped))
			c := capture(next, r)
			if c.status < 300 {
				c.eachObject(func(o map[string]any) bool {
					o["secret"] = weak
					return true
				})
			}
			c.send(w)
		})
	}
}
