package contracttests

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The document's OpenAPI links say which operation follows which, and where the follower's parameters
// come from (`$response.body#/data/payout_id`, `$request.path.id`): the generated checks read objects
// back through them, so that a read-back the document adds is followed without code.

// docLink is one link of an operation's response.
type docLink struct {
	name string
	// to is the operation the link leads to.
	to *openapi.Operation
	// params maps the parameters of to to runtime expressions or constants.
	params map[string]string
}

// linksOf returns the links of op's documented response status, in document order, whose operation the
// document has.
func linksOf(spec *openapi.Spec, op *openapi.Operation, status int) []docLink {
	model := openapi.OperationModel(op)
	if model == nil || model.Responses == nil || model.Responses.Codes == nil {
		return nil
	}
	resp, ok := model.Responses.Codes.Get(strconv.Itoa(status))
	if !ok || resp == nil || resp.Links == nil {
		return nil
	}
	var out []docLink
	for name, l := range resp.Links.FromOldest() {
		if l == nil {
			continue
		}
		to, ok := spec.Operation(l.OperationId)
		if !ok {
			continue
		}
		dl := docLink{name: name, to: to, params: map[string]string{}}
		if l.Parameters != nil {
			for k, v := range l.Parameters.FromOldest() {
				dl.params[k] = v
			}
		}
		out = append(out, dl)
	}
	return out
}

// exchangeContext is what a link's runtime expressions read: the request's path parameters and the
// response's decoded body.
type exchangeContext struct {
	pathParams map[string]string
	body       any
}

// evaluate returns the value of a runtime expression (or the constant itself).
func (c exchangeContext) evaluate(expr string) (string, error) {
	switch {
	case strings.HasPrefix(expr, "$response.body#"):
		pointer := strings.TrimPrefix(expr, "$response.body#")
		var path []string
		if pointer != "" {
			path = strings.Split(strings.TrimPrefix(pointer, "/"), "/")
		}
		v, ok := openapi.ValueAt(c.body, path)
		if !ok {
			return "", fmt.Errorf("the response has nothing at %s", pointer)
		}
		switch x := v.(type) {
		case string:
			return x, nil
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), nil
		}
		return fmt.Sprint(v), nil
	case strings.HasPrefix(expr, "$request.path."):
		name := strings.TrimPrefix(expr, "$request.path.")
		v, ok := c.pathParams[name]
		if !ok {
			return "", fmt.Errorf("the request has no path parameter %s", name)
		}
		return v, nil
	case strings.HasPrefix(expr, "$"):
		return "", fmt.Errorf("the suite does not evaluate the runtime expression %s", expr)
	}
	return expr, nil
}

// url is the path (with query) the link leads to after the exchange c.
func (l docLink) url(c exchangeContext) (string, error) {
	names := pathParams(l.to.Path)
	values := make([]string, len(names))
	for i, n := range names {
		expr, ok := l.params[n]
		if !ok {
			return "", fmt.Errorf("link %s gives no value for the path parameter %s of %s", l.name, n, l.to.ID)
		}
		v, err := c.evaluate(expr)
		if err != nil {
			return "", fmt.Errorf("link %s, parameter %s: %w", l.name, n, err)
		}
		values[i] = v
	}
	path := urlOf(l.to, values...)
	q := url.Values{}
	for _, k := range slices.Sorted(maps.Keys(l.params)) {
		if slices.Contains(names, k) {
			continue
		}
		v, err := c.evaluate(l.params[k])
		if err != nil {
			return "", fmt.Errorf("link %s, parameter %s: %w", l.name, k, err)
		}
		q.Set(k, v)
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path, nil
}

// pathValues reads a path's parameters by its template (`/v1/webhooks/{id}` and `/v1/webhooks/we_1`
// give id=we_1).
func pathValues(template, path string) map[string]string {
	out := map[string]string{}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	ts, ps := strings.Split(template, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return out
	}
	for i, seg := range ts {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			v, err := url.PathUnescape(ps[i])
			if err != nil {
				v = ps[i]
			}
			out[seg[1:len(seg)-1]] = v
		}
	}
	return out
}
