package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	yaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

// Checks derived mechanically from the document: negative cases from each request schema, and the
// auth matrix from each operation's security requirement, both sending the document's request
// examples (see package harness, examples.go). Adding a field, a constraint, or an operation with a
// request example to malipo.yaml adds its checks here without code changes; an operation with a
// JSON body but no example still gets its checks, and they are skipped saying which example to add
// (the document says nothing a target could break, so it is not a failure of the target).

// bodyTarget is one JSON request body of the document: an operation's, or one branch of a oneOf body
// with a discriminator. Its negative checks send the document's example for it with one mutation.
type bodyTarget struct {
	op     *openapi.Operation
	branch string // the discriminator value, for oneOf bodies
	schema *base.Schema
	// example is the document's request example (JSON); when there is none, exampleErr says so and
	// every check of the target is skipped with it rather than being left out of the run unseen.
	example    []byte
	exampleErr error
	// cleanup is the DELETE that removes what op creates, with the path parameter it takes from the
	// response's data; nil when op creates nothing that can be deleted.
	cleanup      *openapi.Operation
	cleanupParam string
	// extension is true when the document puts op in an extension a target may leave out.
	extension bool
	// location is the schema's JSON pointer in the document: the component a $ref names, or the
	// request body's own schema.
	location string
}

// bodyTargets returns every JSON request body of the document's operations, in document order: one
// per operation, or one per discriminator value of a oneOf body.
func bodyTargets(spec *openapi.Spec) ([]bodyTarget, error) {
	var out []bodyTarget
	for _, op := range harness.APIOperations(spec) {
		sch, err := openapi.RequestBodySchema(op, "")
		if err != nil {
			continue // no JSON request body: nothing to mutate
		}
		branches := []string{""}
		if sch.Discriminator != nil && sch.Discriminator.Mapping != nil {
			branches = slices.Collect(sch.Discriminator.Mapping.KeysFromOldest())
		}
		for _, branch := range branches {
			bsch, err := openapi.RequestBodySchema(op, branch)
			if err != nil {
				return nil, err
			}
			bt := bodyTarget{op: op, branch: branch, schema: bsch, location: requestBodyLocation(op, branch)}
			bt.example, bt.exampleErr = harness.RequestExample(op, branch)
			bt.cleanup, bt.cleanupParam = deleteOperationFor(spec, op)
			bt.extension = harness.IsExtensionIn(op)
			out = append(out, bt)
		}
	}
	return out, nil
}

// deleteOperationFor returns the DELETE operation on the objects op creates (`DELETE /v1/webhooks/{id}`
// for `POST /v1/webhooks`) and the name of its path parameter, which is also the field of the created
// object that holds the id; nil when the document has none.
func deleteOperationFor(spec *openapi.Spec, op *openapi.Operation) (*openapi.Operation, string) {
	if op.Method != http.MethodPost {
		return nil, ""
	}
	for _, d := range spec.Operations() {
		params := pathParams(d.Path)
		if d.Method == http.MethodDelete && len(params) == 1 && d.Path == op.Path+"/{"+params[0]+"}" {
			return d, params[0]
		}
	}
	return nil, ""
}

// mutation makes a valid body invalid in one way; pointer is the field the error must name.
type mutation struct {
	name    string
	pointer string
	apply   func(body map[string]any)
	// rule is the schema keyword the mutation breaks, as a JSON pointer into the document.
	rule string
}

// derivedNegativeChecks returns one check per mutation of each operation's request schema.
func derivedNegativeChecks(spec *openapi.Spec) ([]*harness.Check, error) {
	targets, err := bodyTargets(spec)
	if err != nil {
		return nil, err
	}
	var checks []*harness.Check
	for _, bt := range targets {
		prefix := "negative." + bt.op.ID
		if bt.branch != "" {
			prefix += "." + bt.branch
		}
		for _, m := range append(schemaMutations(bt.schema, bt.location), otherKindMutations(bt, targets)...) {
			checks = append(checks, negativeCheck(bt, prefix+"."+m.name, m))
		}
	}
	return checks, nil
}

func negativeCheck(bt bodyTarget, id string, m mutation) *harness.Check {
	what := strings.ReplaceAll(m.name, ".", " ")
	op := bt.op
	return &harness.Check{
		ID: id, Category: harness.CategoryNegative, Covers: []string{op.ID}, Extension: bt.extension, Rule: harness.Rule{Pointer: m.rule},
		Doc: fmt.Sprintf("%s, naming %q", errorDoc(op.ID+" with "+what, api.CodeValidationFailed), m.pointer),
		Run: func(t *harness.T) {
			if bt.exampleErr != nil {
				t.Skip(bt.exampleErr.Error())
			}
			path := pathToExisting(t, op)
			body := t.FillExample(bt.example, nil)
			if _, ok := body["endpoint_id"]; ok && !strings.HasPrefix(m.name, "endpoint_id.") {
				existingEndpoint(t, body)
			}
			m.apply(body)
			ex := t.Do(op.Method, path, body, harness.InDocumentTerms())
			if ex.Status/100 == 2 && bt.cleanup != nil {
				// The target took the invalid body; remove what it made before failing the check.
				t.Do(bt.cleanup.Method, urlOf(bt.cleanup, ex.Str("/data/"+bt.cleanupParam)), nil, harness.InDocumentTerms())
			}
			t.ExpectError(ex, api.CodeValidationFailed, m.pointer)
		},
	}
}

// existingEndpoint points a body's endpoint_id (a resend's) at an endpoint of the merchant's, or leaves
// it out without the webhook-endpoint extension: the example's id names nothing on the target, and
// whether a body that breaks another rule is refused for it (400) or for the unknown id (404) first is
// not the document's business.
func existingEndpoint(t *harness.T, body map[string]any) {
	_, documented := t.Spec().Operation(api.OpCreateWebhookEndpoint().ID)
	if !documented || t.LacksExtension(harness.ExtensionWebhookEndpoints) {
		delete(body, "endpoint_id")
		return
	}
	body["endpoint_id"] = t.IdleEndpoint()
}

// requestBodyLocation is the JSON pointer of an operation's JSON request schema, or of the oneOf
// branch the discriminator value selects: the component its $ref names, else the inline schema.
func requestBodyLocation(op *openapi.Operation, branch string) string {
	inline := operationLocation(op) + "/requestBody/content/" + docedit.Escape(harness.JSONMediaType) + "/schema"
	mt, ok := openapi.OperationModel(op).RequestBody.Content.Get(harness.JSONMediaType)
	if !ok || mt.Schema == nil {
		return inline
	}
	if branch != "" {
		if ref, ok := mt.Schema.Schema().Discriminator.Mapping.Get(branch); ok {
			return ref
		}
	}
	if mt.Schema.IsReference() {
		return mt.Schema.GetReference()
	}
	return inline
}

// propertyLocation is the JSON pointer of property name of the schema at loc: the component its $ref
// names, else the property itself.
func propertyLocation(sch *base.Schema, loc, name string) string {
	if proxy := sch.Properties.GetOrZero(name); proxy != nil && proxy.IsReference() {
		return proxy.GetReference()
	}
	return loc + "/properties/" + docedit.Escape(name)
}

// schemaMutations derives, for an object schema: each required property dropped, each property's
// type swapped, each constraint (minimum, exclusiveMinimum, maximum, multipleOf, enum, pattern,
// minLength, maxLength, minItems, uniqueItems, item enum) broken, and an unknown property where
// additionalProperties is false. They are sorted by name, which the check ids are made of.
func schemaMutations(sch *base.Schema, loc string) []mutation {
	required := map[string]bool{}
	for _, r := range sch.Required {
		required[r] = true
	}
	var out []mutation
	for name := range sch.Properties.KeysFromOldest() {
		prop := sch.Properties.GetOrZero(name).Schema()
		if prop == nil {
			continue
		}
		if required[name] {
			out = append(out, mutation{name + ".missing", "/" + name, func(b map[string]any) { delete(b, name) }, loc + "/required"})
		}
		out = append(out, propertyMutations(name, prop, propertyLocation(sch, loc, name))...)
	}
	out = append(out, objectMutations(sch, loc)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// propertyMutations breaks one property's value: its type, then the constraints of its type.
func propertyMutations(name string, prop *base.Schema, loc string) []mutation {
	typ := ""
	if len(prop.Type) > 0 {
		typ = prop.Type[0]
	}
	var out []mutation
	if wrong, ok := wrongType[typ]; ok {
		out = append(out, setMutation(name, ".wrong-type", wrong, loc+"/type"))
	}
	if typ == "integer" {
		out = append(out, setMutation(name, ".not-integer", 1.5, loc+"/type"))
	}
	out = append(out, numberMutations(name, prop, loc)...)
	out = append(out, stringMutations(name, prop, loc)...)
	if typ == "array" {
		out = append(out, arrayMutations(name, prop, loc)...)
	}
	return out
}

// numberMutations step over each numeric bound: below the minimum, at the exclusive minimum, above the
// maximum, off a fractional multipleOf. Below the minimum is one step below it, the step being a
// fractional multipleOf where there is one (an amount of minimum 0.01 is sent as 0, the value a client
// most likely gets wrong), otherwise 1.
func numberMutations(name string, prop *base.Schema, loc string) []mutation {
	var out []mutation
	if prop.Minimum != nil {
		step := 1.0
		if prop.MultipleOf != nil && *prop.MultipleOf < 1 {
			step = *prop.MultipleOf
		}
		out = append(out, setMutation(name, ".below-minimum", *prop.Minimum-step, loc+"/minimum"))
	}
	if prop.ExclusiveMinimum != nil && prop.ExclusiveMinimum.IsB() {
		out = append(out, setMutation(name, ".at-exclusive-minimum", prop.ExclusiveMinimum.B, loc+"/exclusiveMinimum"))
	}
	if prop.Maximum != nil {
		out = append(out, setMutation(name, ".above-maximum", *prop.Maximum+1, loc+"/maximum"))
	}
	if prop.MultipleOf != nil && *prop.MultipleOf < 1 {
		out = append(out, setMutation(name, ".not-multiple", 1+*prop.MultipleOf/10, loc+"/multipleOf"))
	}
	return out
}

// stringMutations break the constraints a string value breaks: an enum ("not-a-valid-value"), a
// pattern (where breaksPattern finds a value that does) and the length bounds.
func stringMutations(name string, prop *base.Schema, loc string) []mutation {
	var out []mutation
	if len(prop.Enum) > 0 {
		out = append(out, setMutation(name, ".not-in-enum", "not-a-valid-value", loc+"/enum"))
	}
	if prop.Pattern != "" {
		if bad, ok := breaksPattern(prop.Pattern); ok {
			out = append(out, setMutation(name, ".pattern", bad, loc+"/pattern"))
		}
	}
	if prop.MinLength != nil && *prop.MinLength > 0 {
		out = append(out, setMutation(name, ".too-short", strings.Repeat("1", int(*prop.MinLength)-1), loc+"/minLength"))
	}
	if prop.MaxLength != nil {
		out = append(out, setMutation(name, ".too-long", strings.Repeat("1", int(*prop.MaxLength)+1), loc+"/maxLength"))
	}
	return out
}

// arrayMutations break an array property: too few items, an item outside the items' enum, and
// duplicates where uniqueItems is set (only for enum items, the one kind of item with a known valid
// value).
func arrayMutations(name string, prop *base.Schema, loc string) []mutation {
	var item *base.Schema
	itemLoc := loc + "/items"
	if prop.Items != nil && prop.Items.IsA() {
		item = prop.Items.A.Schema()
		if prop.Items.A.IsReference() {
			itemLoc = prop.Items.A.GetReference()
		}
	}
	var out []mutation
	if prop.MinItems != nil && *prop.MinItems > 0 {
		out = append(out, setMutation(name, ".too-few-items", []any{}, loc+"/minItems"))
	}
	if item != nil && len(item.Enum) > 0 {
		// The error may name the item (`/events/0`) or the list (`/events`): NamesField takes either.
		out = append(out, mutation{name + ".item-not-in-enum", "/" + name, setField(name, []any{"not-a-valid-value"}), itemLoc + "/enum"})
		if prop.UniqueItems != nil && *prop.UniqueItems {
			first := item.Enum[0].Value
			out = append(out, setMutation(name, ".duplicate-items", []any{first, first}, loc+"/uniqueItems"))
		}
	}
	return out
}

// otherKindMutations give a branch of a oneOf body (a bank payout) each property that only its sibling
// branches have (a mobile payout's momo_phone_number): a strict branch (additionalProperties false)
// refuses it. An unknown name ("unexpected_field") is refused by any strict decoder; a field of the
// other kind is what an implementation that validates the union as one loose object lets through.
func otherKindMutations(bt bodyTarget, targets []bodyTarget) []mutation {
	if bt.branch == "" || bt.schema.AdditionalProperties == nil || !bt.schema.AdditionalProperties.IsB() || bt.schema.AdditionalProperties.B {
		return nil
	}
	own := map[string]bool{}
	for name := range bt.schema.Properties.KeysFromOldest() {
		own[name] = true
	}
	// Each property with a value its own branch accepts (the sibling's example's), so that only its
	// being of the other kind can get it refused.
	values := map[string]any{}
	for _, sib := range targets {
		if sib.op != bt.op || sib.branch == bt.branch || sib.branch == "" {
			continue
		}
		var example map[string]any
		_ = json.Unmarshal(sib.example, &example)
		for name := range sib.schema.Properties.KeysFromOldest() {
			if _, seen := values[name]; !own[name] && !seen {
				values[name] = "x"
				if v, ok := example[name]; ok {
					values[name] = v
				}
			}
		}
	}
	var out []mutation
	for _, name := range slices.Sorted(maps.Keys(values)) {
		out = append(out, mutation{name + ".other-kind", "/" + name, setField(name, values[name]), bt.location + "/additionalProperties"})
	}
	return out
}

// objectMutations break the object as a whole: an unknown property where additionalProperties is
// false, and no property at all where minProperties asks for some.
func objectMutations(sch *base.Schema, loc string) []mutation {
	var out []mutation
	if sch.AdditionalProperties != nil && sch.AdditionalProperties.IsB() && !sch.AdditionalProperties.B {
		out = append(out, mutation{"unknown-field", "/unexpected_field", func(b map[string]any) { b["unexpected_field"] = "x" }, loc + "/additionalProperties"})
	}
	if sch.MinProperties != nil && *sch.MinProperties > 0 {
		out = append(out, mutation{"empty-object", "", func(b map[string]any) {
			for k := range b {
				delete(b, k)
			}
		}, loc + "/minProperties"})
	}
	return out
}

// setMutation sets property name to v; the error must name the property. suffix is the mutation's
// name after the property's (".too-long").
func setMutation(name, suffix string, v any, rule string) mutation {
	return mutation{name + suffix, "/" + name, setField(name, v), rule}
}

// setField returns a change that sets property name of a body to v.
func setField(name string, v any) func(map[string]any) {
	return func(b map[string]any) { b[name] = v }
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

// operationLocation is the JSON pointer of an operation in the document.
func operationLocation(op *openapi.Operation) string { return op.Pointer() }

// apiOperationLocation is operationLocation for an operation of package api (a path operation).
func apiOperationLocation(op api.Operation) string {
	return openapi.OperationPointer(op.Method, op.Path)
}

// securityRule is the security requirement an auth check enforces: the operation's own, else the
// document's default.
func securityRule(op *openapi.Operation) harness.Rule {
	if openapi.OperationModel(op).Security != nil {
		return harness.Rule{Pointer: operationLocation(op) + "/security"}
	}
	return harness.Rule{Pointer: "#/security"}
}

// derivedAuthChecks returns the auth matrix: for every operation, no keys and a wrong public key; for
// operations that need the secret key, also no secret key, a wrong one, and the two keys swapped.
func derivedAuthChecks(spec *openapi.Spec) []*harness.Check {
	var checks []*harness.Check
	for _, op := range harness.APIOperations(spec) {
		if len(op.KeyHeaders) == 0 {
			continue
		}
		needsSecret := slices.Contains(op.KeyHeaders[0], api.HeaderSecretKey)
		ext := harness.IsExtensionIn(op)
		req := authRequestFor(spec, op)
		add := func(name, doc string, code api.ErrorCode, opts func(t *harness.T) []harness.ReqOption) {
			checks = append(checks, &harness.Check{
				ID: "auth." + op.ID + "." + name, Category: harness.CategoryAuth, Covers: []string{op.ID}, Extension: ext, Rule: securityRule(op),
				Doc: fmt.Sprintf("%s %s is rejected with %d (code %d)", op.ID, doc, code.HTTPStatus(), code),
				Run: func(t *harness.T) {
					path, body := req.build(t)
					t.ExpectError(t.Do(op.Method, path, body, append(opts(t), harness.InDocumentTerms())...), code)
				},
			})
		}
		add("no-keys", "without any key header", api.CodeMissingAPIKey, func(*harness.T) []harness.ReqOption { return []harness.ReqOption{harness.WithoutKeys()} })
		add("wrong-public-key", "with an unknown public key", api.CodeInvalidAPIKey, func(t *harness.T) []harness.ReqOption {
			return []harness.ReqOption{harness.WithKeys(harness.Keys{Public: "pk_conform_unknown", Secret: t.Keys().Secret})}
		})
		if needsSecret {
			add("no-secret-key", "without the secret-key header", api.CodeMissingAPIKey, func(*harness.T) []harness.ReqOption {
				return []harness.ReqOption{harness.WithoutKeyHeader(api.HeaderSecretKey)}
			})
			add("wrong-secret-key", "with a wrong secret key", api.CodeInvalidAPIKey, func(t *harness.T) []harness.ReqOption {
				return []harness.ReqOption{harness.WithKeys(harness.Keys{Public: t.Keys().Public, Secret: "sk_conform_wrong"})}
			})
			add("keys-swapped", "with the public and secret keys swapped", api.CodeInvalidAPIKey, func(t *harness.T) []harness.ReqOption {
				k := t.Keys()
				return []harness.ReqOption{harness.WithKeys(harness.Keys{Public: k.Secret, Secret: k.Public})}
			})
		}
	}
	return checks
}

// authRequest is an otherwise valid request for one operation, built from the document, so that only
// the keys can be wrong with it: path parameters name an object that need not exist (auth comes
// first), required query parameters take their examples, and the body is the operation's request
// example.
type authRequest struct {
	query string // the required query parameters' examples, encoded
	path  string
	body  []byte // the request example; nil when the operation takes no body
	// missing says which example the document lacks; the checks skip with it instead of sending a
	// request that could be refused for another reason than its keys.
	missing error
}

func authRequestFor(spec *openapi.Spec, op *openapi.Operation) authRequest {
	ids := make([]string, len(pathParams(op.Path)))
	for i := range ids {
		ids[i] = harness.UnknownID
	}
	r := authRequest{path: urlOf(op, ids...)}
	query, qerr := requiredQueryExamples(spec, op)
	if query != "" {
		r.query = "?" + query
	}
	var berr error
	if openapi.OperationModel(op).RequestBody != nil {
		r.body, berr = harness.RequestExample(op, "")
		if berr != nil && (openapi.OperationModel(op).RequestBody.Required == nil || !*openapi.OperationModel(op).RequestBody.Required) {
			berr = nil // an optional body may be left out
		}
	}
	r.missing = errors.Join(qerr, berr)
	return r
}

// build returns the request's path and a body filled in for this run (see ExampleBody). The path
// names an id that does not exist: the document has keys checked first ("Keys are checked first"),
// and without a valid key pair there is no merchant whose object it could be.
func (r authRequest) build(t *harness.T) (string, any) {
	if r.missing != nil {
		t.Skip(r.missing.Error())
	}
	if r.body == nil {
		return r.path + r.query, nil
	}
	return r.path + r.query, t.FillExample(r.body, nil)
}

// requiredQueryExamples returns the required query parameters of op (its own and its path's) with the
// first example the document gives for each, encoded as a query string.
func requiredQueryExamples(spec *openapi.Spec, op *openapi.Operation) (string, error) {
	params := openapi.OperationModel(op).Parameters
	if openapi.Model(spec).Paths != nil {
		if item, ok := openapi.Model(spec).Paths.PathItems.Get(op.Path); ok && item != nil {
			params = append(slices.Clone(item.Parameters), params...)
		}
	}
	q := url.Values{}
	var errs []error
	for _, p := range params {
		if p == nil || p.In != "query" || p.Required == nil || !*p.Required {
			continue
		}
		v, ok := parameterExample(p)
		if !ok {
			errs = append(errs, fmt.Errorf("the document gives no example for the required query parameter %s of %s, "+
				"so the suite cannot build a valid request: add one to the parameter in openapi/malipo.yaml", p.Name, op.ID))
			continue
		}
		q.Set(p.Name, v)
	}
	return q.Encode(), errors.Join(errs...)
}

// parameterExample returns a parameter's first scalar example: `examples` in document order, then
// `example`.
func parameterExample(p *v3.Parameter) (string, bool) {
	var nodes []*yaml.Node
	for _, ex := range p.Examples.FromOldest() {
		if ex != nil {
			nodes = append(nodes, ex.Value)
		}
	}
	for _, n := range append(nodes, p.Example) {
		if n != nil && n.Kind == yaml.ScalarNode {
			return n.Value, true
		}
	}
	return "", false
}

// pathToExisting returns op's path with its path parameter naming an object made for this check (see
// pathObjects): a request that must be refused for its body should not be refused for a missing object.
// The owners' paths are read from the run's document, which may have moved them. It skips the check
// when no known object fits: the document has an operation on an object the suite cannot make (with
// the embedded document that is a bug of the suite, which TestEmbeddedSandboxConforms reports as a skip).
func pathToExisting(t *harness.T, op *openapi.Operation) string {
	params := pathParams(op.Path)
	if len(params) == 0 {
		return op.Path
	}
	for _, o := range pathObjects {
		owner, ok := t.Spec().Operation(o.owner().ID)
		if ok && len(params) == 1 && strings.HasPrefix(op.Path, objectPath(owner.Path)) {
			return urlOf(op, o.make(t))
		}
	}
	t.Skip(fmt.Sprintf("the suite cannot make an object for the path parameters %v of %s %s: add it to pathObjects in contracttests", params, op.Method, op.Path))
	return ""
}

// pathObjects are the objects a path parameter can name, each with the operation whose path names it
// and a way to make one for a check. The document does not say which operation creates what a path
// parameter names, so this is written here; any operation under one of these paths is covered.
var pathObjects = []struct {
	owner func() api.Operation
	make  func(t *harness.T) string
}{
	// A pending payment: completing it is the one thing its operations do.
	{api.OpCompletePayment, func(t *harness.T) string {
		_, hook := t.Hook()
		return t.InitPayment("", hook, nil).Str("/data/paymentReference")
	}},
	// A webhook endpoint that receives nothing, deleted when the check ends.
	{api.OpGetWebhookEndpoint, func(t *harness.T) string { return t.IdleEndpoint() }},
	// An event: a payment's payment.processing.
	{api.OpGetEvent, func(t *harness.T) string { return anEvent(t) }},
}

// objectPath is a path template up to the end of its first parameter (`/v1/webhooks/{id}`): the paths
// of every operation on that object start with it.
func objectPath(template string) string {
	if end := strings.IndexByte(template, '}'); end >= 0 {
		return template[:end+1]
	}
	return template
}

// pathParams returns the names of a path template's parameters, in order.
func pathParams(template string) []string {
	var names []string
	for _, m := range pathParam.FindAllStringSubmatch(template, -1) {
		names = append(names, m[1])
	}
	return names
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// urlOf expands op's path template with values, as api.Operation.URL does for the generated table; it
// takes the document's operation so that checks derived from a loaded copy of the document work too.
func urlOf(op *openapi.Operation, values ...string) string {
	return api.Operation{ID: op.ID, Method: op.Method, Path: op.Path}.URL(values...)
}
