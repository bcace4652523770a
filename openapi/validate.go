package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

const jsonMediaType = "application/json"

// ValidateRequest checks an incoming or outgoing request against the operation its method and path
// route to: key headers, parameters, content type and body. The body stays readable afterwards.
func (s *Spec) ValidateRequest(r *http.Request) Violations {
	op, vs := s.route(r)
	if op == nil {
		return vs
	}
	body, err := readBody(&r.Body)
	if err != nil {
		return Violations{{Operation: op.ID, In: InBody, Message: err.Error()}}
	}
	vs = s.checkSecurity(op, r.Header)
	if len(vs) == 0 && s.fastPath && op.fast.acceptsRequest(r, body) {
		return nil
	}
	errs := runValidator(s, op, r)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return append(vs, convert(s, op, requestSchema(OperationModel(op)), requestSchemaLocation(op), body, errs)...)
}

// ValidateParsed checks a request that the caller has already routed to op (Route) and
// authenticated, and whose body it has decoded once into value (as encoding/json decodes into any,
// with or without UseNumber); body holds the same bytes, nil when there was none. Key headers are not
// checked again, and a request the fast path accepts is neither routed nor parsed again. Any other
// request goes to libopenapi-validator, which reads the body itself to explain what is wrong: that
// second parse happens only on the way to a 400.
func (s *Spec) ValidateParsed(op *Operation, r *http.Request, body []byte, value any) Violations {
	if s.fastPath && op.fast.acceptsParsed(r, value, body != nil) {
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	errs := runValidator(s, op, r)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return convert(s, op, requestSchema(OperationModel(op)), requestSchemaLocation(op), body, errs)
}

// runValidator runs libopenapi-validator on a request, around two inputs that made v0.14.0 panic (v0.16.2
// no longer does, checked on upgrading; the handling stays because it reports them better):
//   - A URL fragment is never sent, so it is dropped before the validator reads the path.
//   - A Content-Type without a subtype ("application") is validated as if the request had none, and
//     the malformed value is reported by name.
func runValidator(s *Spec, op *Operation, r *http.Request) []*liberrors.ValidationError {
	if r.URL.Fragment != "" || r.URL.RawFragment != "" {
		r = r.Clone(r.Context())
		r.URL.Fragment, r.URL.RawFragment = "", ""
	}
	var malformed *liberrors.ValidationError
	if ct := r.Header.Get("Content-Type"); ct != "" && op.HasBody {
		if mediaType, _, _ := mime.ParseMediaType(ct); !strings.Contains(mediaType, "/") {
			malformed = &liberrors.ValidationError{
				ValidationType: helpers.RequestBodyValidation, ValidationSubType: helpers.RequestBodyContentType,
				Message: fmt.Sprintf("Content-Type %q cannot be read as a media type (type/subtype); send application/json", ct),
			}
			r = r.Clone(r.Context())
			r.Header.Del("Content-Type")
		}
	}
	_, errs := libOf(s).validator.ValidateHttpRequestSyncWithPathItem(r, pathItemOf(op), op.Path)
	if malformed != nil {
		// Without a Content-Type the validator may report its absence; the malformed value says more.
		errs = append(slices.DeleteFunc(errs, isContentTypeError), malformed)
	}
	return errs
}

// isContentTypeError reports whether a validator error is about the Content-Type of a message.
func isContentTypeError(e *liberrors.ValidationError) bool {
	return e.ValidationSubType == helpers.RequestBodyContentType || strings.Contains(e.ValidationSubType, "contentType") ||
		strings.Contains(strings.ToLower(e.Message), "content type")
}

func requestSchemaLocation(op *Operation) string {
	return op.location + "/requestBody/content/application~1json/schema"
}

func responseSchemaLocation(op *Operation, key string) string {
	return op.location + "/responses/" + key + "/content/application~1json/schema"
}

// ValidateResponse checks a response against the operation its request routes to: the status code is
// documented, and the headers and body match what is documented for it. The body stays readable.
func (s *Spec) ValidateResponse(r *http.Request, resp *http.Response) Violations {
	op, vs := s.route(r)
	if op == nil {
		return vs
	}
	body, err := readBody(&resp.Body)
	if err != nil {
		return Violations{{Operation: op.ID, In: InBody, Message: err.Error()}}
	}
	if s.fastPath && op.fast.acceptsResponse(resp.StatusCode, resp.Header, body) {
		return nil
	}
	_, errs := libOf(s).validator.GetResponseBodyValidator().ValidateResponseBodyWithPathItem(r, resp, pathItemOf(op), op.Path)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	checks, key := op.fast.response(resp.StatusCode)
	if key == "" {
		key = strconv.Itoa(resp.StatusCode)
	}
	vs = append(vs, convert(s, op, responseSchema(OperationModel(op), key), responseSchemaLocation(op, key), body, errs)...)
	if len(errs) == 0 {
		vs = append(vs, op.missingBody(checks, key, resp.Header, body)...)
	}
	return append(vs, op.headerViolations(checks, key, resp.Header)...)
}

// headerViolations reports optional response headers whose value does not match their schema:
// libopenapi-validator checks only required ones, so `Idempotent-Replayed: yes` would pass.
// resp and key are the compiled checks and the key of the documented response (resp may be nil).
func (op *Operation) headerViolations(resp *fastResponse, key string, header http.Header) Violations {
	if resp == nil {
		return nil
	}
	var out Violations
	for _, h := range resp.optional {
		for _, v := range headerValues(header, h.name) {
			if !h.valid(v) {
				out = append(out, Violation{Operation: op.ID, In: InHeader, Pointer: "header." + strings.ToLower(h.name),
					Message:      fmt.Sprintf("the %s header is %q, which its documented schema (type %s) does not allow", h.name, v, h.typ),
					SpecLocation: op.location + "/responses/" + key + "/headers/" + docedit.Escape(h.name)})
			}
		}
	}
	return out
}

// missingBody reports a response whose documented JSON body is empty or null. libopenapi-validator
// skips the schema when nothing decodes, so without this an implementation that answers 201 with no
// body at all would pass. Whether the schema allows null is asked of the compiled check (the validator
// cannot be asked: it skips null too); where there is none, nothing is reported.
func (op *Operation) missingBody(resp *fastResponse, key string, header http.Header, body []byte) Violations {
	if resp == nil || !resp.hasJSON || resp.check == nil || !isJSON(header.Get("Content-Type")) {
		return nil
	}
	loc := responseSchemaLocation(op, key)
	switch trimmed := bytes.TrimSpace(body); {
	case len(trimmed) == 0:
		return Violations{{Operation: op.ID, In: InBody, SpecLocation: loc,
			Message: fmt.Sprintf("the body is empty, but status %s documents a JSON body", key)}}
	case string(trimmed) == "null":
		if !resp.check.Valid(nil) {
			return Violations{{Operation: op.ID, In: InBody, SpecLocation: loc,
				Message: fmt.Sprintf("the body is null, which the schema documented for status %s does not allow", key)}}
		}
	}
	return nil
}

// ValidateWebhook checks one webhook delivery, its headers and its body, against the document's
// `webhooks` entry for eventType. It does not verify signatures: that is the webhook package's job.
func (s *Spec) ValidateWebhook(eventType string, header http.Header, body []byte) Violations {
	op, ok := s.webhooks[eventType]
	if !ok {
		return Violations{{In: InRoute, Message: fmt.Sprintf("event type %q is not declared under webhooks (declared: %s): %v",
			eventType, strings.Join(s.EventTypes(), ", "), errNoSuchWebhook)}}
	}
	if s.fastPath && op.fast.acceptsDelivery(header, body) {
		return nil
	}
	// The validator works on requests; a delivery is a POST of body with header to the receiver.
	req, err := http.NewRequest(http.MethodPost, "http://receiver.invalid/", bytes.NewReader(body))
	if err != nil {
		return Violations{{Operation: op.ID, In: InRoute, Message: err.Error()}}
	}
	req.Header = header.Clone()
	return convert(s, op, requestSchema(OperationModel(op)), requestSchemaLocation(op), body, runValidator(s, op, req))
}

// route finds the operation of a request, or explains why there is none.
func (s *Spec) route(r *http.Request) (*Operation, Violations) {
	op, _, allowed := s.Route(r.Method, r.URL.Path)
	if op != nil {
		return op, nil
	}
	if len(allowed) > 0 {
		return nil, Violations{{In: InRoute, Message: fmt.Sprintf("%s is not allowed on %s; allowed: %s",
			r.Method, r.URL.Path, strings.Join(allowed, ", "))}}
	}
	return nil, Violations{{In: InRoute, Message: fmt.Sprintf("no operation is documented for %s %s", r.Method, r.URL.Path)}}
}

// checkSecurity reports the key headers an operation needs that the request lacks. With alternative
// requirements, the request passes when one of them is met; otherwise the first one is reported.
func (s *Spec) checkSecurity(op *Operation, h http.Header) Violations {
	var first Violations
	for i, alternative := range op.KeyHeaders {
		var missing Violations
		for _, name := range alternative {
			if strings.TrimSpace(h.Get(name)) == "" {
				missing = append(missing, Violation{
					Operation: op.ID, In: InHeader, Pointer: "header." + name,
					Message:      fmt.Sprintf("the %s header is required by %s", name, op.ID),
					SpecLocation: op.location + "/security",
				})
			}
		}
		if len(missing) == 0 {
			return nil
		}
		if i == 0 {
			first = missing
		}
	}
	return first
}

// convert turns libopenapi-validator errors into Violations whose pointers name the offending field.
func convert(s *Spec, op *Operation, schema *base.SchemaProxy, schemaLoc string, body []byte, errs []*liberrors.ValidationError) Violations {
	var out Violations
	for _, e := range errs {
		if s.reword != nil {
			s.reword(e)
		}
		switch {
		case e.ValidationType == helpers.PathValidation:
			out = append(out, Violation{Operation: op.ID, In: InRoute, Message: e.Message})
		case e.ValidationType == helpers.ParameterValidation || e.ParameterName != "":
			out = append(out, paramViolations(op, e)...)
		case isContentTypeError(e):
			out = append(out, Violation{Operation: op.ID, In: InHeader, Pointer: "header.content-type",
				Message: firstNonEmpty(e.Reason, e.Message), SpecLocation: op.location})
		case e.ValidationSubType == helpers.ResponseBodyResponseCode:
			out = append(out, Violation{Operation: op.ID, In: InStatus, Message: firstNonEmpty(e.Reason, e.Message),
				SpecLocation: op.location + "/responses"})
		case len(e.SchemaValidationErrors) == 0:
			out = append(out, Violation{Operation: op.ID, In: InBody, Message: firstNonEmpty(e.Reason, e.Message)})
		default:
			out = append(out, bodyViolations(op, schema, schemaLoc, body, e.SchemaValidationErrors)...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

func paramViolations(op *Operation, e *liberrors.ValidationError) Violations {
	in := e.ValidationSubType
	switch in {
	case helpers.ParameterValidationPath, helpers.ParameterValidationQuery, helpers.ParameterValidationHeader:
	default:
		in = InHeader
	}
	// The validator names the parameter in ParameterName; without it the pointer names only where the
	// parameter was (never a name read out of the message, whose wording is not an interface).
	name := e.ParameterName
	if in == InHeader {
		name = strings.ToLower(name)
	}
	v := Violation{Operation: op.ID, In: in, Pointer: in, SpecLocation: op.location + "/parameters"}
	if name != "" {
		v.Pointer, v.SpecLocation = in+"."+name, op.location+"/parameters/"+docedit.Escape(name)
	}
	if len(e.SchemaValidationErrors) == 0 {
		v.Message = firstNonEmpty(e.Reason, e.Message)
		return Violations{v}
	}
	out := make(Violations, 0, len(e.SchemaValidationErrors))
	for _, f := range e.SchemaValidationErrors {
		v.Message = f.Reason
		out = append(out, v)
	}
	return out
}

// bodyViolations maps schema failures to field pointers. For a `oneOf` with a discriminator, only the
// failures of the branch the discriminator selects are kept: the validator reports every branch's.
func bodyViolations(op *Operation, schema *base.SchemaProxy, schemaLoc string, body []byte, failures []*liberrors.SchemaValidationFailure) Violations {
	var branchPrefix string
	if schema != nil {
		if sch := schema.Schema(); sch != nil && sch.Discriminator != nil && len(sch.OneOf) > 0 {
			prefix, v := selectBranch(sch, body)
			if v != nil {
				v.Operation = op.ID
				v.SpecLocation = schemaLoc + "/discriminator"
				return Violations{*v}
			}
			branchPrefix = prefix
		}
	}
	if branchPrefix != "" && !slices.ContainsFunc(failures, func(f *liberrors.SchemaValidationFailure) bool {
		return strings.HasPrefix(f.KeywordLocation, branchPrefix)
	}) {
		branchPrefix = "" // the selected branch passed: the failures elsewhere are the whole story
	}
	var out Violations
	instance := lazyInstance{body: body}
	for _, f := range failures {
		if branchPrefix != "" && !strings.HasPrefix(f.KeywordLocation, branchPrefix) {
			continue
		}
		loc, at := specLocation(schema, schemaLoc, f.KeywordLocation)
		parent := pointerOf(f.InstancePath)
		keyword := f.KeywordLocation[strings.LastIndex(f.KeywordLocation, "/")+1:]
		switch {
		case at != nil && at.Format == "password":
			// The validator quotes the value ("'whsec_…' does not match pattern …"); a secret sent by
			// mistake must not travel on in an error body, a log or a report.
			out = append(out, Violation{Operation: op.ID, In: InBody, Pointer: parent, Message: secretMessage(keyword, f.Reason), SpecLocation: loc})
			continue
		}
		switch keyword {
		case "required", "additionalProperties", "unevaluatedProperties":
			// The names are found from the schema and the instance, never in the validator's message:
			// its wording changes from release to release, and a pointer must not change with it.
			names, message := missingMembers(at, instance.at(f.InstancePath)), "required property is missing"
			if keyword != "required" {
				names, message = unexpectedMembers(at, instance.at(f.InstancePath)), "property is not allowed here"
			}
			if len(names) == 0 {
				// The walk lost the schema or the instance: point at the object, in the validator's words.
				out = append(out, Violation{Operation: op.ID, In: InBody, Pointer: parent, Message: f.Reason, SpecLocation: loc})
			}
			for _, name := range names {
				out = append(out, Violation{Operation: op.ID, In: InBody, Pointer: parent + "/" + docedit.Escape(name),
					Message: message, SpecLocation: loc})
			}
		case "oneOf", "anyOf", "allOf":
			// Summaries of nested failures, which are reported on their own.
			if len(failures) == 1 {
				out = append(out, Violation{Operation: op.ID, In: InBody, Pointer: parent, Message: f.Reason, SpecLocation: loc})
			}
		default:
			out = append(out, Violation{Operation: op.ID, In: InBody, Pointer: parent, Message: f.Reason, SpecLocation: loc})
		}
	}
	return out
}

// selectBranch returns the keyword-location prefix of the oneOf branch that the discriminator value in
// body selects, or a Violation on the discriminator property when it is missing or unknown.
func selectBranch(sch *base.Schema, body []byte) (string, *Violation) {
	prop := sch.Discriminator.PropertyName
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return "", nil // not an object: the type failure is reported as it is
	}
	var mapped []string
	if sch.Discriminator.Mapping != nil {
		for k := range sch.Discriminator.Mapping.KeysFromOldest() {
			mapped = append(mapped, k)
		}
	}
	raw, ok := fields[prop]
	if !ok {
		return "", &Violation{In: InBody, Pointer: "/" + docedit.Escape(prop),
			Message: fmt.Sprintf("required property is missing; must be one of: %s", strings.Join(mapped, ", "))}
	}
	var value string
	if json.Unmarshal(raw, &value) != nil || sch.Discriminator.Mapping == nil {
		return "", &Violation{In: InBody, Pointer: "/" + docedit.Escape(prop),
			Message: fmt.Sprintf("must be a string, one of: %s", strings.Join(mapped, ", "))}
	}
	ref, ok := sch.Discriminator.Mapping.Get(value)
	if !ok {
		return "", &Violation{In: InBody, Pointer: "/" + docedit.Escape(prop),
			Message: fmt.Sprintf("%q is not one of: %s", value, strings.Join(mapped, ", "))}
	}
	for i, branch := range sch.OneOf {
		if branch.GetReference() == ref {
			return "/oneOf/" + strconv.Itoa(i) + "/", nil
		}
	}
	return "", nil
}

// secretMessage says what is wrong with a value whose schema is `format: password` without quoting
// it: the validator's own words only for a wrong type, which names types and no value.
func secretMessage(keyword, reason string) string {
	const notShown = " (the value is not repeated: it is a secret)"
	switch keyword {
	case "type":
		return reason
	case "pattern":
		return "does not have the documented form" + notShown
	case "minLength":
		return "is shorter than documented" + notShown
	case "maxLength":
		return "is longer than documented" + notShown
	default:
		return "breaks the documented " + keyword + notShown
	}
}

// specLocation resolves a keyword location relative to a schema (`/oneOf/0/$ref/required`) to a
// pointer into the document (`#/components/schemas/BankPayoutRequest/required`), following $refs,
// and returns the schema the keyword belongs to (nil when the walk lost it).
func specLocation(root *base.SchemaProxy, rootLoc, keywordLocation string) (string, *base.Schema) {
	loc, p := rootLoc, root
	var at *base.Schema
	segs := strings.Split(strings.TrimPrefix(keywordLocation, "/"), "/")
	for i := 0; i < len(segs); i++ {
		seg := segs[i]
		var sch *base.Schema
		if p != nil {
			sch = p.Schema()
		}
		at = sch
		switch {
		case seg == "$ref" && p != nil && p.IsReference():
			loc = p.GetReference()
		case (seg == "properties") && i+1 < len(segs) && sch != nil && sch.Properties != nil:
			i++
			p = sch.Properties.GetOrZero(docedit.Unescape(segs[i]))
			loc += "/properties/" + segs[i]
		case (seg == "oneOf" || seg == "anyOf" || seg == "allOf") && i+1 < len(segs) && sch != nil:
			i++
			n, _ := strconv.Atoi(segs[i])
			p = nthProxy(sch, seg, n)
			loc += "/" + seg + "/" + segs[i]
		case seg == "items" && sch != nil && sch.Items != nil && sch.Items.IsA():
			p = sch.Items.A
			loc += "/items"
		default:
			loc += "/" + seg
			p = nil
		}
	}
	return loc, at
}

func nthProxy(sch *base.Schema, keyword string, n int) *base.SchemaProxy {
	list := map[string][]*base.SchemaProxy{"oneOf": sch.OneOf, "anyOf": sch.AnyOf, "allOf": sch.AllOf}[keyword]
	if n < 0 || n >= len(list) {
		return nil
	}
	return list[n]
}

func requestSchema(op *v3.Operation) *base.SchemaProxy {
	if op == nil || op.RequestBody == nil || op.RequestBody.Content == nil {
		return nil
	}
	if mt, ok := op.RequestBody.Content.Get(jsonMediaType); ok && mt != nil {
		return mt.Schema
	}
	return nil
}

// documentedResponse returns the response of a documented key ("201", "4XX", "default"), or nil.
func documentedResponse(op *v3.Operation, key string) *v3.Response {
	if op == nil || op.Responses == nil {
		return nil
	}
	if key == "default" {
		return op.Responses.Default
	}
	return op.Responses.Codes.GetOrZero(key)
}

// responseSchema returns the JSON schema of a documented response key.
func responseSchema(op *v3.Operation, key string) *base.SchemaProxy {
	resp := documentedResponse(op, key)
	if resp == nil || resp.Content == nil {
		return nil
	}
	if mt, ok := resp.Content.Get(jsonMediaType); ok && mt != nil {
		return mt.Schema
	}
	return nil
}

func pointerOf(segments []string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(docedit.Escape(s))
	}
	return b.String()
}

// lazyInstance is a message body decoded on first need: only a `required` or `additionalProperties`
// failure asks for it.
type lazyInstance struct {
	body    []byte
	decoded bool
	value   any
}

// at returns the value at the instance path the validator reports, or nil.
func (l *lazyInstance) at(path []string) any {
	if !l.decoded {
		l.decoded = true
		if json.Unmarshal(l.body, &l.value) != nil {
			l.value = nil
		}
	}
	v, _ := ValueAt(l.value, path)
	return v
}

// missingMembers returns the members the schema requires that the object lacks, in the schema's order.
func missingMembers(sch *base.Schema, instance any) []string {
	obj, ok := instance.(map[string]any)
	if sch == nil || !ok {
		return nil
	}
	var out []string
	for _, name := range sch.Required {
		if _, present := obj[name]; !present {
			out = append(out, name)
		}
	}
	return out
}

// unexpectedMembers returns the object's members that the schema does not declare (in its properties,
// or those of its allOf, anyOf and oneOf branches, which unevaluatedProperties counts), sorted.
func unexpectedMembers(sch *base.Schema, instance any) []string {
	obj, ok := instance.(map[string]any)
	if sch == nil || !ok {
		return nil
	}
	declared := map[string]bool{}
	declaredBy(sch, declared, 0)
	var out []string
	for name := range obj {
		if !declared[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func declaredBy(sch *base.Schema, declared map[string]bool, depth int) {
	if sch == nil || depth > 8 {
		return
	}
	for name := range sch.Properties.KeysFromOldest() { // nil-safe
		declared[name] = true
	}
	for _, list := range [][]*base.SchemaProxy{sch.AllOf, sch.AnyOf, sch.OneOf} {
		for _, p := range list {
			if p != nil {
				declaredBy(p.Schema(), declared, depth+1)
			}
		}
	}
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
