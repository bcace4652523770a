package contracttests

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Checks derived mechanically from the document: negative cases from each request schema, and the
// auth matrix from each operation's security requirement. Adding a field or a constraint to
// malipo.yaml adds its checks here without code changes.

// bodyTarget knows how to send a valid body to one operation (or one oneOf branch of it), so that a
// single mutation makes it invalid. Setup creates what the path needs (a pending payment, an endpoint).
type bodyTarget struct {
	op        string
	branch    string // the discriminator value, for oneOf bodies
	extension bool
	setup     func(t *T) string // returns the request path
	valid     func(t *T) map[string]any
}

var bodyTargets = []bodyTarget{
	{op: "initializePayment",
		setup: func(*T) string { return api.OpInitializePayment().URL() },
		valid: func(t *T) map[string]any {
			rd := t.RefData()
			_, hook := t.Hook()
			return map[string]any{"currency": rd.Currency, "country": rd.CountryCode, "narration": "conform",
				"method": "mobilemoney", "amount": 10.5, "reference": NewID("conform-"), "phone_number": t.Inputs().ApprovingPhone,
				"webhook_url": hook, "redirect_url": ""}
		}},
	{op: "completePayment",
		setup: func(t *T) string {
			_, hook := t.Hook()
			ref := t.InitPayment("", hook, nil).Str("/data/paymentReference")
			return api.OpCompletePayment().URL(ref)
		},
		valid: func(t *T) map[string]any { return map[string]any{"phone_number": t.Inputs().ApprovingPhone} }},
	{op: "processPayout", branch: "bank",
		setup: func(*T) string { return api.OpProcessPayout().URL() },
		valid: func(t *T) map[string]any {
			_, hook := t.Hook()
			return t.BankPayout(t.Inputs().CreditedAccount, hook)
		}},
	{op: "processPayout", branch: "mobile_number",
		setup: func(*T) string { return api.OpProcessPayout().URL() },
		valid: func(t *T) map[string]any {
			_, hook := t.Hook()
			b := t.MobilePayout(t.Inputs().CreditedWallet, hook)
			b["narration"] = "conform"
			return b
		}},
	{op: "createWebhookEndpoint", extension: true,
		setup: func(*T) string { return api.OpCreateWebhookEndpoint().URL() },
		valid: func(t *T) map[string]any {
			_, hook := t.Hook()
			return map[string]any{"url": hook, "events": []any{"payout.success"}, "description": "conform", "enabled": false}
		}},
	{op: "updateWebhookEndpoint", extension: true,
		setup: func(t *T) string {
			_, hook := t.Hook()
			id := t.CreateEndpoint(map[string]any{"url": hook, "events": []any{"payout.success"}, "enabled": false}).Str("/data/id")
			return api.OpUpdateWebhookEndpoint().URL(id)
		},
		valid: func(t *T) map[string]any {
			_, hook := t.Hook()
			return map[string]any{"url": hook, "events": []any{"payout.failed"}, "description": "conform", "enabled": false}
		}},
	{op: "rotateWebhookEndpointSecret", extension: true,
		setup: func(t *T) string {
			_, hook := t.Hook()
			id := t.CreateEndpoint(map[string]any{"url": hook, "events": []any{"payout.success"}, "enabled": false}).Str("/data/id")
			return api.OpRotateWebhookEndpointSecret().URL(id)
		},
		valid: func(*T) map[string]any { return map[string]any{"grace_period_seconds": 60} }},
}

// mutation makes a valid body invalid in one way; pointer is the field the error must name.
type mutation struct {
	name    string
	pointer string
	apply   func(body map[string]any)
}

// derivedNegativeChecks returns one check per mutation of each operation's request schema.
func derivedNegativeChecks(spec *openapi.Spec) ([]*Check, error) {
	var checks []*Check
	for _, bt := range bodyTargets {
		op, ok := spec.Operation(bt.op)
		if !ok {
			return nil, fmt.Errorf("derive negative checks: operation %s is not in the document", bt.op)
		}
		sch, err := requestBodySchema(op, bt.branch)
		if err != nil {
			return nil, err
		}
		prefix := "negative." + bt.op
		if bt.branch != "" {
			prefix += "." + bt.branch
		}
		for _, m := range schemaMutations(sch) {
			checks = append(checks, negativeCheck(bt, op, prefix+"."+m.name, m))
		}
	}
	return checks, nil
}

func negativeCheck(bt bodyTarget, op *openapi.Operation, id string, m mutation) *Check {
	what := strings.ReplaceAll(m.name, ".", " ")
	return &Check{
		ID: id, Category: CategoryNegative, Covers: []string{op.ID}, Extension: bt.extension,
		Doc: fmt.Sprintf("%s, naming %q", errorDoc(op.ID+" with "+what, api.CodeValidationFailed), m.pointer),
		Run: func(t *T) {
			path := bt.setup(t)
			body := bt.valid(t)
			m.apply(body)
			ex := t.Do(op.Method, path, body)
			if ex.Status/100 == 2 && op.ID == "createWebhookEndpoint" {
				t.Do(api.OpDeleteWebhookEndpoint().Method, api.OpDeleteWebhookEndpoint().URL(ex.Str("/data/id")), nil)
			}
			t.ExpectError(ex, api.CodeValidationFailed, m.pointer)
		},
	}
}

// requestBodySchema returns an operation's JSON request schema, or the oneOf branch the discriminator
// value selects.
func requestBodySchema(op *openapi.Operation, branch string) (*base.Schema, error) {
	if op.Op.RequestBody == nil || op.Op.RequestBody.Content == nil {
		return nil, fmt.Errorf("operation %s has no request body", op.ID)
	}
	mt, ok := op.Op.RequestBody.Content.Get("application/json")
	if !ok || mt.Schema == nil {
		return nil, fmt.Errorf("operation %s has no JSON request body", op.ID)
	}
	sch := mt.Schema.Schema()
	if branch == "" {
		return sch, nil
	}
	if sch.Discriminator == nil || sch.Discriminator.Mapping == nil {
		return nil, fmt.Errorf("operation %s: no discriminator for branch %s", op.ID, branch)
	}
	ref, ok := sch.Discriminator.Mapping.Get(branch)
	if !ok {
		return nil, fmt.Errorf("operation %s: the discriminator has no %s", op.ID, branch)
	}
	for _, p := range sch.OneOf {
		if p.GetReference() == ref {
			return p.Schema(), nil
		}
	}
	return nil, fmt.Errorf("operation %s: branch %s (%s) is not in oneOf", op.ID, branch, ref)
}

// schemaMutations derives, for an object schema: each required property dropped, each property's
// type swapped, each constraint (minimum, exclusiveMinimum, maximum, multipleOf, enum, pattern,
// minLength, maxLength, minItems, uniqueItems, item enum) broken, and an unknown property where
// additionalProperties is false.
func schemaMutations(sch *base.Schema) []mutation {
	var out []mutation
	required := map[string]bool{}
	for _, r := range sch.Required {
		required[r] = true
	}
	var names []string
	for name := range sch.Properties.KeysFromOldest() {
		names = append(names, name)
	}
	for _, name := range names {
		prop := sch.Properties.GetOrZero(name).Schema()
		if prop == nil {
			continue
		}
		ptr := "/" + name
		set := func(v any) func(map[string]any) { return func(b map[string]any) { b[name] = v } }
		if required[name] {
			out = append(out, mutation{name + ".missing", ptr, func(b map[string]any) { delete(b, name) }})
		}
		typ := ""
		if len(prop.Type) > 0 {
			typ = prop.Type[0]
		}
		if wrong, ok := wrongType[typ]; ok {
			out = append(out, mutation{name + ".wrong-type", ptr, set(wrong)})
		}
		if typ == "integer" {
			out = append(out, mutation{name + ".not-integer", ptr, set(1.5)})
		}
		if prop.Minimum != nil {
			out = append(out, mutation{name + ".below-minimum", ptr, set(*prop.Minimum - 1)})
		}
		if prop.ExclusiveMinimum != nil && prop.ExclusiveMinimum.IsB() {
			out = append(out, mutation{name + ".at-exclusive-minimum", ptr, set(prop.ExclusiveMinimum.B)})
		}
		if prop.Maximum != nil {
			out = append(out, mutation{name + ".above-maximum", ptr, set(*prop.Maximum + 1)})
		}
		if prop.MultipleOf != nil && *prop.MultipleOf < 1 {
			out = append(out, mutation{name + ".not-multiple", ptr, set(1 + *prop.MultipleOf/10)})
		}
		if len(prop.Enum) > 0 {
			out = append(out, mutation{name + ".not-in-enum", ptr, set("not-a-valid-value")})
		}
		if prop.Pattern != "" {
			if bad, ok := breaksPattern(prop.Pattern); ok {
				out = append(out, mutation{name + ".pattern", ptr, set(bad)})
			}
		}
		if prop.MinLength != nil && *prop.MinLength > 0 {
			out = append(out, mutation{name + ".too-short", ptr, set(strings.Repeat("1", int(*prop.MinLength)-1))})
		}
		if prop.MaxLength != nil {
			out = append(out, mutation{name + ".too-long", ptr, set(strings.Repeat("1", int(*prop.MaxLength)+1))})
		}
		if typ == "array" {
			var item *base.Schema
			if prop.Items != nil && prop.Items.IsA() {
				item = prop.Items.A.Schema()
			}
			if prop.MinItems != nil && *prop.MinItems > 0 {
				out = append(out, mutation{name + ".too-few-items", ptr, set([]any{})})
			}
			if item != nil && len(item.Enum) > 0 {
				out = append(out, mutation{name + ".item-not-in-enum", ptr + "/0", set([]any{"not-a-valid-value"})})
				if prop.UniqueItems != nil && *prop.UniqueItems {
					first := item.Enum[0].Value
					out = append(out, mutation{name + ".duplicate-items", ptr, set([]any{first, first})})
				}
			}
		}
	}
	if sch.AdditionalProperties != nil && sch.AdditionalProperties.IsB() && !sch.AdditionalProperties.B {
		out = append(out, mutation{"unknown-field", "/unexpected_field", func(b map[string]any) { b["unexpected_field"] = "x" }})
	}
	if sch.MinProperties != nil && *sch.MinProperties > 0 {
		out = append(out, mutation{"empty-object", "", func(b map[string]any) {
			for k := range b {
				delete(b, k)
			}
		}})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

var wrongType = map[string]any{
	"string":  12345,
	"integer": "not-a-number",
	"number":  "not-a-number",
	"boolean": "not-a-boolean",
	"array":   "not-an-array",
	"object":  "not-an-object",
}

// breaksPattern returns a value that does not match pattern.
func breaksPattern(pattern string) (string, bool) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", false
	}
	for _, candidate := range []string{"not valid!", "!!", " ", "a b", "-"} {
		if !re.MatchString(candidate) {
			return candidate, true
		}
	}
	return "", false
}

// derivedAuthChecks returns the auth matrix: for every operation, no keys and a wrong public key; for
// operations that need the secret key, also no secret key, a wrong one, and the two keys swapped.
func derivedAuthChecks(spec *openapi.Spec) []*Check {
	var checks []*Check
	for _, op := range spec.Operations() {
		if len(op.KeyHeaders) == 0 {
			continue
		}
		needsSecret := slices.Contains(op.KeyHeaders[0], api.HeaderSecretKey)
		ext := isExtension(op.ID)
		add := func(name, doc string, code api.ErrorCode, opts func(t *T) []ReqOption) {
			checks = append(checks, &Check{
				ID: "auth." + op.ID + "." + name, Category: CategoryAuth, Covers: []string{op.ID}, Extension: ext,
				Doc: fmt.Sprintf("%s %s is rejected with %d (code %d)", op.ID, doc, code.HTTPStatus(), code),
				Run: func(t *T) {
					path, body := authRequest(t, op)
					t.ExpectError(t.Do(op.Method, path, body, opts(t)...), code)
				},
			})
		}
		add("no-keys", "without any key header", api.CodeMissingAPIKey, func(*T) []ReqOption { return []ReqOption{WithoutKeys()} })
		add("wrong-public-key", "with an unknown public key", api.CodeInvalidAPIKey, func(t *T) []ReqOption {
			return []ReqOption{WithKeys(Keys{Public: "pk_conform_unknown", Secret: t.suite.cfg.Keys.Secret})}
		})
		if needsSecret {
			add("no-secret-key", "without the secret-key header", api.CodeMissingAPIKey, func(*T) []ReqOption {
				return []ReqOption{WithoutKeyHeader(api.HeaderSecretKey)}
			})
			add("wrong-secret-key", "with a wrong secret key", api.CodeInvalidAPIKey, func(t *T) []ReqOption {
				return []ReqOption{WithKeys(Keys{Public: t.suite.cfg.Keys.Public, Secret: "sk_conform_wrong"})}
			})
			add("keys-swapped", "with the public and secret keys swapped", api.CodeInvalidAPIKey, func(t *T) []ReqOption {
				k := t.suite.cfg.Keys
				return []ReqOption{WithKeys(Keys{Public: k.Secret, Secret: k.Public})}
			})
		}
	}
	return checks
}

// authRequest builds an otherwise valid request for op: path parameters name objects that need not
// exist (auth comes first), and bodies are valid.
func authRequest(t *T, op *openapi.Operation) (string, any) {
	path := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(op.Path, unknownID)
	switch op.ID {
	case "listBanks":
		return path + "?country=ZM", nil
	case "processPayout":
		return path, map[string]any{"amount": 1, "countryId": "conform-country", "transfer_to": "mobile_number"}
	case "initializePayment":
		return path, map[string]any{"currency": "ZMW", "country": "ZM", "narration": "conform", "method": "mobilemoney",
			"amount": 1, "webhook_url": "http://127.0.0.1:9/conform"}
	case "createWebhookEndpoint":
		return path, map[string]any{"url": "http://127.0.0.1:9/conform", "events": []any{"payout.success"}, "enabled": false}
	case "updateWebhookEndpoint":
		return path, map[string]any{"enabled": false}
	}
	return path, nil
}
