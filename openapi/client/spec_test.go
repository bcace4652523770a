package client

// These tests tie the client's models, enums and operation table to openapi/malipo.yaml. The models
// are package api's wire types, generated from the document; the tests hold what the client builds on
// them (the payout kinds, the success envelope it decodes through, the types it defines on generated
// ones) to the document, and check that every example of the document decodes into the model the
// client uses for it without losing anything.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/internal/openapitest"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

func loadSpec(t *testing.T) *openapi.Spec {
	t.Helper()
	spec, err := openapi.Default()
	require.NoError(t, err)
	return spec
}

// schema returns the component schema name as the document writes it (a reference followed).
func schema(t *testing.T, name string) *yaml.Node {
	t.Helper()
	return openapitest.Embedded(t).At(t, "/components/schemas/"+name)
}

func specErrorStatuses(t *testing.T) map[int]int {
	t.Helper()
	statuses, err := loadSpec(t).ErrorStatuses()
	require.NoError(t, err)
	require.NotEmpty(t, statuses)
	return statuses
}

// TestOperationTableMatchesSpec checks the client's operations against the document's: the same
// operationIds, methods and paths, the secret-key header exactly where the security requires it, the
// public key everywhere, and the idempotency headers on every POST.
func TestOperationTableMatchesSpec(t *testing.T) {
	spec := loadSpec(t)
	var specIDs, clientIDs []string
	for _, op := range spec.Operations() {
		specIDs = append(specIDs, op.ID)
	}
	for _, op := range api.Operations() {
		clientIDs = append(clientIDs, op.ID)
	}
	require.ElementsMatch(t, specIDs, clientIDs, "the client must call every operation of the document and no other")

	for _, op := range api.Operations() {
		t.Run(op.ID, func(t *testing.T) {
			sop, ok := spec.Operation(op.ID)
			require.True(t, ok)
			assert.Equal(t, sop.Method, op.Method)
			assert.Equal(t, sop.Path, op.Path)
			require.NotEmpty(t, sop.KeyHeaders, "every operation is authenticated")
			for _, alternative := range sop.KeyHeaders {
				assert.Contains(t, alternative, api.HeaderPublicKey, "the client always sends the public key")
				assert.Equal(t, slices.Contains(alternative, api.HeaderSecretKey), op.Needs(api.HeaderSecretKey),
					"the client sends secret-key on %s iff the document's security requires it", op.ID)
				for _, h := range alternative {
					assert.Contains(t, []string{api.HeaderPublicKey, api.HeaderSecretKey}, h, "a key header the client does not know")
				}
			}
			doc := openapitest.Embedded(t)
			declared := doc.Operation(t, sop)
			var params []string
			for _, p := range openapitest.Items(openapitest.Member(declared, "parameters")) {
				var param struct{ In, Name string }
				openapitest.Decode(t, doc.Resolve(t, p), &param)
				params = append(params, param.In+":"+param.Name)
			}
			response := func(code string) *yaml.Node {
				return doc.Resolve(t, openapitest.Member(openapitest.Member(declared, "responses"), code))
			}
			if op.Method == http.MethodPost {
				assert.Contains(t, params, "header:"+api.HeaderIdempotencyKey, "every POST takes an Idempotency-Key")
				for code := range openapitest.Members(openapitest.Member(declared, "responses")) {
					if strings.HasPrefix(code, "2") {
						headers := openapitest.Keys(openapitest.Member(response(code), "headers"))
						assert.Contains(t, headers, api.HeaderIdempotentReplayed, "the %s response of %s declares %s", code, op.ID, api.HeaderIdempotentReplayed)
					}
				}
			} else {
				assert.NotContains(t, params, "header:"+api.HeaderIdempotencyKey)
			}
			if slices.Contains(sop.Responses, "429") {
				headers := openapitest.Keys(openapitest.Member(response("429"), "headers"))
				assert.Contains(t, headers, api.HeaderRetryAfter, "429 of %s declares %s", op.ID, api.HeaderRetryAfter)
			}
		})
	}
}

// TestEnumsMatchSpec checks every enum the client declares against the document's enum, in order, and
// (by parsing the package source) that every declared constant of an enum type is in its list.
func TestEnumsMatchSpec(t *testing.T) {
	spec := loadSpec(t)
	strs := func(vs ...any) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = fmt.Sprint(v)
		}
		return out
	}
	anys := func(s any) []any {
		v := reflect.ValueOf(s)
		out := make([]any, v.Len())
		for i := range out {
			out[i] = v.Index(i).Interface()
		}
		return out
	}
	enumOf := func(s *yaml.Node) []string {
		var out []string
		for _, n := range openapitest.Items(openapitest.Member(s, "enum")) {
			out = append(out, n.Value)
		}
		return out
	}
	prop := func(schemaName, property string) *yaml.Node {
		return openapitest.Embedded(t).At(t, "/components/schemas/"+schemaName+"/properties/"+property)
	}
	transactionStatuses := strs(anys(api.PaymentStatusValues())...)
	cases := []struct {
		where  string
		spec   []string
		client []string
	}{
		{"PaymentMethod", enumOf(schema(t, "PaymentMethod")), strs(anys(api.PaymentMethodValues())...)},
		{"PaymentStatus", enumOf(schema(t, "PaymentStatus")), strs(anys(api.PaymentStatusValues())...)},
		{"PayoutStatus", enumOf(schema(t, "PayoutStatus")), strs(anys(api.PayoutStatusValues())...)},
		{"TransferTo", enumOf(schema(t, "TransferTo")), strs(anys(api.TransferToValues())...)},
		{"FailureReason", enumOf(schema(t, "FailureReason")), strs(anys(api.FailureReasonValues())...)},
		{"EventType", enumOf(schema(t, "EventType")), strs(anys(api.EventTypeValues())...)},
		{"ErrorCode", enumOf(schema(t, "ErrorCode")), intStrs(api.ErrorCodes())},
		{"Transaction.type", enumOf(prop("Transaction", "type")), strs(anys(api.TransactionTypeValues())...)},
		{"Transaction.status", enumOf(prop("Transaction", "status")), transactionStatuses},
		{"BankPayoutRequest.transfer_to", enumOf(prop("BankPayoutRequest", "transfer_to")), []string{string(payoutKind(BankPayout{}))}},
		{"MobileMoneyPayoutRequest.transfer_to", enumOf(prop("MobileMoneyPayoutRequest", "transfer_to")), []string{string(payoutKind(MobilePayout{}))}},
		{"Error.status", enumOf(prop("Error", "status")), []string{"error"}},
		{"SuccessStatus", enumOf(schema(t, "SuccessStatus")), []string{"success"}},
		{"SuccessCode", enumOf(schema(t, "SuccessCode")), []string{"0"}},
	}
	for _, tc := range cases {
		require.NotEmpty(t, tc.spec, "%s has no enum in the document", tc.where)
		assert.Equal(t, tc.spec, tc.client, "%s: the client's values differ from the document's", tc.where)
	}
	// Event types in the enum, in the webhooks and in the event schemas agree.
	events := strs(anys(api.EventTypeValues())...)
	sorted := slices.Clone(events)
	sort.Strings(sorted)
	assert.Equal(t, spec.EventTypes(), sorted, "every event type has a webhook entry")
	for _, name := range []string{"PaymentEvent", "PayoutEvent"} {
		for _, e := range enumOf(prop(name, "type")) {
			assert.Contains(t, events, e, "%s.type", name)
		}
	}
}

func intStrs(codes []ErrorCode) []string {
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = strconv.Itoa(int(c))
	}
	return out
}

// models maps every object schema of the document to the type the client carries it in: package api's
// generated type (most through this package's aliases), or a type this package defines on one.
var models = map[string]reflect.Type{
	"PaymentInitRequest":            reflect.TypeFor[PaymentInitRequest](),
	"PaymentCompleteRequest":        reflect.TypeFor[PaymentCompleteRequest](),
	"Payment":                       reflect.TypeFor[Payment](),
	"BankPayoutRequest":             reflect.TypeFor[BankPayout](),
	"MobileMoneyPayoutRequest":      reflect.TypeFor[MobilePayout](),
	"Payout":                        reflect.TypeFor[Payout](),
	"Transaction":                   reflect.TypeFor[Transaction](),
	"Country":                       reflect.TypeFor[Country](),
	"Bank":                          reflect.TypeFor[Bank](),
	"WebhookEndpointCreateRequest":  reflect.TypeFor[WebhookEndpointCreateRequest](),
	"WebhookEndpointUpdateRequest":  reflect.TypeFor[WebhookEndpointUpdateRequest](),
	"RotateSecretRequest":           reflect.TypeFor[RotateSecretRequest](),
	"WebhookEndpoint":               reflect.TypeFor[WebhookEndpoint](),
	"WebhookEndpointWithSecret":     reflect.TypeFor[WebhookEndpointWithSecret](),
	"PaymentEvent":                  reflect.TypeFor[PaymentEvent](),
	"PayoutEvent":                   reflect.TypeFor[PayoutEvent](),
	"PaymentResponse":               reflect.TypeFor[api.PaymentResponse](),
	"PayoutResponse":                reflect.TypeFor[api.PayoutResponse](),
	"TransactionResponse":           reflect.TypeFor[api.TransactionResponse](),
	"CountryListResponse":           reflect.TypeFor[api.CountryListResponse](),
	"BankListResponse":              reflect.TypeFor[api.BankListResponse](),
	"WebhookEndpointResponse":       reflect.TypeFor[api.WebhookEndpointResponse](),
	"WebhookEndpointSecretResponse": reflect.TypeFor[api.WebhookEndpointSecretResponse](),
	"WebhookEndpointListResponse":   reflect.TypeFor[api.WebhookEndpointListResponse](),
	"FieldError":                    reflect.TypeFor[FieldError](),
	"ErrorData":                     reflect.TypeFor[api.ErrorData](),
	"Error":                         reflect.TypeFor[api.Error](),
	// Sandbox controls.
	"SandboxSettleRequest":               reflect.TypeFor[SandboxSettleRequest](),
	"SandboxDeliveryFailureRequest":      reflect.TypeFor[SandboxDeliveryFailureRequest](),
	"SandboxDeliveryFailure":             reflect.TypeFor[SandboxDeliveryFailure](),
	"SandboxDeliveryFailureResponse":     reflect.TypeFor[api.SandboxDeliveryFailureResponse](),
	"SandboxDeliveryFailureListResponse": reflect.TypeFor[api.SandboxDeliveryFailureListResponse](),
	"Event":                              reflect.TypeFor[Event](),
	"EventPage":                          reflect.TypeFor[EventPage](),
	"DeliveryDestination":                reflect.TypeFor[DeliveryDestination](),
	"DeliveryAttempt":                    reflect.TypeFor[DeliveryAttempt](),
	"ResendEventRequest":                 reflect.TypeFor[ResendEventRequest](),
	"EventResend":                        reflect.TypeFor[EventResend](),
	"EventListResponse":                  reflect.TypeFor[api.EventListResponse](),
	"EventResponse":                      reflect.TypeFor[api.EventResponse](),
	"DeliveryAttemptListResponse":        reflect.TypeFor[api.DeliveryAttemptListResponse](),
	"EventResendResponse":                reflect.TypeFor[api.EventResendResponse](),
}

// TestEndpointKeepsEveryField checks that WebhookEndpointWithSecret.Endpoint copies every field a
// WebhookEndpoint has, so that a field added to both schemas cannot be dropped by it, and that only the
// secret's fields are left behind.
func TestEndpointKeepsEveryField(t *testing.T) {
	var e WebhookEndpointWithSecret
	fillFields(t, reflect.ValueOf(&e).Elem())
	got := reflect.ValueOf(e.Endpoint())
	withSecret := reflect.ValueOf(e)
	var left []string
	for i := range withSecret.NumField() {
		name := withSecret.Type().Field(i).Name
		if _, ok := got.Type().FieldByName(name); !ok {
			left = append(left, name)
		}
	}
	assert.ElementsMatch(t, []string{"Secret", "PreviousSecretExpiresAt"}, left)
	for i := range got.NumField() {
		name := got.Type().Field(i).Name
		require.True(t, withSecret.FieldByName(name).IsValid(), "WebhookEndpointWithSecret has no %s", name)
		assert.Equal(t, withSecret.FieldByName(name).Interface(), got.Field(i).Interface(), "Endpoint() copies %s", name)
		assert.False(t, got.Field(i).IsZero(), "Endpoint() copies %s", name)
	}
}

// fillFields sets every field of a struct to a value that is not its zero value.
func fillFields(t *testing.T, v reflect.Value) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(time.Date(2026, 11, 21, 10, 15, i, 0, time.UTC)))
		case f.Kind() == reflect.Pointer && f.Type().Elem() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(ptr(time.Date(2026, 11, 21, 11, 15, i, 0, time.UTC))))
		case f.Kind() == reflect.String:
			f.SetString(fmt.Sprintf("value %d", i))
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.String:
			s := reflect.New(f.Type().Elem())
			s.Elem().SetString(fmt.Sprintf("value %d", i))
			f.Set(s)
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			s := reflect.MakeSlice(f.Type(), 1, 1)
			s.Index(0).SetString(fmt.Sprintf("value %d", i))
			f.Set(s)
		default:
			t.Fatalf("fillFields: no value for field %s of type %s; teach it", v.Type().Field(i).Name, f.Type())
		}
	}
}

// requestModels are the schemas the client sends, whose optional fields must be omitted when unset.
var requestModels = []string{"PaymentInitRequest", "PaymentCompleteRequest", "BankPayoutRequest", "MobileMoneyPayoutRequest",
	"WebhookEndpointCreateRequest", "WebhookEndpointUpdateRequest", "RotateSecretRequest", "ResendEventRequest"}

// TestModelsMatchSchemas checks that every object schema has a model whose JSON fields are exactly
// the schema's properties, recursively, and that request models send their required fields and omit
// unset optional ones (an empty optional string would break minLength or a pattern).
func TestModelsMatchSchemas(t *testing.T) {
	doc := openapitest.Embedded(t)
	for name := range openapitest.Members(doc.At(t, "/components/schemas")) {
		s := schema(t, name)
		switch {
		case openapitest.Member(s, "oneOf") != nil:
			checkPayoutUnion(t, name, s)
		case len(openapitest.Keys(openapitest.Member(s, "properties"))) > 0:
			typ, ok := models[name]
			if !assert.True(t, ok, "schema %s has no client model; add one and list it in models", name) {
				continue
			}
			compareFields(t, name, s, typ)
		}
	}
	for _, name := range requestModels {
		var s struct {
			Required             []string
			AdditionalProperties any `yaml:"additionalProperties"`
		}
		openapitest.Decode(t, schema(t, name), &s)
		zero := reflect.New(models[name]).Elem().Interface()
		b, err := json.Marshal(zero)
		require.NoError(t, err)
		var keys map[string]any
		require.NoError(t, json.Unmarshal(b, &keys))
		assert.ElementsMatch(t, s.Required, slices.Collect(maps.Keys(keys)),
			"%s: a zero request must carry exactly the required fields (%s)", name, b)
		closed := s.AdditionalProperties == false
		assert.True(t, closed, "%s: request schemas are closed (additionalProperties: false), so the strict decode covers them", name)
	}
}

// checkPayoutUnion checks the payout oneOf: its discriminator maps each TransferTo to the schema whose
// model reports that kind.
func checkPayoutUnion(t *testing.T, name string, s *yaml.Node) {
	t.Helper()
	require.Equal(t, "PayoutRequest", name, "a new oneOf schema needs a model")
	discriminator := openapitest.Member(s, "discriminator")
	require.NotNil(t, discriminator)
	assert.Equal(t, "transfer_to", openapitest.Member(discriminator, "propertyName").Value)
	var kinds []string
	for kind, refNode := range openapitest.Members(openapitest.Member(discriminator, "mapping")) {
		ref := refNode.Value
		kinds = append(kinds, kind)
		model, ok := models[strings.TrimPrefix(ref, "#/components/schemas/")]
		require.True(t, ok, "%s has no model", ref)
		pr, ok := reflect.New(model).Elem().Interface().(PayoutRequest)
		require.True(t, ok, "%s is a PayoutRequest", model)
		assert.Equal(t, TransferTo(kind), payoutKind(pr))
	}
	assert.Equal(t, []string{string(api.TransferToBank), string(api.TransferToMobileNumber)}, kinds)
}

// compareFields asserts that typ's JSON fields equal schema's properties, and recurses into nested
// objects and arrays of objects.
func compareFields(t *testing.T, where string, s *yaml.Node, typ reflect.Type) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if !assert.Equal(t, reflect.Struct, typ.Kind(), "%s: the model of an object must be a struct, not %s", where, typ) {
		return
	}
	fields := jsonFields(typ)
	props := openapitest.Keys(openapitest.Member(s, "properties"))
	var names []string
	for n := range fields {
		names = append(names, n)
	}
	assert.ElementsMatch(t, props, names, "%s: the schema's properties and %s's JSON fields differ", where, typ)
	doc := openapitest.Embedded(t)
	hasProperties := func(s *yaml.Node) bool { return len(openapitest.Keys(openapitest.Member(s, "properties"))) > 0 }
	for p, ps := range openapitest.Members(openapitest.Member(s, "properties")) {
		ft, ok := fields[p]
		if !ok {
			continue
		}
		ps = doc.Resolve(t, ps)
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		items := openapitest.Member(ps, "items")
		if items != nil && items.Kind == yaml.MappingNode {
			items = doc.Resolve(t, items)
		} else {
			items = nil // absent, or `items: false`
		}
		switch {
		case openapitest.Member(ps, "additionalProperties") != nil && openapitest.Member(ps, "additionalProperties").Value == "true":
			// An object open to members the document does not declare (an event's payload, whose shape
			// depends on its type, a type added later included) is the JSON as received.
			assert.Equal(t, reflect.TypeFor[json.RawMessage](), ft, "%s.%s: an open object is kept as raw JSON", where, p)
		case hasProperties(ps):
			compareFields(t, where+"."+p, ps, ft)
		case items != nil:
			if hasProperties(items) && assert.Equal(t, reflect.Slice, ft.Kind(), "%s.%s", where, p) {
				compareFields(t, where+"."+p+"[]", items, ft.Elem())
			}
		}
	}
}

// jsonFields returns the JSON names of a struct's encoded fields (embedded structs flattened).
func jsonFields(typ reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case f.Anonymous && name == "":
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		case name == "":
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// TestSpecExamplesDecodeIntoModels decodes every example of the document — schema examples, request
// and response bodies of every operation, webhook bodies — into its client model with unknown fields
// disallowed, re-encodes the model, and checks that nothing of the example was lost or changed.
func TestSpecExamplesDecodeIntoModels(t *testing.T) {
	spec := loadSpec(t)
	requestOf := map[string]reflect.Type{
		"initializePayment":            models["PaymentInitRequest"],
		"completePayment":              models["PaymentCompleteRequest"],
		"processPayout":                reflect.TypeFor[PayoutRequest](),
		"createWebhookEndpoint":        models["WebhookEndpointCreateRequest"],
		"updateWebhookEndpoint":        models["WebhookEndpointUpdateRequest"],
		"rotateWebhookEndpointSecret":  models["RotateSecretRequest"],
		"resendEvent":                  models["ResendEventRequest"],
		"settleSandboxPayment":         models["SandboxSettleRequest"],
		"settleSandboxPayout":          models["SandboxSettleRequest"],
		"createSandboxDeliveryFailure": models["SandboxDeliveryFailureRequest"],
	}
	successOf := map[string]reflect.Type{
		"initializePayment":            models["PaymentResponse"],
		"completePayment":              models["PaymentResponse"],
		"getTransactionStatus":         models["TransactionResponse"],
		"processPayout":                models["PayoutResponse"],
		"getPayout":                    models["PayoutResponse"],
		"listCountries":                models["CountryListResponse"],
		"listBanks":                    models["BankListResponse"],
		"createWebhookEndpoint":        models["WebhookEndpointSecretResponse"],
		"listWebhookEndpoints":         models["WebhookEndpointListResponse"],
		"getWebhookEndpoint":           models["WebhookEndpointResponse"],
		"updateWebhookEndpoint":        models["WebhookEndpointResponse"],
		"deleteWebhookEndpoint":        nil, // 204, no body
		"rotateWebhookEndpointSecret":  models["WebhookEndpointSecretResponse"],
		"listEvents":                   models["EventListResponse"],
		"getEvent":                     models["EventResponse"],
		"listEventAttempts":            models["DeliveryAttemptListResponse"],
		"resendEvent":                  models["EventResendResponse"],
		"settleSandboxPayment":         models["PaymentResponse"],
		"settleSandboxPayout":          models["PayoutResponse"],
		"createSandboxDeliveryFailure": models["SandboxDeliveryFailureResponse"],
		"listSandboxDeliveryFailures":  models["SandboxDeliveryFailureListResponse"],
		"deleteSandboxDeliveryFailure": nil, // 204, no body
	}
	walked := 0
	check := func(where string, typ reflect.Type, example []byte) {
		t.Helper()
		walked++
		t.Run(where, func(t *testing.T) { roundTrip(t, typ, example) })
	}

	doc := openapitest.Embedded(t)
	for name := range openapitest.Members(doc.At(t, "/components/schemas")) {
		typ, ok := models[name]
		if !ok {
			if name == "PayoutRequest" {
				typ = reflect.TypeFor[PayoutRequest]()
			} else {
				continue // scalars and enums: covered by TestEnumsMatchSpec
			}
		}
		for i, ex := range openapitest.Items(openapitest.Member(schema(t, name), "examples")) {
			check(fmt.Sprintf("#/components/schemas/%s/examples/%d", name, i), typ, openapitest.JSON(t, ex))
		}
	}
	for _, op := range spec.Operations() {
		reqType, hasReq := requestOf[op.ID]
		okType, known := successOf[op.ID]
		require.True(t, known, "operation %s has no response model in this test", op.ID)
		declared := doc.Operation(t, op)
		if rb := openapitest.Member(declared, "requestBody"); rb != nil {
			require.True(t, hasReq, "operation %s has a request body but no request model in this test", op.ID)
			for where, ex := range mediaExamples(t, doc.Resolve(t, rb)) {
				check(op.ID+" request "+where, reqType, ex)
			}
		}
		for code, resp := range openapitest.Members(openapitest.Member(declared, "responses")) {
			typ := models["Error"]
			if strings.HasPrefix(code, "2") {
				typ = okType
			}
			for where, ex := range mediaExamples(t, doc.Resolve(t, resp)) {
				require.NotNil(t, typ, "%s %s has a body but no model", op.ID, code)
				check(op.ID+" "+code+" "+where, typ, ex)
			}
		}
	}
	for eventType := range openapitest.Members(doc.At(t, "/webhooks")) {
		typ := models["PaymentEvent"]
		if strings.HasPrefix(eventType, "payout.") {
			typ = models["PayoutEvent"]
		}
		for where, ex := range mediaExamples(t, doc.At(t, "/webhooks/"+eventType+"/post/requestBody")) {
			check("webhook "+eventType+" "+where, typ, ex)
		}
	}
	assert.Greater(t, walked, 60, "the walk found the document's examples")
}

// mediaExamples returns the JSON examples of a request body's or a response's application/json content
// (`example` and every `examples` entry, a referenced example followed).
func mediaExamples(t *testing.T, bodyOrResponse *yaml.Node) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	mt := openapitest.Member(openapitest.Member(bodyOrResponse, "content"), "application/json")
	if mt == nil {
		return out
	}
	if ex := openapitest.Member(mt, "example"); ex != nil {
		out["example"] = openapitest.JSON(t, ex)
	}
	for name, value := range openapitest.Embedded(t).NamedExamples(t, mt) {
		out["examples/"+name] = value
	}
	return out
}

// roundTrip decodes example strictly into typ and re-encodes it; every member of the example must
// come back with the same value (an omitted empty value counts as the same).
func roundTrip(t *testing.T, typ reflect.Type, example []byte) {
	t.Helper()
	var model any
	if payout := reflect.TypeFor[PayoutRequest](); typ == payout || typ.Implements(payout) {
		model = decodePayout(t, example)
		if typ != payout {
			require.Equal(t, typ, reflect.TypeOf(model), "transfer_to of %s", example)
		}
	} else {
		ptr := reflect.New(typ)
		dec := json.NewDecoder(bytes.NewReader(example))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(ptr.Interface()), "decode %s into %s: a field of the document is unknown to the model, or has another type", example, typ)
		model = ptr.Elem().Interface()
	}
	again, err := json.Marshal(model)
	require.NoError(t, err)
	var want, got any
	require.NoError(t, decodeNumbers(example, &want))
	require.NoError(t, decodeNumbers(again, &got))
	assertSubset(t, "", want, got)
}

// decodePayout decodes a payout request into the model its transfer_to selects, and checks that
// ProcessPayout would send the same transfer_to for that model.
func decodePayout(t *testing.T, example []byte) PayoutRequest {
	t.Helper()
	var head struct {
		TransferTo TransferTo `json:"transfer_to"`
	}
	require.NoError(t, json.Unmarshal(example, &head))
	dec := json.NewDecoder(bytes.NewReader(example))
	dec.DisallowUnknownFields()
	var p PayoutRequest
	switch head.TransferTo {
	case api.TransferToBank:
		var bank BankPayout
		require.NoError(t, dec.Decode(&bank))
		p = bank
	case api.TransferToMobileNumber:
		var mobile MobilePayout
		require.NoError(t, dec.Decode(&mobile))
		p = mobile
	}
	if p != nil {
		assert.Equal(t, head.TransferTo, payoutKind(p))
		sent, v := payoutBody(p)
		assert.Empty(t, v.errs, "%s", example)
		assert.Equal(t, p, sent, "the body ProcessPayout sends for %s", example)
		return p
	}
	require.Failf(t, "unknown transfer_to", "%q", head.TransferTo)
	return nil
}

func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

func assertSubset(t *testing.T, path string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !assert.True(t, ok, "%s: want an object, got %v", path, got) {
			return
		}
		for k, wv := range w {
			gv, present := g[k]
			if !present {
				assert.True(t, isEmpty(wv), "%s/%s: %v was lost by the model", path, k, wv)
				continue
			}
			assertSubset(t, path+"/"+k, wv, gv)
		}
	case []any:
		g, ok := got.([]any)
		if !assert.True(t, ok && len(g) == len(w), "%s: want %v, got %v", path, want, got) {
			return
		}
		for i := range w {
			assertSubset(t, path+"/"+strconv.Itoa(i), w[i], g[i])
		}
	default:
		assert.Equal(t, want, got, path)
	}
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}
