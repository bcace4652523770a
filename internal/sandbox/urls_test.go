package sandbox

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// TestWebhookURLsMustBeDeliverable: every place that takes a webhook URL refuses text no HTTP client
// can deliver to, naming the field, and accepts the URLs merchants really use.
func TestWebhookURLsMustBeDeliverable(t *testing.T) {
	e := newEnv(t)
	c := e.client
	places := []struct {
		name, method, path, field string
		body                      func(u string) map[string]any
	}{
		{"payment webhook_url", http.MethodPost, api.OpInitializePayment().URL(), "/webhook_url", func(u string) map[string]any { return paymentInit("", u) }},
		{"payment redirect_url", http.MethodPost, api.OpInitializePayment().URL(), "/redirect_url", func(u string) map[string]any {
			return with(paymentInit("", "https://merchant.example.org/h"), "redirect_url", u)
		}},
		{"payout webhook_url", http.MethodPost, api.OpProcessPayout().URL(), "/webhook_url", func(u string) map[string]any {
			return with(mobilePayout(""), "webhook_url", u)
		}},
		{"endpoint url", http.MethodPost, api.OpCreateWebhookEndpoint().URL(), "/url", func(u string) map[string]any {
			return map[string]any{"url": u, "events": []string{"payout.success"}}
		}},
	}
	bad := []string{
		"http://\u0000", "http://[ts^s[Ef", "https://\"vi-;[", "http://[x", "http://:80/hooks", "https://a.example.org/\u00e9",
		"https://a.example.org/\u00a0", "https://a.example.org/\u2000", "https://a.example.org/\u200a", "https://a.example.org/\u2028",
		"https://a.example.org/\u2029", "https://a.example.org/\u3000", "https://a.example.org/\ufeff", "https://a.example.org/\u000b",
		"https://a.example.org/\u0085", "https://a.example.org/ x", "ftp://a.example.org/", "https://", "https:///path",
		"http://a.example.org:99999/", "http://a.example.org:0/", "http://::1/",
	}
	good := []string{
		"https://merchant.example.org/hooks/malipo", "http://127.0.0.1:9000/hooks", "http://[::1]:8080/h?x=1&y=%20#frag",
		"https://user:pa%24s@xn--bcher-kva.example/caf%C3%A9", "http://localhost",
	}
	for _, p := range places {
		for _, u := range bad {
			res := c.do(p.method, p.path, p.body(u))
			if assert.Equal(t, http.StatusBadRequest, res.status, "%s %s: %s", p.name, strconv.QuoteToASCII(u), res.body) {
				assert.Contains(t, res.fields(t), p.field, "%s %s", p.name, strconv.QuoteToASCII(u))
			}
		}
		for _, u := range good {
			res := c.do(p.method, p.path, p.body(u))
			assert.Equal(t, http.StatusCreated, res.status, "%s %s: %s", p.name, u, res.body)
		}
	}
	ep := createEndpoint(t, c, map[string]any{"url": "https://merchant.example.org/h", "events": []string{"payout.success"}})
	res := c.do(http.MethodPatch, api.OpUpdateWebhookEndpoint().URL(ep["id"].(string)), map[string]any{"url": "http://:80/"})
	assert.Equal(t, http.StatusBadRequest, res.status, "PATCH url: %s", res.body)
}
