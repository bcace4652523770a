package sandbox

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

// Every seed object is the example it is taken from (with only the documented status override).
func TestSeedObjectsAreTheirExamples(t *testing.T) {
	e := newEnv(t, WithSeedData(true))
	spec := testSpec(t)
	for _, src := range seedSources {
		raw, ok, err := seedObject(spec, src)
		require.NoError(t, err)
		require.True(t, ok, "#/components/examples/%s is gone: update seedSources", src.example)
		var want map[string]any
		require.NoError(t, json.Unmarshal(raw, &want))
		if src.status != "" {
			want["status"], want["updated_at"] = src.status, want["created_at"]
			delete(want, "failure_reason")
		}
		if src.disabled {
			want["enabled"] = false
		}
		var got any
		switch src.kind {
		case "payment":
			p, ok := e.srv.Payment(DefaultPublicKey, want["paymentReference"].(string))
			require.True(t, ok, src.example)
			got = p
		case "payout":
			p, ok := e.srv.Payout(DefaultPublicKey, want["payout_id"].(string))
			require.True(t, ok, src.example)
			got = p
		case "endpoint":
			ep, ok := e.srv.WebhookEndpoint(DefaultPublicKey, want["id"].(string))
			require.True(t, ok, src.example)
			got = ep
			delete(want, "secret")
		case "deliveryFailure":
			// In force from the sandbox's start for as long as the example's: its times are the
			// example's moved to now.
			i := slices.IndexFunc(e.srv.DeliveryFailures(DefaultPublicKey), func(f api.SandboxDeliveryFailure) bool { return f.ID == want["id"] })
			require.GreaterOrEqual(t, i, 0, src.example)
			f := e.srv.DeliveryFailures(DefaultPublicKey)[i]
			created, _ := time.Parse(time.RFC3339, want["created_at"].(string))
			expires, _ := time.Parse(time.RFC3339, want["expires_at"].(string))
			assert.InDelta(t, expires.Sub(created).Seconds(), f.ExpiresAt.Sub(f.CreatedAt).Seconds(), 1, src.example)
			want["created_at"], want["expires_at"] = f.CreatedAt.Format(time.RFC3339), f.ExpiresAt.Format(time.RFC3339)
			got = f
		case "event":
			res := e.client.do(http.MethodGet, api.OpGetEvent().URL(want["id"].(string)), nil)
			require.Equal(t, http.StatusOK, res.status, "%s: %s", src.example, res.body)
			got = res.data(t)["payload"]
		default:
			require.FailNow(t, "a seed kind this test does not read", src.kind)
		}
		var gotMap map[string]any
		data, err := json.Marshal(got)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &gotMap))
		assert.Equal(t, want, gotMap, "seed from #/components/examples/%s", src.example)
	}
}

var (
	exampleIDPattern  = regexp.MustCompile(`\b(?:pay|po|we)_[0-9a-f]{16}\b`)
	exampleRefPattern = regexp.MustCompile(`\b(?:order|inv)-[0-9]+\b`)
)

// Every id and merchant reference the examples name exists in a fresh sandbox, except what a create
// example creates and the id that illustrates 404.
func TestEveryObjectTheExamplesNameExists(t *testing.T) {
	e := newEnv(t, WithSeedData(true))
	spec := testSpec(t)
	examples, err := spec.Examples()
	require.NoError(t, err)
	created := createdByExamples(t, spec)
	created["po_0000000000000000"] = true // NotFound's example
	// The create-endpoint example that is a seed (its endpoint is the one the other endpoint examples
	// read, rotate and delete) names an object that exists.
	for _, src := range seedSources {
		raw, ok, err := seedObject(spec, src)
		require.NoError(t, err)
		require.True(t, ok, src.example)
		for _, id := range exampleIDPattern.FindAllString(string(raw), -1) {
			delete(created, id)
		}
	}
	named := map[string]bool{}
	for _, ex := range examples {
		for _, id := range exampleIDPattern.FindAllString(string(ex.JSON), -1) {
			named[id] = true
		}
		for _, ref := range exampleRefPattern.FindAllString(string(ex.JSON), -1) {
			named[ref] = true
		}
	}
	require.Greater(t, len(named), 8)
	for id := range named {
		path := api.OpGetTransactionStatus().URL(id)
		if strings.HasPrefix(id, "we_") {
			path = api.OpGetWebhookEndpoint().URL(id)
		}
		res := e.client.do(http.MethodGet, path, nil)
		if created[id] {
			assert.Equal(t, http.StatusNotFound, res.status, "%s is what a create example creates, so it must not be seeded", id)
		} else {
			assert.Equal(t, http.StatusOK, res.status, "%s is named by an example but not seeded: add its example to seedSources", id)
		}
	}
	var seededEvents []string
	for _, src := range seedSources {
		if src.kind == "event" {
			raw, _, err := exampleObject(spec, src.example, src.path)
			require.NoError(t, err)
			var ev struct{ ID string }
			require.NoError(t, json.Unmarshal(raw, &ev))
			seededEvents = append(seededEvents, ev.ID)
		}
	}
	var events []string
	for _, ev := range e.srv.Events("") {
		events = append(events, ev.ID)
	}
	assert.Equal(t, seededEvents, events, "seeding emits no event: the log holds only the examples' events")
	e.idle()
	assert.Empty(t, e.srv.Attempts(), "seeding delivers nothing")
}

// createdByExamples returns the ids and references of the objects the create operations' examples
// create (request and 201 examples of initializePayment, processPayout and createWebhookEndpoint).
func createdByExamples(t *testing.T, spec *openapi.Spec) map[string]bool {
	out := map[string]bool{}
	for _, id := range []string{api.OpInitializePayment().ID, api.OpProcessPayout().ID, api.OpCreateWebhookEndpoint().ID} {
		op, ok := spec.Operation(id)
		require.True(t, ok)
		var texts []string
		for _, ex := range namedBodyExamples(t, op) {
			texts = append(texts, string(ex))
		}
		for _, ex := range mediaExamples(t, responseNode(t, op, "201")) {
			texts = append(texts, string(ex))
		}
		for _, text := range texts {
			for _, v := range append(exampleIDPattern.FindAllString(text, -1), exampleRefPattern.FindAllString(text, -1)...) {
				out[v] = true
			}
		}
	}
	return out
}

// Every request example of the document, built the way Specmatic builds it (parameter and body
// examples of one name), gets the status of the response example of that name from a fresh sandbox:
// the objects the examples take as input are seeded, in the states the examples need. Operations run
// in document order, DELETE last (tools/interop/specmatic.sh runs Specmatic the same way).
//
// The DELETE examples run first, on one sandbox: a destructive example names seed objects of its own,
// so the examples work in any order (Specmatic runs them in document order, in one pass), and a
// DELETE that removed an object another example uses fails that example here.
func TestPairedExamplesAnswerAsDocumented(t *testing.T) {
	e := newEnv(t, WithSeedData(true))
	spec := testSpec(t)
	ops := spec.Operations()
	slices.SortStableFunc(ops, func(a, b *openapi.Operation) int {
		return boolInt(b.Method == http.MethodDelete) - boolInt(a.Method == http.MethodDelete)
	})
	tested := 0
	for _, op := range ops {
		params := operationParameters(t, op)
		bodies := namedBodyExamples(t, op)
		names := map[string]bool{}
		for _, p := range params {
			for name := range p.Examples {
				names[name] = true
			}
		}
		for name := range bodies {
			names[name] = true
		}
		if len(names) == 0 {
			names[""] = true // an operation without request examples: its single 2xx example
		}
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for n := range names {
				if !yield(n) {
					return
				}
			}
		}) {
			want := pairedStatus(t, op, name)
			require.NotZero(t, want, "%s: request example %q has no response example of that name", op.ID, name)
			path, query := op.Path, url.Values{}
			for _, p := range params {
				ex, ok := p.Examples[name]
				if !ok {
					continue
				}
				switch p.In {
				case "path":
					path = strings.Replace(path, "{"+p.Name+"}", url.PathEscape(ex), 1)
				case "query":
					query.Set(p.Name, ex)
				}
			}
			for _, p := range params {
				require.False(t, p.In == "path" && strings.Contains(path, "{"+p.Name+"}"), "%s %q: no example for path parameter %s", op.ID, name, p.Name)
			}
			if len(query) > 0 {
				path += "?" + query.Encode()
			}
			var body any
			if b, ok := bodies[name]; ok {
				body = b
			}
			res := e.client.do(op.Method, path, body)
			assert.Equal(t, want, res.status, "%s with example %q: %s", op.ID, name, res.body)
			tested++
		}
	}
	assert.GreaterOrEqual(t, tested, 15)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pairedStatus is the status whose response example is named name, else the only bodiless 2xx
// (Specmatic pairs a 204 with any request example), else, for name "", the only 2xx.
func pairedStatus(t *testing.T, op *openapi.Operation, name string) int {
	var bodiless2xx, any2xx []string
	for code := range openapitest.Members(openapitest.Member(openapitest.Embedded(t).Operation(t, op), "responses")) {
		resp := responseNode(t, op, code)
		if strings.HasPrefix(code, "2") {
			any2xx = append(any2xx, code)
			if len(openapitest.Keys(openapitest.Member(resp, "content"))) == 0 {
				bodiless2xx = append(bodiless2xx, code)
			}
		}
		if _, ok := mediaExamples(t, resp)[name]; ok && name != "" {
			return atoi(code)
		}
	}
	if len(bodiless2xx) == 1 {
		return atoi(bodiless2xx[0])
	}
	if name == "" && len(any2xx) == 1 {
		return atoi(any2xx[0])
	}
	return 0
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func namedBodyExamples(t *testing.T, op *openapi.Operation) map[string]json.RawMessage {
	body := openapitest.Member(openapitest.Embedded(t).Operation(t, op), "requestBody")
	if body == nil {
		return map[string]json.RawMessage{}
	}
	return mediaExamples(t, openapitest.Embedded(t).Resolve(t, body))
}

// responseNode is op's response for status code (a reference followed), nil when it has none.
func responseNode(t *testing.T, op *openapi.Operation, code string) *yaml.Node {
	resp := openapitest.Member(openapitest.Member(openapitest.Embedded(t).Operation(t, op), "responses"), code)
	if resp == nil {
		return nil
	}
	return openapitest.Embedded(t).Resolve(t, resp)
}

// mediaExamples returns the named examples of every media type of a request body or response, each
// value as JSON (an example that is a reference followed).
func mediaExamples(t *testing.T, bodyOrResponse *yaml.Node) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, mt := range openapitest.Members(openapitest.Member(bodyOrResponse, "content")) {
		maps.Copy(out, openapitest.Embedded(t).NamedExamples(t, mt))
	}
	return out
}

// Seeds belong to the default merchant only.
func TestOnlyTheDefaultMerchantIsSeeded(t *testing.T) {
	e := newEnv(t, WithSeedData(true))
	assert.Len(t, e.srv.Payouts(DefaultPublicKey), seededPayouts())
	assert.Empty(t, e.srv.Payouts(otherPublicKey))
	other := e.client.as(otherPublicKey, otherSecretKey)
	assert.Equal(t, http.StatusNotFound, other.do(http.MethodGet, api.OpGetTransactionStatus().URL("order-1042"), nil).status)
	// The default merchant's seeded reference is taken; another merchant may use it.
	assert.Equal(t, http.StatusCreated, other.do(http.MethodPost, api.OpInitializePayment().URL(), with(paymentInit(approvingPhone(t), "http://127.0.0.1:9/hooks"), "reference", "order-1042")).status)
	res := e.client.do(http.MethodPost, api.OpInitializePayment().URL(), with(paymentInit(approvingPhone(t), "http://127.0.0.1:9/hooks"), "reference", "order-1042"))
	assert.Equal(t, http.StatusConflict, res.status)
	assert.Equal(t, "pay_8f3a2c1d9b7e4a60", res.json(t)["data"].(map[string]any)["existing_id"])

	custom, err := New(WithMerchant("pk_test_custom", "sk_test_custom"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = custom.Close() })
	assert.Empty(t, custom.Payouts("pk_test_custom"))
}

// Seeded objects send no webhook: neither to their own (documentation) webhook_url nor to the
// seeded endpoint; a status change of a seeded payment reaches the merchant's own endpoints.
func TestSeededObjectsSendNoWebhooks(t *testing.T) {
	var outbound atomic.Int32
	rc := newReceiver(t)
	e := newEnv(t, WithSeedData(true), WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if !strings.HasPrefix(r.URL.String(), rc.url("")) {
			outbound.Add(1)
		}
		return http.DefaultTransport.RoundTrip(r)
	})}))
	mine := e.client.do(http.MethodPost, api.OpCreateWebhookEndpoint().URL(), map[string]any{"url": rc.url("/mine"), "events": []string{"payment.processing", "payment.success", "payout.success"}})
	require.Equal(t, http.StatusCreated, mine.status)
	// Complete the seeded pending payment and make a payout: the seeded endpoint (payout.*) and the
	// payment's webhook_url get nothing.
	require.Equal(t, http.StatusAccepted, e.client.do(http.MethodPost, api.OpCompletePayment().URL("pay_8f3a2c1d9b7e4a60"), nil).status)
	e.client.createPayout(mobilePayout(creditedWallet(t)))
	got := rc.waitFor(3, func(received) bool { return true })
	assert.Len(t, got, 3)
	e.idle()
	assert.Len(t, rc.deliveries(), 3, "a delivery arrived after the three expected ones")
	assert.Zero(t, outbound.Load(), "deliveries left loopback")

	// Pointing the seeded endpoint at the merchant's own receiver starts its deliveries.
	require.Equal(t, http.StatusOK, e.client.do(http.MethodPatch, api.OpUpdateWebhookEndpoint().URL("we_2b7c9d1e4f6a8b30"), map[string]any{"url": rc.url("/seeded")}).status)
	e.client.createPayout(mobilePayout(creditedWallet(t)))
	rc.waitFor(1, func(d received) bool { return d.path == "/seeded" })
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// docParameter is a parameter as the document declares it: where it goes, and its named examples' values.
type docParameter struct {
	Name, In string
	Examples map[string]string `yaml:"-"`
}

// operationParameters returns the operation's parameters, path-level ones included.
func operationParameters(t *testing.T, op *openapi.Operation) []docParameter {
	doc := openapitest.Embedded(t)
	read := func(list *yaml.Node) []docParameter {
		var out []docParameter
		for _, n := range openapitest.Items(list) {
			n = doc.Resolve(t, n)
			var p docParameter
			openapitest.Decode(t, n, &p)
			p.Examples = map[string]string{}
			for name, ex := range openapitest.Members(openapitest.Member(n, "examples")) {
				p.Examples[name] = openapitest.Member(doc.Resolve(t, ex), "value").Value
			}
			out = append(out, p)
		}
		return out
	}
	own := []docParameter{}
	if list := openapitest.Member(openapitest.Embedded(t).Operation(t, op), "parameters"); list != nil {
		own = read(list)
	}
	var out []docParameter
	if list, ok := doc.Lookup(t, "/paths/"+docedit.Escape(op.Path)+"/parameters"); ok {
		for _, p := range read(list) {
			// An operation's parameter of the same name and location replaces the path's (OpenAPI 3.1,
			// Path Item Object): delete-endpoint's `id` has an example of its own.
			if !slices.ContainsFunc(own, func(o docParameter) bool { return o.Name == p.Name && o.In == p.In }) {
				out = append(out, p)
			}
		}
	}
	return append(out, own...)
}

func TestWithSeedDataOff(t *testing.T) {
	srv, err := New(WithSeedData(false))
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	assert.Empty(t, srv.Payouts(DefaultPublicKey))
	on, err := New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = on.Close() })
	assert.Len(t, on.Payouts(DefaultPublicKey), seededPayouts(), "New seeds by default")
	assert.NotEmpty(t, on.DeliveryFailures(DefaultPublicKey), "New seeds by default")
	assert.Empty(t, srv.DeliveryFailures(DefaultPublicKey))
}

// TestSchemaRequestExamplesCreateInAFreshSandbox: the examples of the request schemas are pasted as
// often as the operations' own (generators show them as the sample body), so each creates an object
// in a fresh sandbox instead of colliding with the seed data's merchant references.
func TestSchemaRequestExamplesCreateInAFreshSandbox(t *testing.T) {
	e := newEnv(t, WithSeedData(true))
	examples, err := testSpec(t).Examples()
	require.NoError(t, err)
	paths := map[string]string{
		"#/components/schemas/PaymentInitRequest/examples/":       api.OpInitializePayment().URL(),
		"#/components/schemas/BankPayoutRequest/examples/":        api.OpProcessPayout().URL(),
		"#/components/schemas/MobileMoneyPayoutRequest/examples/": api.OpProcessPayout().URL(),
	}
	tried := map[string]int{} // schema prefix -> examples sent
	for _, ex := range examples {
		for prefix, path := range paths {
			if !strings.HasPrefix(ex.Location, prefix) {
				continue
			}
			var body map[string]any
			require.NoError(t, json.Unmarshal(ex.JSON, &body))
			res := e.client.do(http.MethodPost, path, body)
			assert.Equal(t, http.StatusCreated, res.status, "%s: %s", ex.Location, res.body)
			tried[prefix]++
		}
	}
	for prefix := range paths {
		assert.Positive(t, tried[prefix], "every request schema has an example: none under %s", prefix)
	}
}

// seededPayouts counts the payouts the seed data has.
func seededPayouts() int {
	n := 0
	for _, src := range seedSources {
		if src.kind == "payout" {
			n++
		}
	}
	return n
}

// TestSeededEndpointsDeliverOncePerURL: the copy of the create example's endpoint that the DELETE
// example deletes is seeded disabled, so a seeded sandbox does not deliver every event twice to the
// example's URL.
func TestSeededEndpointsDeliverOncePerURL(t *testing.T) {
	e := newEnv(t, WithSeedData(true))
	r := e.client.do(http.MethodGet, api.OpListWebhookEndpoints().URL(), nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var list struct {
		Data []api.WebhookEndpoint `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.body, &list))
	require.GreaterOrEqual(t, len(list.Data), 2, "the seed has the create example's endpoint and its retired copy")
	enabled := map[string][]string{}
	for _, ep := range list.Data {
		if ep.Enabled {
			enabled[ep.URL] = append(enabled[ep.URL], ep.ID)
		}
	}
	for url, ids := range enabled {
		assert.Len(t, ids, 1, "%s is the URL of more than one enabled seeded endpoint: %v", url, ids)
	}
}
