package checks

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// The webhook-endpoint extension: create, read, update and delete, delivery to subscribed endpoints,
// secret rotation with and without grace, and secrets the caller supplies (and those it must not).

// extensionChecks are the checks of the webhook-endpoint extension; a target without it skips them.
func extensionChecks() []*harness.Check {
	return []*harness.Check{endpointCRUDCheck(), endpointDeliveryCheck(), rotateSecretCheck(), rotateWithoutGraceCheck(), rotateTwiceCheck(),
		suppliedSecretCheck(), rotateSuppliedSecretCheck(), weakSecretCheck(), endpointNotFoundCheck(), endpointsOldestFirstCheck()}
}

// endpointCRUDCheck is extensions.webhook-endpoints.crud.
func endpointCRUDCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.crud", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opCreateEndpoint + "/description", Quote: "The response is the only one that carries the endpoint's signing `secret` (besides rotate-secret)"},
		Covers: []string{"createWebhookEndpoint", "getWebhookEndpoint", "listWebhookEndpoints", "updateWebhookEndpoint", "deleteWebhookEndpoint"},
		Doc:    "create returns a whsec_ secret once; get and list hide it; update changes only what is sent; delete makes it 404",
		Run: func(t *harness.T) {
			_, hook := t.Hook()
			created := t.Do(api.OpCreateWebhookEndpoint().Method, api.OpCreateWebhookEndpoint().URL(), t.EndpointBody(hook, api.EventTypePayoutSuccess))
			t.RequireStatus(created, http.StatusCreated)
			id := created.Str("/data/id")
			if !strings.HasPrefix(created.Str("/data/secret"), "whsec_") {
				t.Errorf("create must return a whsec_ secret")
			}
			if created.Get("/data/enabled") != true {
				t.Errorf("enabled must default to true")
			}
			p := api.OpGetWebhookEndpoint().URL(id)
			got := t.Do(api.OpGetWebhookEndpoint().Method, p, nil)
			t.ExpectStatus(got, http.StatusOK)
			if got.Get("/data/secret") != nil {
				t.Errorf("get must not return the secret")
			}
			list := t.Do(api.OpListWebhookEndpoints().Method, api.OpListWebhookEndpoints().URL(), nil)
			found := false
			items, _ := list.Get("/data").([]any)
			for _, it := range items {
				m, _ := it.(map[string]any)
				if m["id"] == id {
					found = true
					if m["secret"] != nil {
						t.Errorf("list must not return secrets")
					}
				}
			}
			if !found {
				t.Errorf("list does not include the new endpoint %s", id)
			}
			upd := t.Do(http.MethodPatch, p, map[string]any{"description": "changed"})
			t.ExpectStatus(upd, http.StatusOK)
			if upd.Str("/data/description") != "changed" || upd.Str("/data/url") != hook {
				t.Errorf("update must change description and keep url: %s", harness.Snippet(upd.Body))
			}
			t.ExpectStatus(t.Do(http.MethodDelete, p, nil), http.StatusNoContent)
			t.ExpectError(t.Do(http.MethodGet, p, nil), api.CodeNotFound)
		}}
}

// endpointDeliveryCheck is extensions.webhook-endpoints.delivery.
func endpointDeliveryCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.delivery", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: "#/tags/" + harness.EndpointsTagIndex + "/description", Quote: "URLs that receive every event of the types they subscribe to, signed with their own `whsec_` secret."},
		Covers: []string{"createWebhookEndpoint", "payout.success"},
		Doc:    "a subscribed, enabled endpoint gets the event signed with its own secret; unsubscribed and disabled ones get none",
		Run: func(t *harness.T) {
			subPath, subHook := t.Hook()
			otherPath, otherHook := t.Hook()
			offPath, offHook := t.Hook()
			sub := t.CreateEndpoint(t.EndpointBody(subHook, api.EventTypePayoutSuccess))
			t.CreateEndpoint(t.EndpointBody(otherHook, api.EventTypePaymentFailed))
			off := t.EndpointBody(offHook, api.EventTypePayoutSuccess)
			off["enabled"] = false
			t.CreateEndpoint(off)
			secret, err := webhook.ParseSecret(sub.Str("/data/secret"))
			if err != nil {
				t.Fatalf("the endpoint secret is not a whsec_ secret: %v", err)
			}
			id := t.CreatePayout(t.MobilePayout(t.Inputs().CreditedWallet(), "")).Str("/data/payout_id")
			mine := func(ds []*webhooksink.Delivery) []*webhooksink.Delivery { return harness.ForObject(ds, id) }
			ds := t.WaitDeliveries(subPath, "payout.success at the subscribed endpoint", func(ds []*webhooksink.Delivery) bool {
				return len(harness.Acknowledged(mine(ds))) >= 1
			})
			for _, d := range mine(ds) {
				t.VerifyDelivery(d, secret)
			}
			t.Settle()
			if n := len(mine(t.Deliveries(otherPath))); n > 0 {
				t.Errorf("an endpoint not subscribed to payout.success got %d deliveries", n)
			}
			if n := len(mine(t.Deliveries(offPath))); n > 0 {
				t.Errorf("a disabled endpoint got %d deliveries", n)
			}
		}}
}

// rotateSecretCheck is extensions.webhook-endpoints.rotate-secret.
func rotateSecretCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.rotate-secret", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opRotateEndpoint + "/description", Quote: "until then every delivery carries one signature per valid secret in `webhook-signature`"},
		Covers: []string{"rotateWebhookEndpointSecret", "payout.success"},
		Doc:    "after rotate-secret, deliveries carry two signatures: one verifies with the old secret, one with the new",
		Run: func(t *harness.T) {
			path, hook := t.Hook()
			created := t.CreateEndpoint(t.EndpointBody(hook, api.EventTypePayoutSuccess))
			oldSecret, err := webhook.ParseSecret(created.Str("/data/secret"))
			if err != nil {
				t.Fatalf("the endpoint secret is not a whsec_ secret: %v", err)
			}
			rot := t.RotateSecret(created.Str("/data/id"), map[string]any{"grace_period_seconds": 3600})
			t.RequireStatus(rot, http.StatusOK)
			newSecret, err := webhook.ParseSecret(rot.Str("/data/secret"))
			if err != nil || newSecret.Reveal() == oldSecret.Reveal() {
				t.Fatalf("rotate-secret must return a new whsec_ secret")
			}
			if rot.Str("/data/previous_secret_expires_at") == "" {
				t.Errorf("rotate-secret must say when the previous secret expires")
			}
			id := t.CreatePayout(t.MobilePayout(t.Inputs().CreditedWallet(), "")).Str("/data/payout_id")
			ds := t.WaitDeliveries(path, "a delivery after rotation", func(ds []*webhooksink.Delivery) bool { return len(harness.ForObject(ds, id)) >= 1 })
			d := harness.ForObject(ds, id)[0]
			if n := len(webhook.Signatures(d.Header.Get(api.HeaderWebhookSignature))); n != 2 {
				t.Errorf("during the grace period a delivery must carry 2 signatures, got %d", n)
			}
			v := webhook.Verifier{Secrets: []webhook.Secret{oldSecret, newSecret}, Now: func() time.Time { return d.Received }}
			matched, err := v.MatchingSecrets(d.Header, d.Body)
			if err != nil || len(matched) != 2 {
				t.Errorf("both the old and the new secret must verify the delivery; %d did (%v)", len(matched), err)
			}
		}}
}

// rotateWithoutGraceCheck is extensions.webhook-endpoints.rotate-without-grace.
func rotateWithoutGraceCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.rotate-without-grace", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opRotateEndpoint + "/description", Quote: "A grace period of 0 ends the old secret at once."},
		Covers: []string{"rotateWebhookEndpointSecret"},
		Doc:    "rotate-secret with grace_period_seconds 0 retires the old secret at once",
		Run: func(t *harness.T) {
			path, hook := t.Hook()
			created := t.CreateEndpoint(t.EndpointBody(hook, api.EventTypePayoutFailed))
			oldSecret, _ := webhook.ParseSecret(created.Str("/data/secret"))
			rot := t.RotateSecret(created.Str("/data/id"), map[string]any{"grace_period_seconds": 0})
			t.RequireStatus(rot, http.StatusOK)
			newSecret, _ := webhook.ParseSecret(rot.Str("/data/secret"))
			id := t.CreatePayout(t.MobilePayout(t.Inputs().FailingWallet(), "")).Str("/data/payout_id")
			ds := t.WaitDeliveries(path, "a payout.failed delivery", func(ds []*webhooksink.Delivery) bool { return len(harness.ForObject(ds, id)) >= 1 })
			d := harness.ForObject(ds, id)[0]
			t.VerifyDelivery(d, newSecret)
			if err := (webhook.Verifier{Secrets: []webhook.Secret{oldSecret}, Now: func() time.Time { return d.Received }}).Verify(d.Header, d.Body); err == nil {
				t.Errorf("the old secret still verifies deliveries after a rotation without grace")
			}
		}}
}

// rotateTwiceCheck is extensions.webhook-endpoints.rotate-twice.
func rotateTwiceCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.rotate-twice", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opRotateEndpoint + "/description", Quote: "Secrets retired by earlier rotations stop signing at once, even if their own grace period had not ended"},
		Covers: []string{"rotateWebhookEndpointSecret", "payout.success"},
		Doc: "a rotation's response is the whole truth about which secrets sign: after rotating with grace 3600 and " +
			"then with grace 0, only the newest secret signs; the first, still inside its own grace, is retired too",
		Run: func(t *harness.T) {
			path, hook := t.Hook()
			created := t.CreateEndpoint(t.EndpointBody(hook, api.EventTypePayoutSuccess))
			id := created.Str("/data/id")
			retired := []string{created.Str("/data/secret")}
			first := t.RotateSecret(id, map[string]any{"grace_period_seconds": 3600})
			t.RequireStatus(first, http.StatusOK)
			retired = append(retired, first.Str("/data/secret"))
			rot := t.RotateSecret(id, map[string]any{"grace_period_seconds": 0})
			t.RequireStatus(rot, http.StatusOK)
			newest, err := webhook.ParseSecret(rot.Str("/data/secret"))
			if err != nil {
				t.Fatalf("rotate-secret must return a whsec_ secret: %v", err)
			}
			payout := t.CreatePayout(t.MobilePayout(t.Inputs().CreditedWallet(), "")).Str("/data/payout_id")
			ds := t.WaitDeliveries(path, "a delivery after two rotations", func(ds []*webhooksink.Delivery) bool { return len(harness.ForObject(ds, payout)) >= 1 })
			d := harness.ForObject(ds, payout)[0]
			if n := len(webhook.Signatures(d.Header.Get(api.HeaderWebhookSignature))); n != 1 {
				t.Errorf("after a rotation with grace 0 exactly one secret signs, but the delivery carries %d signatures", n)
			}
			t.VerifyDelivery(d, newest)
			for i, s := range retired {
				old, _ := webhook.ParseSecret(s)
				if (webhook.Verifier{Secrets: []webhook.Secret{old}, Now: func() time.Time { return d.Received }}).Verify(d.Header, d.Body) == nil {
					t.Errorf("secret #%d, retired by a later rotation, still verifies deliveries", i+1)
				}
			}
		}}
}

// newEndpointSecret returns a secret a merchant would supply: "whsec_" and the base64 of n random bytes.
func newEndpointSecret(t *harness.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("no randomness for a webhook secret: %v", err)
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// parseSupplied parses a secret the check made; it cannot fail.
func parseSupplied(t *harness.T, s string) webhook.Secret {
	secret, err := webhook.ParseEndpointSecret(s)
	if err != nil {
		t.Fatalf("check bug: %v", err)
	}
	return secret
}

// suppliedSecretCheck is extensions.webhook-endpoints.supplied-secret.
func suppliedSecretCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.supplied-secret", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opCreateEndpoint + "/description", Quote: "a supplied secret is used exactly as given, and the response shows it like a generated one"},
		Covers: []string{"createWebhookEndpoint", "payout.success"},
		Doc: "create with a secret of the caller's (the shortest the contract allows, 24 bytes) shows that secret " +
			"and signs every delivery with it, and with no other",
		Run: func(t *harness.T) {
			path, hook := t.Hook()
			supplied := newEndpointSecret(t, webhook.MinSecretBytes)
			body := t.EndpointBody(hook, api.EventTypePayoutSuccess)
			body["secret"] = supplied
			created := t.CreateEndpoint(body)
			if created.Str("/data/secret") != supplied {
				t.Errorf("create must show the secret the request supplied as data.secret; it shows another")
			}
			id := t.CreatePayout(t.MobilePayout(t.Inputs().CreditedWallet(), "")).Str("/data/payout_id")
			ds := t.WaitDeliveries(path, "a delivery to the endpoint with a supplied secret", func(ds []*webhooksink.Delivery) bool { return len(harness.ForObject(ds, id)) >= 1 })
			for _, d := range harness.ForObject(ds, id) {
				t.VerifyDelivery(d, parseSupplied(t, supplied))
				if n := len(webhook.Signatures(d.Header.Get(api.HeaderWebhookSignature))); n != 1 {
					t.Errorf("an endpoint that never rotated has one secret, but the delivery carries %d signatures", n)
				}
			}
		}}
}

// rotateSuppliedSecretCheck is extensions.webhook-endpoints.rotate-supplied-secret.
func rotateSuppliedSecretCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.rotate-supplied-secret", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opRotateEndpoint + "/description", Quote: "Issues a new `whsec_` secret and returns it: the one the body supplies in `secret`"},
		Covers: []string{"rotateWebhookEndpointSecret", "payout.success"},
		Doc: "rotate-secret with a secret of the caller's (the longest the contract allows, 64 bytes) shows that " +
			"secret, and deliveries verify with it and, during the grace period, with the secret it replaced",
		Run: func(t *harness.T) {
			path, hook := t.Hook()
			created := t.CreateEndpoint(t.EndpointBody(hook, api.EventTypePayoutSuccess))
			oldSecret, err := webhook.ParseSecret(created.Str("/data/secret"))
			if err != nil {
				t.Fatalf("the endpoint secret is not a whsec_ secret: %v", err)
			}
			supplied := newEndpointSecret(t, webhook.MaxSecretBytes)
			rot := t.RotateSecret(created.Str("/data/id"), map[string]any{"grace_period_seconds": 3600, "secret": supplied})
			t.RequireStatus(rot, http.StatusOK)
			if rot.Str("/data/secret") != supplied {
				t.Errorf("rotate-secret must show the secret the request supplied as data.secret; it shows another")
			}
			id := t.CreatePayout(t.MobilePayout(t.Inputs().CreditedWallet(), "")).Str("/data/payout_id")
			ds := t.WaitDeliveries(path, "a delivery after rotating to a supplied secret", func(ds []*webhooksink.Delivery) bool { return len(harness.ForObject(ds, id)) >= 1 })
			d := harness.ForObject(ds, id)[0]
			t.VerifyDelivery(d, parseSupplied(t, supplied))
			v := webhook.Verifier{Secrets: []webhook.Secret{oldSecret}, Now: func() time.Time { return d.Received }}
			if err := v.Verify(d.Header, d.Body); err != nil {
				t.Errorf("during the grace period the replaced secret must still verify deliveries: %v", err)
			}
		}}
}

// weakSecretCheck is extensions.webhook-endpoints.weak-secret.
func weakSecretCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.weak-secret", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opCreateEndpoint + "/description", Quote: "A secret that is too short, too long or not `whsec_` and base64 is refused with `400` naming `/secret`, and nothing is created."},
		Covers: []string{"createWebhookEndpoint", "rotateWebhookEndpointSecret"},
		Doc: errorDoc("a supplied secret one byte too short or too long (23 or 65 bytes), without whsec_, or not padded "+
			"base64, on create and on rotate-secret,", api.CodeValidationFailed) + `, naming "/secret" and without repeating it`,
		Run: func(t *harness.T) {
			weak := map[string]string{
				"23 bytes":         newEndpointSecret(t, webhook.MinSecretBytes-1),
				"65 bytes":         newEndpointSecret(t, webhook.MaxSecretBytes+1),
				"no whsec_ prefix": strings.TrimPrefix(newEndpointSecret(t, 32), "whsec_"),
				"unpadded base64":  strings.TrimRight(newEndpointSecret(t, 31), "="),
				"URL-safe base64":  strings.NewReplacer("+", "-", "/", "_").Replace("whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xff}, 16))),
			}
			endpoint := t.IdleEndpoint()
			for _, name := range slices.Sorted(maps.Keys(weak)) {
				secret := weak[name]
				_, hook := t.Hook()
				body := t.EndpointBody(hook, api.EventTypePayoutSuccess)
				body["secret"] = secret
				ex := t.Do(api.OpCreateWebhookEndpoint().Method, api.OpCreateWebhookEndpoint().URL(), body)
				if ex.Status/100 == 2 {
					t.Do(api.OpDeleteWebhookEndpoint().Method, api.OpDeleteWebhookEndpoint().URL(ex.Str("/data/id")), nil)
				}
				expectSecretRefused(t, ex, name, secret)
				ex = t.RotateSecret(endpoint, map[string]any{"secret": secret})
				expectSecretRefused(t, ex, name, secret)
			}
		}}
}

// expectSecretRefused checks that a secret was refused with 400 naming /secret, and that the answer
// does not repeat it.
func expectSecretRefused(t *harness.T, ex *harness.Exchange, what, secret string) {
	if !t.ExpectError(ex, api.CodeValidationFailed, "/secret") {
		t.Errorf("a supplied secret (%s) must be refused", what)
	}
	if key := strings.TrimPrefix(secret, "whsec_"); strings.Contains(string(ex.Body), key[:16]) {
		t.Errorf("the answer to a refused secret (%s) repeats it: a secret sent by mistake must not travel on in error bodies and logs", what)
	}
}

// endpointNotFoundCheck is extensions.webhook-endpoints.not-found.
func endpointNotFoundCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.not-found", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: errorTable, Quote: notFoundQuote},
		Covers: []string{"getWebhookEndpoint"},
		Doc:    errorDoc("an endpoint id that does not exist", api.CodeNotFound),
		Run: func(t *harness.T) {
			t.ExpectError(t.Do(api.OpGetWebhookEndpoint().Method, api.OpGetWebhookEndpoint().URL(harness.UnknownID), nil), api.CodeNotFound)
		}}
}
