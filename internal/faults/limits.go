package faults

import (
	"net/http"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// limitAsValidationError answers a webhook-endpoint create refused for the merchant's cap (409,
// limit_reached) as a 400 validation_failed naming /url, as an implementation that treats the cap as
// a bad request would: the refusal stays, its documented status and code do not.
func limitAsValidationError() middlewareFunc {
	return onResponse(func(r *http.Request, c *captured) {
		env := c.json()
		if !is(r, api.OpCreateWebhookEndpoint()) || c.status != http.StatusConflict || env == nil || env["code"] != float64(api.CodeLimitReached) {
			return
		}
		c.status = http.StatusBadRequest
		env["code"] = float64(api.CodeValidationFailed)
		env["errors"] = []any{map[string]any{"field": "/url", "reason": "too many webhook endpoints"}}
		c.setJSON(env)
	})
}
