package sandbox

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

func createEndpoint(t *testing.T, c *client, body map[string]any) map[string]any {
	t.Helper()
	res := c.do(http.MethodPost, api.OpCreateWebhookEndpoint().URL(), body)
	require.Equal(t, http.StatusCreated, res.status, "%s", res.body)
	return res.data(t)
}

func TestWebhookEndpointsCRUD(t *testing.T) {
	e := newEnv(t)
	c := e.client
	first := createEndpoint(t, c, map[string]any{"url": "https://merchant.example.org/hooks/a", "events": []string{"payout.success", "payout.failed"}, "description": "Finance"})
	id := first["id"].(string)
	assert.Regexp(t, `^we_[0-9a-f]{16}$`, id)
	assert.Regexp(t, `^whsec_`, first["secret"])
	assert.Equal(t, true, first["enabled"], "enabled defaults to true")
	_, err := webhook.ParseSecret(first["secret"].(string))
	assert.NoError(t, err)
	second := createEndpoint(t, c, map[string]any{"url": "https://merchant.example.org/hooks/b", "events": []string{"payment.success"}, "enabled": false})
	assert.Equal(t, false, second["enabled"])

	t.Run("get has no secret", func(t *testing.T) {
		res := c.do(http.MethodGet, api.OpGetWebhookEndpoint().URL(id), nil)
		require.Equal(t, http.StatusOK, res.status)
		assert.NotContains(t, res.data(t), "secret")
		assert.Equal(t, "Finance", res.data(t)["description"])
	})
	t.Run("list oldest first without secrets", func(t *testing.T) {
		res := c.do(http.MethodGet, api.OpListWebhookEndpoints().URL(), nil)
		require.Equal(t, http.StatusOK, res.status)
		list := res.json(t)["data"].([]any)
		require.Len(t, list, 2)
		assert.Equal(t, id, list[0].(map[string]any)["id"])
		assert.Equal(t, second["id"], list[1].(map[string]any)["id"])
		for _, ep := range list {
			assert.NotContains(t, ep, "secret")
		}
		other := c.as(otherPublicKey, otherSecretKey).do(http.MethodGet, api.OpListWebhookEndpoints().URL(), nil)
		assert.Empty(t, other.json(t)["data"], "another merchant sees none of them")
	})
	t.Run("patch merges", func(t *testing.T) {
		res := c.do(http.MethodPatch, api.OpUpdateWebhookEndpoint().URL(id), map[string]any{"enabled": false})
		require.Equal(t, http.StatusOK, res.status)
		d := res.data(t)
		assert.Equal(t, false, d["enabled"])
		assert.Equal(t, "https://merchant.example.org/hooks/a", d["url"])
		assert.Equal(t, []any{"payout.success", "payout.failed"}, d["events"])
		res = c.do(http.MethodPatch, api.OpUpdateWebhookEndpoint().URL(id), map[string]any{"description": "", "events": []string{"payout.failed"}, "enabled": true})
		d = res.data(t)
		assert.NotContains(t, d, "description", "an empty string clears it")
		assert.Equal(t, []any{"payout.failed"}, d["events"])
		assert.Equal(t, true, d["enabled"])
	})
	t.Run("rotate", func(t *testing.T) {
		before := time.Now().UTC().Truncate(time.Second)
		res := c.do(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL(id), map[string]any{"grace_period_seconds": 3600})
		require.Equal(t, http.StatusOK, res.status)
		d := res.data(t)
		assert.NotEqual(t, first["secret"], d["secret"])
		exp, err := time.Parse(time.RFC3339, d["previous_secret_expires_at"].(string))
		require.NoError(t, err)
		assert.WithinDuration(t, exp, before.Add(time.Hour), 2*time.Second)
		res = c.do(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL(id), nil)
		exp, _ = time.Parse(time.RFC3339, res.data(t)["previous_secret_expires_at"].(string))
		assert.WithinDuration(t, exp, before.Add(DefaultGracePeriod), 2*time.Second, "default grace period")
	})
	t.Run("other merchant gets 404", func(t *testing.T) {
		other := c.as(otherPublicKey, otherSecretKey)
		for _, r := range []struct {
			method, path string
			body         any
		}{
			{http.MethodGet, api.OpGetWebhookEndpoint().URL(id), nil},
			{http.MethodPatch, api.OpUpdateWebhookEndpoint().URL(id), map[string]any{"enabled": false}},
			{http.MethodDelete, api.OpDeleteWebhookEndpoint().URL(id), nil},
			{http.MethodPost, api.OpRotateWebhookEndpointSecret().URL(id), nil},
		} {
			res := other.do(r.method, r.path, r.body)
			assert.Equal(t, http.StatusNotFound, res.status, "%s %s", r.method, r.path)
			assert.Equal(t, int(api.CodeNotFound), res.code(t))
		}
	})
	t.Run("delete", func(t *testing.T) {
		res := c.do(http.MethodDelete, api.OpDeleteWebhookEndpoint().URL(id), nil)
		assert.Equal(t, http.StatusNoContent, res.status)
		assert.Empty(t, res.body)
		_, ok := e.srv.WebhookEndpoint(DefaultPublicKey, id)
		assert.False(t, ok)
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			res = c.do(method, api.OpGetWebhookEndpoint().URL(id), nil)
			assert.Equal(t, http.StatusNotFound, res.status)
		}
		res = c.do(http.MethodGet, api.OpListWebhookEndpoints().URL(), nil)
		assert.Len(t, res.json(t)["data"], 1)
	})
}

func TestWebhookEndpointDeliveries(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t)
	c := e.client
	subscribed := createEndpoint(t, c, map[string]any{"url": rc.url("/subscribed"), "events": []string{"payout.failed"}})
	createEndpoint(t, c, map[string]any{"url": rc.url("/disabled"), "events": []string{"payout.failed"}, "enabled": false})
	deleted := createEndpoint(t, c, map[string]any{"url": rc.url("/deleted"), "events": []string{"payout.failed"}})
	createEndpoint(t, c, map[string]any{"url": rc.url("/other-type"), "events": []string{"payout.success"}})
	createEndpoint(t, c.as(otherPublicKey, otherSecretKey), map[string]any{"url": rc.url("/other-merchant"), "events": []string{"payout.failed"}})
	require.Equal(t, http.StatusNoContent, c.do(http.MethodDelete, api.OpDeleteWebhookEndpoint().URL(deleted["id"].(string)), nil).status)

	failing := accountTestValue(t, api.PayoutStatusFailed) // the first failing bank account the contract lists
	require.NotEmpty(t, failing.FailureReason)
	id := c.createPayout(with(bankPayout(failing.AccountNumber), "webhook_url", rc.url("/object")))
	rc.waitFor(2, forObject(id))
	e.idle() // anything wrongly sent has arrived by now
	got := rc.waitFor(0, forObject(id))
	paths := map[string]received{}
	for _, d := range got {
		paths[d.path] = d
	}
	assert.Len(t, got, 2, "the object's webhook_url and the one subscribed, enabled endpoint")
	require.Contains(t, paths, "/subscribed")
	require.Contains(t, paths, "/object")
	verify(t, paths["/subscribed"], subscribed["secret"].(string))
	verify(t, paths["/object"], DefaultSecretKey)
	assert.Equal(t, paths["/object"].body, paths["/subscribed"].body, "one event, the same body everywhere")
	assert.Equal(t, paths["/object"].header.Get("webhook-id"), paths["/subscribed"].header.Get("webhook-id"))
	assert.Equal(t, failing.FailureReason, paths["/object"].event.Data.Object["failure_reason"])
}

func TestRotationSignsWithBothSecrets(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t)
	ep := createEndpoint(t, e.client, map[string]any{"url": rc.url("/rotating"), "events": []string{"payout.success"}})
	oldSecret := ep["secret"].(string)
	id := ep["id"].(string)

	res := e.client.do(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL(id), map[string]any{"grace_period_seconds": 3600})
	newSecret := res.data(t)["secret"].(string)
	payout := e.client.createPayout(mobilePayout(""))
	d := rc.waitFor(1, forObject(payout))[0]
	assert.Len(t, webhook.Signatures(d.header.Get("webhook-signature")), 2)
	oldS, _ := webhook.ParseSecret(oldSecret)
	newS, _ := webhook.ParseSecret(newSecret)
	matched, err := webhook.Verifier{Secrets: []webhook.Secret{oldS, newS}}.MatchingSecrets(d.header, d.body)
	require.NoError(t, err)
	assert.Len(t, matched, 2, "signed with the old and the new secret during the grace period")

	res = e.client.do(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL(id), map[string]any{"grace_period_seconds": 0})
	newest := res.data(t)["secret"].(string)
	payout = e.client.createPayout(mobilePayout(""))
	d = rc.waitFor(1, forObject(payout))[0]
	sigs := webhook.Signatures(d.header.Get("webhook-signature"))
	assert.Len(t, sigs, 1, "after a rotation with grace 0 the newest secret is the only one that signs")
	verify(t, d, newest)
	for name, retired := range map[string]webhook.Secret{"the secret rotated out with grace 0": newS, "the first secret, retired by the earlier rotation": oldS} {
		err = webhook.Verifier{Secrets: []webhook.Secret{retired}}.Verify(d.header, d.body)
		assert.ErrorIs(t, err, webhook.ErrNoMatchingSignature, "%s signs nothing", name)
	}
}

// newEndpointSecret returns "whsec_" and the base64 of n random bytes: a secret a merchant makes.
func newEndpointSecret(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// A secret supplied on create, and another on rotate-secret, is used exactly as given: the response
// shows it and it signs the deliveries (next to the replaced one during the grace period). The
// shortest and the longest secret the contract allows are both taken.
func TestSuppliedSecretSignsDeliveries(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t)
	first, second := newEndpointSecret(t, webhook.MinSecretBytes), newEndpointSecret(t, webhook.MaxSecretBytes)
	ep := createEndpoint(t, e.client, map[string]any{"url": rc.url("/own"), "events": []string{"payout.success"}, "secret": first})
	assert.Equal(t, first, ep["secret"], "create shows the supplied secret")
	id := ep["id"].(string)

	payout := e.client.createPayout(mobilePayout(""))
	d := rc.waitFor(1, forObject(payout))[0]
	assert.Len(t, webhook.Signatures(d.header.Get(webhook.HeaderSignature)), 1)
	verify(t, d, first)

	res := e.client.do(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL(id), map[string]any{"secret": second, "grace_period_seconds": 3600})
	require.Equal(t, http.StatusOK, res.status, "%s", res.body)
	assert.Equal(t, second, res.data(t)["secret"], "rotate-secret shows the supplied secret")
	payout = e.client.createPayout(mobilePayout(""))
	d = rc.waitFor(1, forObject(payout))[0]
	parse := func(s string) webhook.Secret {
		p, err := webhook.ParseSecret(s)
		require.NoError(t, err)
		return p
	}
	matched, err := webhook.Verifier{Secrets: []webhook.Secret{parse(first), parse(second)}}.MatchingSecrets(d.header, d.body)
	require.NoError(t, err)
	assert.Len(t, matched, 2, "the supplied new secret and, in its grace period, the supplied first one both sign")

	res = e.client.do(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL(id), map[string]any{"grace_period_seconds": 0})
	require.Equal(t, http.StatusOK, res.status, "%s", res.body)
	generated := res.data(t)["secret"].(string)
	assert.NotContains(t, []string{first, second}, generated, "without a secret, rotate-secret generates one as before")
	_, err = webhook.ParseEndpointSecret(generated)
	assert.NoError(t, err, "a generated secret is a valid endpoint secret too")
}

// A supplied secret that is too short, too long or not whsec_ and base64 is refused with 400 naming
// /secret, on create and on rotate-secret, with or without request validation (the handlers check it
// too); the answer never repeats it, nothing is created, and the endpoint's secrets stay as they were.
func TestWeakOrMalformedSecretIsRefused(t *testing.T) {
	valid := newEndpointSecret(t, 32)
	bad := map[string]struct {
		value  any
		reason string // in the sandbox's reason, besides the form every reason states
	}{
		"one byte short":      {newEndpointSecret(t, webhook.MinSecretBytes-1), "decodes to 23 bytes"},
		"one byte long":       {newEndpointSecret(t, webhook.MaxSecretBytes+1), "decodes to 65 bytes"},
		"16 bytes":            {newEndpointSecret(t, 16), "decodes to 16 bytes"},
		"no whsec_ prefix":    {strings.TrimPrefix(valid, "whsec_"), "does not start with whsec_"},
		"the merchant key":    {DefaultSecretKey, "does not start with whsec_"},
		"unpadded":            {strings.TrimRight(newEndpointSecret(t, 31), "="), "not valid base64"},
		"not base64":          {"whsec_" + strings.Repeat("!", 44), "not valid base64"},
		"URL-safe base64":     {"whsec_" + strings.Repeat("-_", 22), "not valid base64"},
		"with a line break":   {valid + "\n", ""},
		"a number, no string": {12345, ""},
	}
	for _, validation := range []bool{true, false} {
		t.Run(fmt.Sprintf("validation %t", validation), func(t *testing.T) {
			e := newEnv(t, WithValidation(validation))
			rc := newReceiver(t)
			ep := createEndpoint(t, e.client, map[string]any{"url": rc.url("/kept"), "events": []string{"payout.success"}})
			id := ep["id"].(string)
			for name, tt := range bad {
				for _, op := range []api.Operation{api.OpCreateWebhookEndpoint(), api.OpRotateWebhookEndpointSecret()} {
					body := map[string]any{"secret": tt.value}
					path := ""
					if op.ID == api.OpCreateWebhookEndpoint().ID {
						body["url"], body["events"] = rc.url("/refused"), []string{"payout.success"}
						path = op.URL()
					} else {
						path = op.URL(id)
					}
					res := e.client.do(op.Method, path, body)
					require.Equal(t, http.StatusBadRequest, res.status, "%s %s: %s", op.ID, name, res.body)
					assert.Equal(t, int(api.CodeValidationFailed), res.code(t))
					assert.Equal(t, []string{"/secret"}, res.fields(t), "%s %s", op.ID, name)
					if s, ok := tt.value.(string); ok && len(s) > 12 {
						assert.NotContains(t, string(res.body), strings.TrimSpace(s)[6:18], "%s %s: the answer repeats the secret", op.ID, name)
					}
					if tt.reason != "" {
						assert.Contains(t, string(res.body), tt.reason, "%s %s", op.ID, name)
						assert.Contains(t, string(res.body), "24 to 64 random bytes", "%s %s: the reason says what a good secret is", op.ID, name)
					}
				}
			}
			list := e.client.do(http.MethodGet, api.OpListWebhookEndpoints().URL(), nil)
			assert.Len(t, list.json(t)["data"], 1, "no refused create made an endpoint")
			payout := e.client.createPayout(mobilePayout(""))
			d := rc.waitFor(1, forObject(payout))[0]
			assert.Len(t, webhook.Signatures(d.header.Get(webhook.HeaderSignature)), 1, "no refused rotation rotated")
			verify(t, d, ep["secret"].(string))
		})
	}
}
