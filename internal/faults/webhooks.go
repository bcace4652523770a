package faults

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Hooks on outgoing webhook attempts: they change an attempt before the sandbox signs and sends it.

// signWithUnknownSecret signs with a fresh secret that nobody was given, so that no receiver can
// verify the delivery.
func signWithUnknownSecret(o *sandbox.Outgoing) {
	secret, err := webhook.NewSecret()
	if err != nil {
		panic("faults: no randomness for a webhook secret: " + err.Error())
	}
	o.Secrets = []webhook.Secret{secret}
}

// newIDPerRetry gives every retry a new webhook-id, in the header and in the body's id, so that a
// receiver cannot tell that it already has the event.
func newIDPerRetry(o *sandbox.Outgoing) {
	if o.Number == 1 {
		return
	}
	freshID(o)
}

// freshID replaces the attempt's webhook-id, in the header and in the body, with a new one.
func freshID(o *sandbox.Outgoing) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := "evt_" + hex.EncodeToString(b[:])
	o.Body = bytes.Replace(o.Body, []byte(`"id":"`+o.WebhookID+`"`), []byte(`"id":"`+id+`"`), 1)
	o.WebhookID = id
}

// newIDPerResend gives a resent event a new webhook-id, in the header and in the body's id.
func newIDPerResend(o *sandbox.Outgoing) {
	if o.Resend {
		freshID(o)
	}
}

// hourOldTimestamp dates the signature an hour back: valid, but outside every receiver's tolerance.
func hourOldTimestamp(o *sandbox.Outgoing) { o.Timestamp = o.Timestamp.Add(-time.Hour) }

// newestSecretOnly signs with the current secret only, even while a rotated-out one is in its grace.
func newestSecretOnly(o *sandbox.Outgoing) { o.Secrets = o.Secrets[:1] }

// dropPaymentProcessing never sends payment.processing.
func dropPaymentProcessing(o *sandbox.Outgoing) {
	if o.EventType == api.EventTypePaymentProcessing {
		o.Drop = true
	}
}

// wrongFailureReasonInWebhooks gives the object in an event another failure_reason than its own.
func wrongFailureReasonInWebhooks(o *sandbox.Outgoing) {
	var event map[string]any
	if json.Unmarshal(o.Body, &event) != nil {
		return
	}
	data, _ := event["data"].(map[string]any)
	object, _ := data["object"].(map[string]any)
	if !misstateFailureReason(object) {
		return
	}
	if body, err := json.Marshal(event); err == nil {
		o.Body = body
	}
}

// misstateFailureReason replaces an object's failure_reason, if it has one, by another valid reason.
func misstateFailureReason(object map[string]any) bool {
	reason, _ := object["failure_reason"].(string)
	if reason == "" {
		return false
	}
	wrong := api.FailureReasonTransactionFailed
	if api.FailureReason(reason) == wrong {
		wrong = api.FailureReasonDeclined
	}
	object["failure_reason"] = string(wrong)
	return true
}
