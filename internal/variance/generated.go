package variance

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// What the service generates, when the variant generates it otherwise: a merchant reference for a
// payment initialized without one, a webhook endpoint's signing secret, events of types the document
// does not declare.

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
