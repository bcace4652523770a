// Package links is the document's OpenAPI links as the contract suite follows them: which operation
// follows a response (Of), and the request a link describes (Link.Request), its runtime expressions
// (`$response.body#/data/payout_id`, `$request.path.id`) evaluated against the exchange the link is
// declared on (Eval). The stateful sequences walk them, and the generated checks read objects back
// through them, so that a link the document adds is followed without code.
package links

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

// Link is one link of the document, as the suite follows it.
type Link struct {
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

// Of returns the links of the first documented 2xx response of op that declares any (the response
// code with them, or op's first 2xx when none does), and the links it cannot use.
func Of(spec *openapi.Spec, op *openapi.Operation) (code string, links []*Link, skipped []string) {
	for _, c := range op.Responses {
		if !strings.HasPrefix(c, "2") {
			continue
		}
		if code == "" {
			code = c
		}
		declared := op.Links(c)
		if len(declared) == 0 {
			continue
		}
		code = c
		for _, l := range declared {
			pointer := op.Pointer() + "/responses/" + c + "/links/" + l.Name
			target, ok := spec.Operation(l.OperationID)
			if !ok || target.Webhook {
				skipped = append(skipped, fmt.Sprintf("%s (%s): names operationId %q, which the document does not have (operationRef is not followed)", l.Name, pointer, l.OperationID))
				continue
			}
			links = append(links, &Link{Name: l.Name, Pointer: pointer, Target: target, Params: l.Params, Body: l.Body})
		}
		return code, links, skipped
	}
	return code, nil, nil
}

// ParamLocation returns where a link parameter goes in op's request: its qualifier when it has one
// (`path.id`), else where op declares a parameter of that name, else the path when op's path template
// has it, else the query.
func ParamLocation(op *openapi.Operation, qualified string) (in, name string) {
	if loc, rest, ok := strings.Cut(qualified, "."); ok && slices.Contains([]string{"path", "query", "header", "cookie"}, loc) {
		return loc, rest
	}
	if in, ok := op.ParameterIn(qualified); ok {
		return in, qualified
	}
	if strings.Contains(op.Path, "{"+qualified+"}") {
		return "path", qualified
	}
	return "query", qualified
}

// Response is what runtime expressions read of an exchange besides its request: the request's method
// and URL ($method, $url: the path and query sent), and the answer.
type Response struct {
	Method, URL string
	Status      int
	Header      http.Header
	// JSON is the response body as encoding/json decodes it into any; nil for none.
	JSON any
}

// Record is one request the suite sent and its answer: what the runtime expressions of the links
// declared on its response read.
type Record struct {
	PathParams map[string]string // unescaped
	Query      url.Values
	Header     http.Header // the headers the link gave
	Body       any         // the request body as JSON decodes it; nil for none
	Response   Response
}

// Eval evaluates a link's parameter or requestBody value against the exchange it is
// declared on (OpenAPI's runtime expressions: $url, $method, $statusCode, $request.path.NAME,
// $request.query.NAME, $request.header.NAME, $request.body#/POINTER, $response.header.NAME,
// $response.body#/POINTER); a value that does not start with `$` is a constant.
func Eval(expr string, rec *Record) (any, error) {
	if !strings.HasPrefix(expr, "$") {
		return expr, nil
	}
	switch expr {
	case "$url":
		return rec.Response.URL, nil
	case "$method":
		return rec.Response.Method, nil
	case "$statusCode":
		return strconv.Itoa(rec.Response.Status), nil
	}
	source, rest, _ := strings.Cut(expr[1:], ".")
	if source != "request" && source != "response" {
		return nil, fmt.Errorf("%s is not a runtime expression this suite evaluates (it starts with neither $request. nor $response.)", expr)
	}
	if pointer, ok := strings.CutPrefix(rest, "body"); ok && (pointer == "" || strings.HasPrefix(pointer, "#")) {
		pointer = strings.TrimPrefix(pointer, "#")
		body := rec.Body
		if source == "response" {
			body = rec.Response.JSON
		}
		v, found := openapi.ValueAt(body, openapi.PointerTokens(pointer))
		if !found || v == nil {
			return nil, fmt.Errorf("the %s body has no value at %q", source, pointer)
		}
		return v, nil
	}
	where, name, _ := strings.Cut(rest, ".")
	var v string
	switch {
	case where == "header" && source == "request":
		v = rec.Header.Get(name)
	case where == "header":
		v = rec.Response.Header.Get(name)
	case where == "query" && source == "request":
		v = rec.Query.Get(name)
	case where == "path" && source == "request":
		v = rec.PathParams[name]
	default:
		return nil, fmt.Errorf("%s is not a runtime expression (OpenAPI allows $request.header|query|path|body and $response.header|body)", expr)
	}
	if v == "" {
		return nil, fmt.Errorf("the %s has no %s %q", source, where, name)
	}
	return v, nil
}

// ParamString is a parameter value as it goes into a path, query or header.
func ParamString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// JSONValue is v as encoding/json decodes it into any, as runtime expressions read a request body.
func JSONValue(v any) any {
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

// Request computes the request the link describes from the exchange src it is declared on: the path
// with its parameters (and query), the record its own runtime expressions will read, and the body.
func (l *Link) Request(src *Record) (path string, rec *Record, body any, err error) {
	rec = &Record{PathParams: map[string]string{}, Query: url.Values{}, Header: http.Header{}}
	escaped := map[string]string{}
	for _, p := range l.Params {
		v, err := Eval(p[1], src)
		if err != nil {
			return "", nil, nil, fmt.Errorf("its parameter %s = %s cannot be evaluated: %w", p[0], p[1], err)
		}
		value := ParamString(v)
		switch in, name := ParamLocation(l.Target, p[0]); in {
		case "path":
			rec.PathParams[name], escaped[name] = value, url.PathEscape(value)
		case "header":
			rec.Header.Set(name, value)
		case "query":
			rec.Query.Set(name, value)
		}
	}
	path, missing := ExpandTemplate(l.Target.Path, escaped)
	if missing != "" {
		return "", nil, nil, fmt.Errorf("it gives no value for the path parameter {%s}", missing)
	}
	if len(rec.Query) > 0 {
		path += "?" + rec.Query.Encode()
	}
	if l.Body != "" {
		v, err := Eval(l.Body, src)
		if err != nil {
			return "", nil, nil, fmt.Errorf("its requestBody %s cannot be evaluated: %w", l.Body, err)
		}
		body = v
	}
	return path, rec, body, nil
}

// RecordOf is the record of an exchange the suite sent with body, answered resp, for the runtime
// expressions of the links on its response: the path parameters are read by routing resp.URL in
// spec.
func RecordOf(spec *openapi.Spec, resp Response, body any) *Record {
	rec := &Record{PathParams: map[string]string{}, Query: url.Values{}, Header: http.Header{}, Body: JSONValue(body), Response: resp}
	path, query, _ := strings.Cut(resp.URL, "?")
	if op, params, _ := spec.Route(resp.Method, path); op != nil {
		for k, v := range params {
			if u, err := url.PathUnescape(v); err == nil {
				v = u
			}
			rec.PathParams[k] = v
		}
	}
	rec.Query, _ = url.ParseQuery(query)
	return rec
}

// ExpandTemplate fills a path template's `{name}` segments with the values by name, as they appeared
// in a request path (already escaped). It returns the name of the first parameter it has no value for.
func ExpandTemplate(template string, values map[string]string) (path, missing string) {
	segments := strings.Split(template, "/")
	for i, seg := range segments {
		if !strings.HasPrefix(seg, "{") || !strings.HasSuffix(seg, "}") {
			continue
		}
		name := seg[1 : len(seg)-1]
		v, ok := values[name]
		if !ok {
			return "", name
		}
		segments[i] = v
	}
	return strings.Join(segments, "/"), ""
}
