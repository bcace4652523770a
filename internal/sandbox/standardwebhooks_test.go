package sandbox

import (
	"net/http"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// TestOfficialGoLibraryVerifiesDeliveries checks the sandbox's deliveries with the official Standard
// Webhooks Go library rather than our own verifier, so the two cannot share a blind spot: an object's
// webhook_url verifies with the documented merchant signing secret ("whsec_" + base64(secret key)), an
// endpoint's with its whsec_ secret, before and after rotations, and retired secrets no longer verify.
func TestOfficialGoLibraryVerifiesDeliveries(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t)
	c := e.client
	ep := createEndpoint(t, c, map[string]any{"url": rc.url("/endpoint"), "events": []string{"payout.success"}})
	id := ep["id"].(string)

	library := func(secret string) *standardwebhooks.Webhook {
		t.Helper()
		wh, err := standardwebhooks.NewWebhook(secret)
		require.NoError(t, err, "the official library must accept the secret as documented")
		return wh
	}
	merchant := library(webhook.MerchantSigningSecret(DefaultSecretKey))
	payout := func() (object, endpoint received) {
		t.Helper()
		ref := c.createPayout(with(mobilePayout(""), "webhook_url", rc.url("/object")))
		for _, d := range rc.waitFor(2, forObject(ref)) {
			if d.path == "/object" {
				object = d
			} else {
				endpoint = d
			}
		}
		require.Equal(t, "/object", object.path)
		require.Equal(t, "/endpoint", endpoint.path)
		assert.NoError(t, merchant.Verify(object.body, object.header), "webhook_url delivery with the merchant signing secret")
		return object, endpoint
	}

	first := ep["secret"].(string)
	_, d := payout()
	assert.NoError(t, library(first).Verify(d.body, d.header))

	rotate := func(grace int) string {
		t.Helper()
		res := c.do(http.MethodPost, api.OpRotateWebhookEndpointSecret().URL(id), map[string]any{"grace_period_seconds": grace})
		require.Equal(t, http.StatusOK, res.status, "%s", res.body)
		return res.data(t)["secret"].(string)
	}
	second := rotate(3600)
	_, d = payout()
	assert.NoError(t, library(first).Verify(d.body, d.header), "the replaced secret signs during its grace")
	assert.NoError(t, library(second).Verify(d.body, d.header))

	third := rotate(0)
	_, d = payout()
	assert.NoError(t, library(third).Verify(d.body, d.header))
	assert.Error(t, library(second).Verify(d.body, d.header), "rotated out with grace 0")
	assert.Error(t, library(first).Verify(d.body, d.header), "retired by the earlier rotation")

	assert.Error(t, library(webhook.MerchantSigningSecret(otherSecretKey)).Verify(d.body, d.header))
}
