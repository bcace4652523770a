package contracttests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The document's OpenAPI links say which operation follows which, and where the follower's parameters
// come from (`$response.body#/data/payout_id`, `$request.path.id`): the stateful sequences walk them,
// and the generated checks read objects back through them, so that a link the document adds is
// followed without code.

// seqLink is one link of the document, as a sequence follows it.
type seqLink struct {
	// Name is the link's key in its response's `links`; Pointer where the document declares it.
	Name, Pointer string
	// Target is the linked operation.
	Target *openapi.Operation
	// Params are the link's parameters, in document order: name (possibly qualified, `path.id`) and
	// value (a runtime expression, or a constant).
	Params [][2]string
	// Body is the link's requestBody (an expression or a constant), "" when it gives none.
	Body string
}

// linksOf returns the links of the first documented 2xx response of op that declares any (the
// response code with them, or op's first 2xx when none does), and the links it cannot use.
func linksOf(spec *openapi.Spec, op *openapi.Operation) (code string, links []*seqLink, skipped []string) {
	model := openapi.OperationModel(op)
	if model.Responses == nil || model.Responses.Codes == nil {
		return "", nil, nil
	}
	for c, resp := range model.Responses.Codes.FromOldest() {
		if !strings.HasPrefix(c, "2") {
			continue
		}
		if code == "" {
			code = c
		}
		if resp == nil || resp.Links == nil || resp.Links.Len() == 0 {
			continue
		}
		code = c
		for name, l := range resp.Links.FromOldest() {
			pointer := operationLocation(op) + "/responses/" + c + "/links/" + name
			target, ok := spec.Operation(l.OperationId)
			if !ok || target.Webhook {
				skipped = append(skipped, fmt.Sprintf("%s (%s): names operationId %q, which the document does not have (operationRef is not followed)", name, pointer, l.OperationId))
				continue
			}
			link := &seqLink{Name: name, Pointer: pointer, Target: target, Body: l.RequestBody}
			if l.Parameters != nil {
				for k, v := range l.Parameters.FromOldest() {
					link.Params = append(link.Params, [2]string{k, v})
				}
			}
			links = append(links, link)
		}
		return code, links, skipped
	}
	return code, nil, nil
}

// paramLocation returns where a link parameter goes in op's request: its qualifier when it has one
// (`path.id`), else where op declares a parameter of that name, else the path when op's path template
// has it, else the query.
func paramLocation(op *openapi.Operation, qualified string) (in, name string) {
	if loc, rest, ok := strings.Cut(qualified, "."); ok && slices.Contains([]string{"path", "query", "header", "cookie"}, loc) {
		return loc, rest
	}
	for _, p := range openapi.OperationModel(op).Parameters {
		if p != nil && p.Name == qualified {
			return p.In, qualified
		}
	}
	if strings.Contains(op.Path, "{"+qualified+"}") {
		return "path", qualified
	}
	return "query", qualified
}

// seqRecord is one request a sequence sent and its answer: what the runtime expressions of the links
// declared on its response read.
type seqRecord struct {
	pathParams map[string]string // unescaped
	query      url.Values
	header     http.Header // the headers the link gave
	body       any         // the request body as JSON decodes it; nil for none
	ex         *Exchange
}

// evalExpression evaluates a link's parameter or requestBody value against the exchange it is
// declared on (OpenAPI's runtime expressions: $url, $method, $statusCode, $request.path.NAME,
// $request.query.NAME, $request.header.NAME, $request.body#/POINTER, $response.header.NAME,
// $response.body#/POINTER); a value that does not start with `$` is a constant.
func evalExpression(expr string, rec *seqRecord) (any, error) {
	if !strings.HasPrefix(expr, "$") {
		return expr, nil
	}
	switch expr {
	case "$url":
		return rec.ex.Path, nil
	case "$method":
		return rec.ex.Method, nil
	case "$statusCode":
		return strconv.Itoa(rec.ex.Status), nil
	}
	source, rest, _ := strings.Cut(expr[1:], ".")
	if source != "request" && source != "response" {
		return nil, fmt.Errorf("%s is not a runtime expression this suite evaluates (it starts with neither $request. nor $response.)", expr)
	}
	if pointer, ok := strings.CutPrefix(rest, "body"); ok && (pointer == "" || strings.HasPrefix(pointer, "#")) {
		pointer = strings.TrimPrefix(pointer, "#")
		body := rec.body
		if source == "response" {
			body = rec.ex.JSON
		}
		v, found := openapi.ValueAt(body, pointerTokens(pointer))
		if !found || v == nil {
			return nil, fmt.Errorf("the %s body has no value at %q", source, pointer)
		}
		return v, nil
	}
	where, name, _ := strings.Cut(rest, ".")
	var v string
	switch {
	case where == "header" && source == "request":
		v = rec.header.Get(name)
	case where == "header":
		v = rec.ex.Header.Get(name)
	case where == "query" && source == "request":
		v = rec.query.Get(name)
	case where == "path" && source == "request":
		v = rec.pathParams[name]
	default:
		return nil, fmt.Errorf("%s is not a runtime expression (OpenAPI allows $request.header|query|path|body and $response.header|body)", expr)
	}
	if v == "" {
		return nil, fmt.Errorf("the %s has no %s %q", source, where, name)
	}
	return v, nil
}

// paramString is a parameter value as it goes into a path, query or header.
func paramString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// jsonValue is v as encoding/json decodes it into any, as runtime expressions read a request body.
func jsonValue(v any) any {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// request computes the request the link describes from the exchange src it is declared on: the path
// with its parameters (and query), the record its own runtime expressions will read, and the body.
func (l *seqLink) request(src *seqRecord) (path string, rec *seqRecord, body any, err error) {
	rec = &seqRecord{pathParams: map[string]string{}, query: url.Values{}, header: http.Header{}}
	escaped := map[string]string{}
	for _, p := range l.Params {
		v, err := evalExpression(p[1], src)
		if err != nil {
			return "", nil, nil, fmt.Errorf("its parameter %s = %s cannot be evaluated: %w", p[0], p[1], err)
		}
		value := paramString(v)
		switch in, name := paramLocation(l.Target, p[0]); in {
		case "path":
			rec.pathParams[name], escaped[name] = value, url.PathEscape(value)
		case "header":
			rec.header.Set(name, value)
		case "query":
			rec.query.Set(name, value)
		}
	}
	path, missing := expandTemplate(l.Target.Path, escaped)
	if missing != "" {
		return "", nil, nil, fmt.Errorf("it gives no value for the path parameter {%s}", missing)
	}
	if len(rec.query) > 0 {
		path += "?" + rec.query.Encode()
	}
	if l.Body != "" {
		v, err := evalExpression(l.Body, src)
		if err != nil {
			return "", nil, nil, fmt.Errorf("its requestBody %s cannot be evaluated: %w", l.Body, err)
		}
		body = v
	}
	return path, rec, body, nil
}

// recordOf is the record of an exchange the suite sent to path with body, for the runtime
// expressions of the links on its response.
func recordOf(spec *openapi.Spec, ex *Exchange, body any) *seqRecord {
	rec := &seqRecord{pathParams: map[string]string{}, query: url.Values{}, header: http.Header{}, body: jsonValue(body), ex: ex}
	path, query, _ := strings.Cut(ex.Path, "?")
	if op, params, _ := spec.Route(ex.Method, path); op != nil {
		for k, v := range params {
			if u, err := url.PathUnescape(v); err == nil {
				v = u
			}
			rec.pathParams[k] = v
		}
	}
	rec.query, _ = url.ParseQuery(query)
	return rec
}
