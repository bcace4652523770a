package openapi

import (
	"fmt"
	"strings"
)

// Where a Violation was found. Callers switch on these to pick an HTTP status or to group a report.
const (
	// InRoute means no operation of the document matches the method and path.
	InRoute = "route"
	// InHeader means a header (a key, the content type, a documented header) is missing or wrong.
	InHeader = "header"
	// InPath means a path parameter breaks its schema.
	InPath = "path"
	// InQuery means a query parameter is missing or breaks its schema.
	InQuery = "query"
	// InBody means the body is missing, not decodable, or breaks its schema.
	InBody = "body"
	// InStatus means the response status code is not documented for the operation.
	InStatus = "status"
)

// Violation is one way an exchange breaks the contract. It is plain data so that the sandbox can turn
// it into an error envelope, tests can assert on it, and the contract suite can report it.
type Violation struct {
	// Operation is the operationId (or the webhook's event type) the exchange was matched to; empty
	// when no operation matched.
	Operation string `json:"operation,omitempty"`
	// In says which part of the exchange is at fault: one of the In* constants.
	In string `json:"in"`
	// Pointer names the offending field: a JSON pointer into the body (`/amount`, `/data/object/status`,
	// empty for the whole body), or `<in>.<name>` for a parameter or header (`header.secret-key`).
	// It is the same notation the error envelope's `errors[].field` uses.
	Pointer string `json:"pointer"`
	// Message says what is wrong, in words a developer can act on.
	Message string `json:"message"`
	// SpecLocation is a JSON pointer into the document of the rule that was broken
	// (`#/components/schemas/BankPayoutRequest/required`), when it is known.
	SpecLocation string `json:"spec_location,omitempty"`
}

// String renders a violation on one line: `processPayout body /amount: got number, want integer`.
func (v Violation) String() string {
	var b strings.Builder
	if v.Operation != "" {
		b.WriteString(v.Operation)
		b.WriteByte(' ')
	}
	switch {
	case v.Pointer == "":
		b.WriteString(v.In)
	case strings.HasPrefix(v.Pointer, v.In+"."):
		b.WriteString(v.Pointer)
	default:
		b.WriteString(v.In + " " + v.Pointer)
	}
	b.WriteString(": ")
	b.WriteString(v.Message)
	if v.SpecLocation != "" {
		fmt.Fprintf(&b, " (%s)", v.SpecLocation)
	}
	return b.String()
}

// Violations is the result of a validation; empty means the exchange conforms.
type Violations []Violation

// Error joins the violations, so that a caller can return them as an error.
func (vs Violations) Error() string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}

// Pointers returns the Pointer of every violation, for tests and error envelopes.
func (vs Violations) Pointers() []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Pointer
	}
	return out
}

// Err returns vs as an error, or nil when there are no violations.
func (vs Violations) Err() error {
	if len(vs) == 0 {
		return nil
	}
	return vs
}
