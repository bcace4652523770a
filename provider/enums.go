package provider

import (
	"strings"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The document's enums as the strings that schemas (stringvalidator.OneOf) and descriptions take. The
// lists are package api's, generated from the document, so a value added there reaches the provider
// with no change here.

// eventTypeValues, transferToValues, failureReasonValues: package api's enum lists as strings.
func eventTypeValues() []string     { return enumStrings(api.EventTypeValues()) }
func transferToValues() []string    { return enumStrings(api.TransferToValues()) }
func failureReasonValues() []string { return enumStrings(api.FailureReasonValues()) }

// enumStrings converts a list of enum values to their strings, in order.
func enumStrings[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// quotedList renders values as "`a`, `b` or `c`" for descriptions.
func quotedList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "`" + v + "`"
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
