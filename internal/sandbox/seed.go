package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// Seed data: the objects the document's examples name exist in every new sandbox, for the merchant
// whose keys are DefaultPublicKey and DefaultSecretKey. A developer who pastes an example from the
// docs (`GET /v1/payment/payouts/po_5d1e7b3c2a9f8e40`, `POST /v1/payment/pay/pay_8f3a2c1d9b7e4a60`)
// into a fresh `malipo sandbox` gets a real answer, and example-driven tools (Specmatic pairs request
// and response examples by name) pass against it.
//
// Only the default merchant is seeded: the examples are written for the sandbox as it starts without
// configuration, and a merchant configured with its own keys (a CI job's, a second merchant for the
// isolation checks) starts empty, so nothing it counts or creates collides with documentation data.
//
// The objects are not written here twice: each comes from a named example of components.examples,
// decoded into the sandbox's own types. Only what the document cannot say is stated here: the
// status a seed starts in when the examples show it in several (the payment that complete-payment's
// example completes starts `pending`). seed_test.go ties every id and reference of the examples to
// these seeds and replays every paired example against a fresh sandbox, so the two cannot drift.
//
// Seeded objects never send webhooks: their URLs are the documentation's (merchant.example.org),
// so no delivery goes to their own webhook_url, and the seeded endpoint receives nothing until its
// url is changed. A status change of a seeded payment (completing it) is still an event, delivered to
// the merchant's own endpoints like any other. Seeding itself delivers nothing: the one seeded event
// (the example the event log's examples name) is in the log, as if it had been emitted, and resending
// it delivers nothing either.

// seedSource is one seeded object: a components.examples entry and where in its value the object is.
type seedSource struct {
	example string // name under components.examples
	path    string // dot path of the object in the example's value: "data" or "data.object"
	kind    string // "payment", "payout", "endpoint" or "event"
	// status, when set, replaces the example's status: the state the operation examples that take
	// this object as input need it in (updated_at is then created_at).
	status string
	// id, when set, names a components.examples entry whose value is an id: the object is seeded
	// (again) under that id. A destructive example (a DELETE) names such a copy, so that it never
	// removes an object the other examples use, whatever order a tool runs them in.
	id string
	// disabled seeds an endpoint with enabled false.
	disabled bool
}

var seedSources = []seedSource{
	// pay_8f3a2c1d9b7e4a60 (order-1042): complete-payment's example sends its prompt, so it starts
	// pending; transaction status and the payment.* event examples show it afterwards.
	{example: "PaymentProcessing", path: "data", kind: "payment", status: string(api.PaymentStatusPending)},
	// pay_1a2b3c4d5e6f7a80 (order-1043): declined.
	{example: "PaymentFailedEvent", path: "data.object", kind: "payment"},
	// po_5d1e7b3c2a9f8e40 (inv-88): the payout get-payout's `succeeded` example and 409's example name.
	{example: "PayoutSucceeded", path: "data", kind: "payout"},
	// po_9a8b7c6d5e4f3a20: get-payout's `failed` example.
	{example: "PayoutFailed", path: "data", kind: "payout"},
	// we_2b7c9d1e4f6a8b30, with the secret the create example shows.
	{example: "WebhookEndpointWithSecret", path: "data", kind: "endpoint"},
	// we_7d3f5a1c9e2b4d60: the same endpoint under the id delete-endpoint's example deletes, disabled
	// (retired): enabled, it would receive every event a second time at the same URL.
	{example: "WebhookEndpointWithSecret", path: "data", kind: "endpoint", id: "RetiredWebhookEndpointId", disabled: true},
	// Sandbox controls: pay_6c1e9a7b3d5f2e80 (order-2077) and po_3ddaf89f9f963ecc (inv-93) start
	// processing, for the settle examples to settle; df_4c2e8a6b1d3f5e70 is in force for as long as its
	// example says (two minutes from the start) against the documentation's URL, for the delete example.
	{example: "SandboxSettledPayment", path: "data", kind: "payment", status: string(api.PaymentStatusProcessing)},
	{example: "SandboxSettledPayout", path: "data", kind: "payout", status: string(api.PayoutStatusProcessing)},
	{example: "SandboxDeliveryFailureDown", path: "data", kind: "deliveryFailure"},
	// evt_6f8b0d2e4a5c7b90: po_5d1e7b3c2a9f8e40's payout.success, which the event-log examples read and
	// resend. It is in the event log as if emitted when the example says, and was never delivered.
	{example: "PayoutSuccessEvent", kind: "event"},
}

// WithSeedData turns the seed data on (the default) or off. Off gives the default merchant an empty
// store, for tests that count what they create from nothing.
func WithSeedData(on bool) Option { return func(c *config) { c.noSeed = !on } }

// seedMerchant reports whether m is the merchant that gets the seed data.
func (s *Server) seedMerchant(m *merchant) bool {
	return !s.cfg.noSeed && m.publicKey == DefaultPublicKey && m.secretKey == DefaultSecretKey
}

// seed adds the seed objects to m. A source whose example the document does not have is skipped (a
// sandbox serving another document, WithSpec); one that does not decode is an error.
func (s *Server) seed(m *merchant) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	tx := s.store.Begin() // with a data directory, the seed data is the file's first state
	defer tx.Commit()
	for _, src := range seedSources {
		raw, ok, err := seedObject(s.spec, src)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := s.seedOne(tx, m, src, raw); err != nil {
			return fmt.Errorf("seed from #/components/examples/%s: %w", src.example, err)
		}
	}
	return nil
}

func (s *Server) seedOne(tx *store.Tx, m *merchant, src seedSource, raw json.RawMessage) error {
	switch src.kind {
	case "payment":
		var p Payment
		if err := json.Unmarshal(raw, &p); err != nil {
			return err
		}
		if src.status != "" {
			p.Status, p.FailureReason, p.UpdatedAt = api.PaymentStatus(src.status), "", p.CreatedAt
		}
		p.Seeded = true
		m.st.CreatePayment(tx, p, store.ClaimReference)
	case "payout":
		var p Payout
		if err := json.Unmarshal(raw, &p); err != nil {
			return err
		}
		if src.status != "" {
			p.Status, p.FailureReason, p.UpdatedAt = api.PayoutStatus(src.status), "", p.CreatedAt
		}
		p.Seeded = true
		m.st.CreatePayout(tx, p, store.ClaimReference)
	case "event":
		return s.seedEvent(tx, m, raw)
	case "endpoint":
		var e struct {
			WebhookEndpoint
			Secret string `json:"secret"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return err
		}
		secret, err := webhook.ParseSecret(e.Secret)
		if err != nil {
			return fmt.Errorf("the endpoint's secret: %w", err)
		}
		if src.disabled {
			e.Enabled = false
		}
		m.st.PutEndpoint(tx, store.Endpoint{WebhookEndpoint: e.WebhookEndpoint, Secret: secret, Seeded: true})
	case "deliveryFailure":
		var f store.DeliveryFailure
		if err := json.Unmarshal(raw, &f.SandboxDeliveryFailure); err != nil {
			return err
		}
		now := s.cfg.clock().UTC()
		f.Until = now.Add(f.ExpiresAt.Sub(f.CreatedAt))
		f.CreatedAt, f.ExpiresAt = now.Truncate(time.Second), f.Until.Truncate(time.Second)
		m.st.AddFailure(tx, f, now)
	default:
		return fmt.Errorf("unknown seed kind %q", src.kind)
	}
	return nil
}

// seedObject is src's object as seeded: its example's, under the id src.id names when it is set.
func seedObject(spec *openapi.Spec, src seedSource) (json.RawMessage, bool, error) {
	raw, ok, err := exampleObject(spec, src.example, src.path)
	if !ok || err != nil || src.id == "" {
		return raw, ok, err
	}
	v, ok, err := spec.ComponentExample(src.id)
	if !ok || err != nil {
		return nil, ok, err
	}
	id, isString := v.(string)
	if !isString || id == "" {
		return nil, false, fmt.Errorf("#/components/examples/%s: the value is not an id", src.id)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, false, err
	}
	obj["id"] = id
	raw, err = json.Marshal(obj)
	return raw, err == nil, err
}

// exampleObject returns the JSON at path in the value of components.examples[name].
func exampleObject(spec *openapi.Spec, name, path string) (json.RawMessage, bool, error) {
	v, ok, err := spec.ComponentExample(name)
	if !ok || err != nil {
		return nil, false, err
	}
	for key := range strings.SplitSeq(path, ".") {
		if path == "" {
			break // the whole value
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("#/components/examples/%s has no %s", name, path)
		}
		if v, ok = obj[key]; !ok {
			return nil, false, fmt.Errorf("#/components/examples/%s has no %s", name, path)
		}
	}
	raw, err := json.Marshal(v)
	return raw, err == nil, err
}
