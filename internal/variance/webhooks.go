package variance

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// outgoing writes a webhook attempt as the variant does, before the sandbox signs it: the body in the
// variant's ids, times and JSON style (the event log shows the same body, rewritten by the middleware
// the same way), the webhook-id as the variant names the event, the endpoint secrets the variant
// generated, its headers; and it holds back or repeats the attempts the variant's delivery order and
// lost acknowledgements call for.
func (st *state) outgoing(o *sandbox.Outgoing) {
	event := o.WebhookID // the sandbox's id, before any rewriting
	o.Body = st.rewriteBody(o.Body, false)
	o.WebhookID = st.ids.out(o.WebhookID)
	if st.v.SecretBytes > 0 {
		secrets := make([]webhook.Secret, len(o.Secrets))
		for i, s := range o.Secrets {
			secrets[i] = s
			if v := st.secret(s.Reveal()); v != s.Reveal() {
				if parsed, err := webhook.ParseSecret(v); err == nil {
					secrets[i] = parsed
				}
			}
		}
		o.Secrets = secrets
	}
	if o.Header == nil {
		o.Header = http.Header{}
	}
	st.webhookHeaders(o.Header, o.Number)
	first := o.Number == 1 && !o.Resend
	if st.v.FinalEventFirst && first && o.EventType == api.EventTypePaymentProcessing {
		o.Delay = st.v.Timings.PromptDelay + st.v.HoldPastPrompt
	}
	if st.v.LostAcks && first && st.losesAck(event) {
		o.AckLost = true
	}
}

// webhookHeaders sets the headers the variant adds to attempt number n of a delivery.
func (st *state) webhookHeaders(h http.Header, n int) {
	if st.v.Webhook.Extra {
		h.Set("X-Request-Id", requestID())
		h.Set("X-Malipo-Attempt", strconv.Itoa(n))
		h.Set("User-Agent", fmt.Sprintf("Malipo-Webhooks/1.0 (variant seed %d)", st.v.Seed))
	}
	if st.v.Webhook.Charset {
		h.Set("Content-Type", "application/json; charset=utf-8")
	}
}

// sendNewEvent delivers, once, an event of a type the document does not declare about an object the
// sandbox just created (its response's data), to the object's webhook_url, signed with the merchant's
// secret key like the object's other events. The receiver is to acknowledge it; a failed attempt is
// not retried, which the document allows of a type it does not declare.
func (st *state) sendNewEvent(r *http.Request, typ string, sandboxBody []byte) {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	var object struct {
		WebhookURL string `json:"webhook_url"`
	}
	if json.Unmarshal(sandboxBody, &env) != nil || json.Unmarshal(env.Data, &object) != nil || object.WebhookURL == "" {
		return
	}
	var secretKey string
	for _, pair := range st.server.KeyPairs() {
		if pair.Public == strings.TrimSpace(r.Header.Get(api.HeaderPublicKey)) {
			secretKey = pair.Secret
		}
	}
	secret, err := webhook.ParseSecret(secretKey)
	if err != nil {
		return
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	event := struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		CreatedAt string `json:"created_at"`
		Data      struct {
			Object json.RawMessage `json:"object"`
		} `json:"data"`
	}{ID: "evt_" + hex.EncodeToString(id[:]), Type: typ, CreatedAt: time.Now().UTC().Format(time.RFC3339)}
	event.Data.Object = env.Data
	raw, err := json.Marshal(event)
	if err != nil {
		return
	}
	body := st.rewriteBody(raw, false)
	go func() { // bounded by the client's time-out, the document's delivery time-out
		req, err := http.NewRequest(http.MethodPost, object.WebhookURL, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		st.webhookHeaders(req.Header, 1)
		webhook.SetHeaders(req.Header, st.ids.out(event.ID), time.Now(), body, secret)
		if resp, err := st.client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			_ = resp.Body.Close()
		}
	}()
}
