package sandbox

import (
	"net/http"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

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
