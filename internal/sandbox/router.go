package sandbox

import (
	"net/http"
	"strings"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// router maps a request to the contract's operation and extracts its path parameters. Routes come
// from the document, so a path or method the spec does not declare cannot be served by accident.
type router struct {
	routes []route
}

type route struct {
	op       *openapi.Operation
	segments []string // template segments; "{name}" for a parameter
}

func newRouter(spec *openapi.Spec) *router {
	r := &router{}
	for _, op := range spec.Operations() {
		r.routes = append(r.routes, route{op: op, segments: splitPath(op.Path)})
	}
	return r
}

func splitPath(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

// match returns the operation for method and path with its path parameters; when the path exists
// with other methods only, it returns those methods (for 405 and the Allow header).
func (rt *router) match(method, path string) (op *openapi.Operation, params map[string]string, allowed []string) {
	segs := splitPath(path)
	for _, r := range rt.routes {
		p, ok := r.bind(segs)
		if !ok {
			continue
		}
		if r.op.Method == method {
			return r.op, p, nil
		}
		allowed = append(allowed, r.op.Method)
	}
	return nil, nil, allowed
}

func (r route) bind(segs []string) (map[string]string, bool) {
	if len(segs) != len(r.segments) {
		return nil, false
	}
	var params map[string]string
	for i, t := range r.segments {
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			if segs[i] == "" {
				return nil, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[t[1:len(t)-1]] = segs[i]
			continue
		}
		if t != segs[i] {
			return nil, false
		}
	}
	return params, true
}

// hasBody reports whether the operation declares a request body, i.e. whether the sandbox reads one.
func hasBody(op *openapi.Operation) bool {
	return op.Op != nil && op.Op.RequestBody != nil
}

// bodyRequired reports whether the operation's request body is required.
func bodyRequired(op *openapi.Operation) bool {
	return hasBody(op) && op.Op.RequestBody.Required != nil && *op.Op.RequestBody.Required
}

// isPost reports whether the request is a POST, the method the Idempotency-Key applies to.
func isPost(op *openapi.Operation) bool { return op.Method == http.MethodPost }
