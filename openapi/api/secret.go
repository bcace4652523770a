package api

import (
	"fmt"
	"log/slog"
	"strconv"

	"github.com/malipo/terraform-provider-malipo/openapi/internal/redact"
)

// SecretString is a string the document marks `format: password`: a secret that a request carries
// (a webhook endpoint's own signing secret). On the wire and in code it is an ordinary string
// (string(s) reads it, a string constant is one), but every fmt verb and log/slog show "[redacted]"
// instead of the value, so that printing or logging a request cannot leak it. An empty SecretString
// (none given) shows as "".
type SecretString string

const redacted = "[redacted]"

// String returns "[redacted]", or "" when s is empty.
func (s SecretString) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString is the %#v form: redacted like String.
func (s SecretString) GoString() string { return "api.SecretString(" + strconv.Quote(s.String()) + ")" }

// Format makes every fmt verb (%x and %d included, which do not all consult String) print the redacted
// form.
func (s SecretString) Format(f fmt.State, verb rune) {
	redact.Format(s, f, verb)
}

// LogValue makes log/slog record the redacted form.
func (s SecretString) LogValue() slog.Value { return slog.StringValue(s.String()) }

// slogValue lets the generated LogValue methods of the types with a SecretString field satisfy
// slog.LogValuer without the generated file importing log/slog.
type slogValue = slog.Value

// redactedLogValue is the LogValue of a type with a SecretString field: log/slog's JSON handler would
// otherwise encode it with encoding/json, which writes the secret (it must, on the wire). The value is
// logged in its fmt %+v form, in which SecretString fields are redacted.
func redactedLogValue(v any) slog.Value { return slog.StringValue(fmt.Sprintf("%+v", v)) }
