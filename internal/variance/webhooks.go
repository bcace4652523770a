package variance

import (
	"fmt"
	"net/http"
	"strconv"

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
	if st.v.Webhook.Extra || st.v.Webhook.Charset {
		if o.Header == nil {
			o.Header = http.Header{}
		}
		if st.v.Webhook.Extra {
			o.Header.Set("X-Request-Id", requestID())
			o.Header.Set("X-Malipo-Attempt", strconv.Itoa(o.Number))
			o.Header.Set("User-Agent", fmt.Sprintf("Malipo-Webhooks/1.0 (variant seed %d)", st.v.Seed))
		}
		if st.v.Webhook.Charset {
			o.Header.Set("Content-Type", "application/json; charset=utf-8")
		}
	}
	first := o.Number == 1 && !o.Resend
	if st.v.FinalEventFirst && first && o.EventType == api.EventTypePaymentProcessing {
		o.Delay = st.v.Timings.PromptDelay + st.v.HoldPastPrompt
	}
	if st.v.LostAcks && first && st.losesAck(event) {
		o.AckLost = true
	}
}
