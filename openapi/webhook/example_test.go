package webhook_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// A receiver verifies each delivery with the endpoint's secret (the whsec_ value that creating the
// endpoint or rotating its secret returned) before it trusts the body.
func ExampleVerifier() {
	secret, _ := webhook.ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	// What a sender does; here it stands in for the request a receiver gets.
	body := []byte(`{"id":"evt_1","type":"payout.success"}`)
	sent := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("webhook-id", "evt_1")
	h.Set("webhook-timestamp", fmt.Sprint(sent.Unix()))
	h.Set("webhook-signature", webhook.Sign("evt_1", sent, body, secret))

	v := webhook.Verifier{Secrets: []webhook.Secret{secret}, Now: func() time.Time { return sent.Add(time.Minute) }}
	fmt.Println("authentic:", v.Verify(h, body) == nil)
	fmt.Println("tampered: ", v.Verify(h, []byte(`{"id":"evt_1","type":"payout.failed"}`)) == nil)
	// Output:
	// authentic: true
	// tampered:  false
}

// Deliveries to a payment's or payout's own webhook_url are signed with the merchant's secret key;
// Standard Webhooks libraries take it in this form.
func ExampleMerchantSigningSecret() {
	fmt.Println(webhook.MerchantSigningSecret("sk_test_malipo_sandbox"))
	// Output: whsec_c2tfdGVzdF9tYWxpcG9fc2FuZGJveA==
}

// A merchant's receiver: NewReceiver verifies each delivery (signature, tolerance), answers a
// redelivery of a handled webhook-id without calling the handler again, and hands the handler the body
// as it came. examples/webhook-receiver is the same as a program, and `malipo webhooks test` grades it.
func ExampleReceiver() {
	secret, _ := webhook.ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	handled := 0
	rc := webhook.NewReceiver(webhook.Verifier{Secrets: []webhook.Secret{secret}},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			handled++ // decode the event and act on it; ignore fields and types you do not know
			w.WriteHeader(http.StatusNoContent)
		}))

	deliver := func(secret webhook.Secret) int {
		body := []byte(`{"id":"evt_1","type":"payout.success"}`)
		req := httptest.NewRequest(http.MethodPost, "/hooks/malipo", bytes.NewReader(body))
		webhook.SetHeaders(req.Header, "evt_1", time.Now(), body, secret)
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, req)
		return w.Code
	}
	forger, _ := webhook.NewSecret()
	fmt.Println("first delivery:", deliver(secret))
	fmt.Println("redelivery:    ", deliver(secret))
	fmt.Println("forged:        ", deliver(forger))
	fmt.Println("handled:       ", handled)
	// Output:
	// first delivery: 204
	// redelivery:     200
	// forged:         401
	// handled:        1
}
