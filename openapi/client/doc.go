// Package client is the Go client of the Malipo v1 Collections & Payouts API (openapi/malipo.yaml),
// used by the Terraform provider and by the CLI's `malipo events`, `malipo listen` and `malipo
// trigger`. (The contract suite does not use it: it sends its own requests, including ones this client
// would refuse to send.)
//
// # Usage
//
//	c, err := client.New("http://127.0.0.1:8080", publicKey, secretKey,
//		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 4, MinBackoff: 250 * time.Millisecond, MaxBackoff: 8 * time.Second}),
//		client.WithRequestTimeout(30*time.Second))
//	if err != nil { ... }
//	payout, err := c.ProcessPayout(ctx, client.BankPayout{Amount: 2500, CountryID: "ctry_zm",
//		BankID: "bank_zm_zanaco", AccountNumber: "0000000001"})
//	switch {
//	case client.IsConflict(err): // a used reference (see (*APIError).ExistingID) or Idempotency-Key
//	case err != nil: ...
//	}
//
// Every operation of the document is one method named after its operationId (InitializePayment,
// ProcessPayout, ListBanks, …); every method takes a context and optional CallOptions. That includes
// the extensions, webhook endpoints and the event log (ListEvents, ResendEvent, …), and the sandbox's
// controls (SettleSandboxPayout, …): a service without them answers 404, which IsNotFound reports.
//
// # Models are generated
//
// The request and response types are package api's wire types, generated from the document by
// `go generate ./openapi/api` (openapi/api/api.gen.go); this package refers to them by aliases
// (client.Payout is api.Payout), so no field is written down twice. The generator gives callers what
// they would otherwise write by hand: payout kinds as two plain structs behind a sealed interface
// (api.PayoutRequest) instead of a union of raw JSON, time.Time timestamps, typed enums with their value
// lists, and pointer fields only where "unset" differs from the zero value. Two types are defined here
// on generated ones, keeping their fields, for the methods they need: FieldError (String) and
// WebhookEndpointWithSecret (printing that redacts the secret).
//
// The tests still tie the client to the document: every request the client sends in the tests and
// every mocked response is validated against the document by package openapi; every example in the
// document (schemas, request and response bodies, webhook bodies) is decoded into its model with
// unknown fields disallowed and re-encoded; every object schema's properties must equal its model's
// JSON fields; and the operation table (method, path, which key headers) must equal the document's
// operations and security.
//
// # Safe retries
//
// Connection errors another attempt can fix (a refused, reset or dropped connection, an attempt that
// outlasts WithRequestTimeout; not a bad certificate or an unknown host), 429, 500, 502, 503, 504 and
// 409 "idempotency_key_in_use" are retried (DefaultRetryPolicy: four attempts in all) with jittered
// exponential back-off; the service's Retry-After replaces the back-off, capped by MaxBackoff.
// GET, PATCH and DELETE are retried as they are idempotent. A POST is retried only when it carries an Idempotency-Key: the client generates one
// (a random UUID) per logical call when the caller gives none, and sends the same key on every attempt,
// so the service replays the first outcome instead of paying twice. WithoutAutoIdempotencyKey turns the
// generation off, and then a POST without WithIdempotencyKey is never retried.
//
// # Secrets
//
// The secret key is sent only in the secret-key header of the operations whose security requires it.
// It never appears in errors, logs, or the Client's String, GoString, %v or slog output; text that the
// server sends back (messages, bodies quoted in errors) is scrubbed of it too, and of every whsec_
// webhook secret. Webhook endpoint secrets are redacted when a WebhookEndpointWithSecret, or a request
// that carries one (a SecretString), is printed or logged.
package client
