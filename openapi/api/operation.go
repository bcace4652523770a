package api

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Operation is one operation of the document. The generated Op* functions return a new value on every
// call, and the slices are unexported behind copying accessors, so no caller can change the table for
// everyone.
type Operation struct {
	// ID is the operationId.
	ID string
	// Method is the upper-case HTTP method.
	Method string
	// Path is the path template, with `{name}` for each path parameter.
	Path string
	// Summary is the operation's summary, for people.
	Summary string
	// Extension is true for operations of a tag marked x-malipo-extension (the webhook-endpoint
	// extension): an implementation may leave them out and answer 404.
	Extension bool

	security  [][]string // alternatives, each a set of key headers
	responses []string   // documented statuses ("201", "4XX")
}

// Security returns the key headers the operation needs: one list per alternative security
// requirement, empty when it needs no key.
func (o Operation) Security() [][]string {
	out := make([][]string, len(o.security))
	for i, req := range o.security {
		out[i] = slices.Clone(req)
	}
	return out
}

// Needs reports whether the first security requirement includes the header, so that a client sends
// the secret key only to the operations that take it.
func (o Operation) Needs(header string) bool {
	return len(o.security) > 0 && slices.Contains(o.security[0], header)
}

// Responses returns the documented response statuses, in document order ("201", "400", "4XX").
func (o Operation) Responses() []string { return slices.Clone(o.responses) }

// Documents reports whether the status is documented, directly or by its range ("4XX").
func (o Operation) Documents(status int) bool {
	code := fmt.Sprint(status)
	return slices.Contains(o.responses, code) || slices.Contains(o.responses, code[:1]+"XX")
}

// URL expands the path template with the parameter values, in template order, each escaped as a
// path segment. A wrong number of values is a programming error and panics.
func (o Operation) URL(values ...string) string {
	var b strings.Builder
	rest := o.Path
	for _, v := range values {
		open := strings.IndexByte(rest, '{')
		end := strings.IndexByte(rest, '}')
		if open < 0 || end < open {
			panic(fmt.Sprintf("api: %s takes fewer path parameters than %d", o.ID, len(values)))
		}
		b.WriteString(rest[:open])
		b.WriteString(url.PathEscape(v))
		rest = rest[end+1:]
	}
	if strings.IndexByte(rest, '{') >= 0 {
		panic(fmt.Sprintf("api: %s takes more path parameters than %d", o.ID, len(values)))
	}
	b.WriteString(rest)
	return b.String()
}

// Words is the operation in words ("initialize payment"), for messages.
func (o Operation) Words() string {
	var b strings.Builder
	for i, r := range o.ID {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte(' ')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// OperationByID returns the operation with the given operationId.
func OperationByID(id string) (Operation, bool) {
	for _, op := range Operations() {
		if op.ID == id {
			return op, true
		}
	}
	return Operation{}, false
}
