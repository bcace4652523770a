package openapi

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/openapi/internal/schemacheck"
)

// The fast path: each operation's parameters, bodies and documented responses compiled into yes/no
// checks (package schemacheck). A message the checks accept is valid and is not shown to
// libopenapi-validator; any other message, and every message of a part the checks do not cover, goes to
// the validator, which decides and explains. The checks accept only what the validator accepts: where the
// validator's behaviour is not plainly the schema's (encoded path segments, unusual content types, a
// missing required body, non-string parameters) they say no and leave the decision to it.
//
// ValidateResponse also uses the compiled response checks, with or without the fast path, for what the
// validator does not check: empty and null bodies (missingBody) and optional headers (headerViolations).

// fastPlan holds the compiled checks of one operation or webhook.
type fastPlan struct {
	request   *fastRequest             // nil: the request side is not covered
	responses map[string]*fastResponse // by documented key ("201", "4XX", "default"); nil value: not covered
}

type fastRequest struct {
	template []string // path template segments; "" stands for a parameter
	params   []fastParam
	body     *fastBody // nil: no request body is declared, so the validator ignores any
}

type fastParam struct {
	name     string
	in       string // "path", "query" or "header"
	required bool
	segment  int  // path parameters: index of the segment
	hasEnum  bool // the validator compares an enum with the trimmed value, so a padded value is left to it
	integer  bool // an integer query parameter (a page size): only plain decimal digits are read here
	check    *schemacheck.Checker
}

type fastBody struct {
	required bool                 // an empty body is valid only when the body is optional
	check    *schemacheck.Checker // nil: the media type has no schema
}

type fastResponse struct {
	hasContent bool                 // content is declared, so a body and its content type are checked
	hasJSON    bool                 // application/json is among the declared media types
	check      *schemacheck.Checker // nil: application/json has no schema
	// optional are the declared headers, all optional (a response with a required header is not
	// covered: the validator reads those its own way). The validator ignores optional headers;
	// ValidateResponse reports a bad value (see headerViolations), so the fast path checks them too.
	optional []fastHeader
}

// fastHeader is an optional response header: its value is read as its schema's type, then checked.
type fastHeader struct {
	name  string
	typ   string // "string", "boolean", "integer" or "number"
	check *schemacheck.Checker
}

// compileFastPaths builds the plan of every operation and webhook. A part outside what the checks cover
// is left to the validator, recorded in fastGaps (which the tests keep empty for the embedded document)
// and logged.
func (s *Spec) compileFastPaths(spec []byte, logger *slog.Logger) error {
	doc, err := schemacheck.Parse(spec)
	if err != nil {
		return err
	}
	ops := append(s.Operations(), s.webhookOperations()...)
	for _, op := range ops {
		node, err := doc.Node(op.location)
		if err != nil {
			return err
		}
		plan := &fastPlan{responses: map[string]*fastResponse{}}
		req, err := compileFastRequest(doc, op, node)
		if err != nil {
			s.fastGaps = append(s.fastGaps, fmt.Sprintf("%s request: %v", op.ID, err))
		} else {
			plan.request = req
		}
		keys, values := schemacheck.Pairs(schemacheck.Field(node, "responses"))
		for i, code := range keys {
			resp, err := compileFastResponse(doc, values[i], op, code)
			if err != nil {
				s.fastGaps = append(s.fastGaps, fmt.Sprintf("%s response %s: %v", op.ID, code, err))
			}
			plan.responses[code] = resp
		}
		op.fast = plan
	}
	for _, gap := range s.fastGaps {
		logger.Info("part of the document is left to libopenapi-validator: slower, and without the checks it lacks", "part", gap)
	}
	return nil
}

// compileFastRequest compiles the request side of an operation or webhook: its path template, its
// parameters and its JSON body. An error leaves the whole request to the validator.
func compileFastRequest(doc *schemacheck.Document, op *Operation, node *yaml.Node) (*fastRequest, error) {
	template := strings.Split(strings.TrimPrefix(op.Path, "/"), "/")
	req := &fastRequest{template: blankParams(template)}
	params, err := operationParams(doc, op, node)
	if err != nil {
		return nil, err
	}
	// An operation may redefine a path-item parameter; the validator then checks both, and so do we.
	for _, raw := range params {
		fp, err := compileRequestParam(doc, op, raw, template)
		if err != nil {
			return nil, err
		}
		req.params = append(req.params, fp)
	}
	if req.body, err = compileFastBody(doc, op, node); err != nil {
		return nil, err
	}
	return req, nil
}

// blankParams returns the path template's segments with each parameter ("{payout_id}") as "", the
// form matchesPath compares a request path with.
func blankParams(template []string) []string {
	var out []string
	for _, seg := range template {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			seg = ""
		}
		out = append(out, seg)
	}
	return out
}

// operationParams returns the parameters declared on the operation, then those of its path item,
// unresolved.
func operationParams(doc *schemacheck.Document, op *Operation, node *yaml.Node) ([]*yaml.Node, error) {
	itemNode, err := doc.Node(op.location[:strings.LastIndex(op.location, "/")])
	if err != nil {
		return nil, err
	}
	var params []*yaml.Node
	for _, list := range []*yaml.Node{schemacheck.Field(node, "parameters"), schemacheck.Field(itemNode, "parameters")} {
		if list != nil {
			params = append(params, list.Content...)
		}
	}
	return params, nil
}

// compileRequestParam compiles one parameter and, for a path parameter, finds its segment in the
// template. A webhook delivery is a request the document only describes by its headers.
func compileRequestParam(doc *schemacheck.Document, op *Operation, raw *yaml.Node, template []string) (fastParam, error) {
	p, err := doc.Resolve(raw)
	if err != nil {
		return fastParam{}, err
	}
	name, in := schemacheck.Scalar(p, "name"), schemacheck.Scalar(p, "in")
	fp, err := compileFastParam(doc, p, name, in)
	if err != nil {
		return fastParam{}, fmt.Errorf("parameter %s %s: %w", in, name, err)
	}
	if in == "path" {
		if fp.segment = templateSegment(template, name); fp.segment < 0 {
			return fastParam{}, errors.New("the path parameter is not in the path")
		}
	}
	if op.Webhook && in != "header" {
		return fastParam{}, errors.New("a webhook delivery has only header parameters")
	}
	return fp, nil
}

// templateSegment returns the index of the template segment that holds the path parameter name (the
// last, should it appear twice), or -1.
func templateSegment(template []string, name string) int {
	segment := -1
	for i, seg := range template {
		if seg == "{"+name+"}" {
			segment = i
		}
	}
	return segment
}

// compileFastBody compiles the operation's JSON request body; nil when it declares none. A body without
// application/json content is not covered.
func compileFastBody(doc *schemacheck.Document, op *Operation, node *yaml.Node) (*fastBody, error) {
	body := schemacheck.Field(node, "requestBody")
	if body == nil {
		return nil, nil
	}
	body, err := doc.Resolve(body)
	if err != nil {
		return nil, err
	}
	mt := schemacheck.Field(schemacheck.Field(body, "content"), jsonMediaType)
	if mt == nil {
		return nil, errors.New("the request body has no application/json content")
	}
	fb := &fastBody{required: schemacheck.Bool(schemacheck.Field(body, "required"))}
	if sch := schemacheck.Field(mt, "schema"); sch != nil {
		if fb.check, err = doc.Compile(sch, requestSchemaLocation(op)); err != nil {
			return nil, err
		}
	}
	return fb, nil
}

// compileFastParam covers parameters whose schema is a string (through $refs): the validator checks
// those against their schema as they are; other types it parses first, by its own rules.
func compileFastParam(doc *schemacheck.Document, p *yaml.Node, name, in string) (fastParam, error) {
	fp := fastParam{name: name, in: in, required: schemacheck.Bool(schemacheck.Field(p, "required"))}
	switch in {
	case "path", "query", "header":
	default:
		return fp, fmt.Errorf("%s parameters are not covered", in)
	}
	for _, key := range []string{"content", "style", "explode", "allowEmptyValue", "allowReserved"} {
		if schemacheck.Field(p, key) != nil {
			return fp, fmt.Errorf("%q is not covered", key)
		}
	}
	check, typ, enum, err := compileScalarSchema(doc, schemacheck.Field(p, "schema"))
	switch {
	case err != nil || typ == "string":
	case typ == "integer" && in == "query" && !enum:
		fp.integer = true
	default:
		err = errors.New("only `type: string` schemas and integer query parameters are covered")
	}
	fp.check, fp.hasEnum = check, enum
	return fp, err
}

// compileScalarSchema compiles a parameter or header schema whose type (through $refs) is one scalar
// type, and returns that type and whether the schema has an enum.
func compileScalarSchema(doc *schemacheck.Document, sch *yaml.Node) (check *schemacheck.Checker, typ string, enum bool, err error) {
	if sch == nil {
		return nil, "", false, errors.New("no schema")
	}
	target := sch
	for schemacheck.Field(target, "$ref") != nil {
		keys, _ := schemacheck.Pairs(target)
		if len(keys) != 1 {
			return nil, "", false, errors.New("a $ref with sibling keywords is not covered")
		}
		next, err := doc.Node(schemacheck.Field(target, "$ref").Value)
		if err != nil {
			return nil, "", false, err
		}
		target = next
	}
	t := schemacheck.Field(target, "type")
	if t == nil || t.Kind != yaml.ScalarNode {
		return nil, "", false, errors.New("only schemas with one scalar type are covered")
	}
	switch t.Value {
	case "string", "boolean", "integer", "number":
	default:
		return nil, "", false, fmt.Errorf("type %s is not covered", t.Value)
	}
	check, err = doc.Compile(sch, "parameter schema")
	return check, t.Value, schemacheck.Field(target, "enum") != nil, err
}

func compileFastResponse(doc *schemacheck.Document, node *yaml.Node, op *Operation, key string) (*fastResponse, error) {
	node, err := doc.Resolve(node)
	if err != nil {
		return nil, err
	}
	resp := &fastResponse{}
	if keys, _ := schemacheck.Pairs(schemacheck.Field(node, "content")); len(keys) > 0 {
		resp.hasContent = true
		if mt := schemacheck.Field(schemacheck.Field(node, "content"), jsonMediaType); mt != nil {
			resp.hasJSON = true
			if sch := schemacheck.Field(mt, "schema"); sch != nil {
				if resp.check, err = doc.Compile(sch, responseSchemaLocation(op, key)); err != nil {
					return nil, err
				}
			}
		}
	}
	names, headers := schemacheck.Pairs(schemacheck.Field(node, "headers"))
	for i, name := range names {
		h, err := doc.Resolve(headers[i])
		if err != nil {
			return nil, err
		}
		if schemacheck.Bool(schemacheck.Field(h, "required")) {
			return nil, fmt.Errorf("header %s: required response headers are not covered", name)
		}
		check, typ, _, err := compileScalarSchema(doc, schemacheck.Field(h, "schema"))
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", name, err)
		}
		resp.optional = append(resp.optional, fastHeader{name: name, typ: typ, check: check})
	}
	return resp, nil
}

// acceptsRequest reports whether the fast checks find the request valid.
func (p *fastPlan) acceptsRequest(r *http.Request, body []byte) bool {
	return p.acceptsParameters(r) && p.request.body.accepts(r.Header, body)
}

// acceptsParsed is acceptsRequest for a body the caller has already decoded into value.
func (p *fastPlan) acceptsParsed(r *http.Request, value any, present bool) bool {
	return p.acceptsParameters(r) && p.request.body.acceptsValue(r.Header, value, present)
}

// acceptsParameters reports whether the fast checks find the request's path, query and header
// parameters valid.
func (p *fastPlan) acceptsParameters(r *http.Request) bool {
	if p == nil || p.request == nil {
		return false
	}
	req := p.request
	// r.URL.Path never holds the fragment, and the validator is given the request without it.
	if !req.matchesPath(r.URL.Path) {
		return false
	}
	for _, param := range req.params {
		var v string
		switch param.in {
		case "header":
			v = r.Header.Get(param.name)
		case "path":
			v = pathSegment(r.URL.Path, param.segment)
		case "query":
			var ok bool
			if v, ok = queryValue(r.URL.RawQuery, param.name); !ok {
				return false
			}
		}
		if !param.accepts(v) {
			return false
		}
	}
	return true
}

// acceptsDelivery reports whether the fast checks find a webhook delivery valid.
func (p *fastPlan) acceptsDelivery(header http.Header, body []byte) bool {
	if p == nil || p.request == nil {
		return false
	}
	for _, param := range p.request.params {
		if !param.accepts(header.Get(param.name)) {
			return false
		}
	}
	return p.request.body.accepts(header, body)
}

// acceptsResponse reports whether the fast checks find a response with this status valid.
func (p *fastPlan) acceptsResponse(status int, header http.Header, body []byte) bool {
	if p == nil {
		return false
	}
	resp, _ := p.response(status)
	if resp == nil {
		return false
	}
	for _, h := range resp.optional {
		for _, v := range headerValues(header, h.name) {
			if !h.valid(v) {
				return false
			}
		}
	}
	if !resp.hasContent {
		return true
	}
	if !resp.hasJSON || !isJSON(header.Get("Content-Type")) || len(body) == 0 {
		return false
	}
	return resp.check == nil || resp.check.ValidJSON(body)
}

// headerValues returns the values of a header under any spelling of its name, as the validator matches
// names (strings.EqualFold), not only under the canonical key.
func headerValues(header http.Header, name string) []string {
	var out []string
	for k, vs := range header {
		if strings.EqualFold(k, name) {
			out = append(out, vs...)
		}
	}
	return out
}

// valid reads a header value as the header's type (a boolean is `true` or `false`, a number is written
// in decimal) and checks it against the schema.
func (h fastHeader) valid(v string) bool {
	var x any
	switch h.typ {
	case "string":
		x = v
	case "boolean":
		if v != "true" && v != "false" {
			return false
		}
		x = v == "true"
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		x = float64(n)
	case "number":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
		x = f
	}
	return h.check.Valid(x)
}

// response finds the response documented for a status as the validator does: the exact code, then its
// range ("4XX"), then `default` if it declares content. key is "" for a status the document does not
// cover; resp is nil there, and where the response is one the checks do not cover.
func (p *fastPlan) response(status int) (resp *fastResponse, key string) {
	if p == nil || status < 100 || status > 999 {
		return nil, ""
	}
	code := strconv.Itoa(status)
	if r, ok := p.responses[code]; ok {
		return r, code
	}
	if r, ok := p.responses[code[:1]+"XX"]; ok {
		return r, code[:1] + "XX"
	}
	if r, ok := p.responses["default"]; ok && r != nil && r.hasContent {
		return r, "default"
	}
	return nil, ""
}

func (p fastParam) accepts(v string) bool {
	if v == "" {
		return !p.required // the validator treats an empty value as an absent one
	}
	if p.hasEnum && v != strings.TrimSpace(v) {
		return false
	}
	if p.integer {
		// The validator parses other spellings (a sign, a leading zero, an exponent) by its own rules:
		// they are left to it. Plain digits mean the same to both.
		if !plainDecimal.MatchString(v) {
			return false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		return err == nil && p.check.Valid(float64(n))
	}
	return p.check.Valid(v)
}

// plainDecimal is a non-negative integer in decimal without sign, padding or leading zeros, short
// enough for an int64.
var plainDecimal = regexp.MustCompile(`^(0|[1-9][0-9]{0,17})$`)

func (b *fastBody) accepts(header http.Header, body []byte) bool {
	if b == nil {
		return true
	}
	if !isJSON(header.Get("Content-Type")) {
		return false
	}
	if len(body) == 0 {
		return !b.required
	}
	return b.check == nil || b.check.ValidJSON(body)
}

// acceptsValue is accepts for a body already decoded into value; present says whether there was one.
func (b *fastBody) acceptsValue(header http.Header, value any, present bool) bool {
	if b == nil {
		return true
	}
	if !isJSON(header.Get("Content-Type")) {
		return false
	}
	if !present {
		return !b.required
	}
	return b.check == nil || b.check.Valid(value)
}

// isJSON reports whether the validator reads contentType as application/json: it takes the media type
// from mime.ParseMediaType and ignores the error, which still returns the type when a parameter is bad.
func isJSON(contentType string) bool {
	if contentType == jsonMediaType {
		return true
	}
	mediaType, _, _ := mime.ParseMediaType(contentType)
	return mediaType == jsonMediaType
}

// matchesPath reports whether path has exactly the template's segments: its literal segments, and a
// non-empty parameter segment made of characters a URL never escapes, so that its raw and decoded forms
// (whichever the validator reads) are the same. Other spellings are left to the validator.
func (req *fastRequest) matchesPath(path string) bool {
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return false
	}
	for i, want := range req.template {
		seg, after, more := strings.Cut(rest, "/")
		if more != (i < len(req.template)-1) {
			return false
		}
		if want == "" {
			if seg == "" || !unreserved(seg) {
				return false
			}
		} else if seg != want {
			return false
		}
		rest = after
	}
	return true
}

// pathSegment returns the i-th segment of a path that matchesPath accepted.
func pathSegment(path string, i int) string {
	rest := path[1:]
	for range i {
		_, rest, _ = strings.Cut(rest, "/")
	}
	seg, _, _ := strings.Cut(rest, "/")
	return seg
}

// unreserved reports whether s has only characters a URL never escapes, so its raw and decoded forms
// are the same.
func unreserved(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
		default:
			return false
		}
	}
	return true
}

// queryValue returns the value of a parameter that appears at most once, written without escapes;
// ok is false for anything the validator might read differently. A value may also hold `:` (a
// date-time's), which query decoding leaves as it is.
func queryValue(rawQuery, name string) (v string, ok bool) {
	found := false
	for pair := range strings.SplitSeq(rawQuery, "&") {
		key, val, _ := strings.Cut(pair, "=")
		if !unreserved(key) || !unreserved(strings.ReplaceAll(val, ":", "")) {
			return "", false // an escaped key may decode to name
		}
		if key != name {
			continue
		}
		if found || val == "" {
			return "", false
		}
		found, v = true, val
	}
	return v, true
}
