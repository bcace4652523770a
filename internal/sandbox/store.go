package sandbox

import (
	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Payment is a stored payment: the document's Payment (package api, which the responses, events and
// in-process inspection all encode) and what the sandbox keeps beside it (package store).
type Payment = store.Payment

// Payout is a stored payout: the document's Payout and what the sandbox keeps beside it.
type Payout = store.Payout

// WebhookEndpoint is a webhook endpoint as GET returns it: without its secret (the document's
// WebhookEndpoint).
type WebhookEndpoint = api.WebhookEndpoint

// nonEmpty is s as an optional field: nil (absent) when empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is an optional field's value, "" when absent.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
