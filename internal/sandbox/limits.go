package sandbox

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// limits are the bounds the document puts on what one merchant may hold and on what one answer may
// carry, read from the document when the sandbox starts (never restated here): the caps behind the
// lists' maxItems, which a create past them answers with 409 limit_reached, and the lengths an error
// envelope's texts are cut to.
type limits struct {
	endpoints   int // webhook endpoints per merchant
	failures    int // sandbox delivery failures in force per merchant
	attempts    int // delivery attempts listed for one event, the most recent
	fieldErrors int // field errors in one error envelope, the first
	message     int // characters of an error's message
	field       int // characters of a field error's field
	reason      int // characters of a field error's reason
	attemptErr  int // characters of a delivery attempt's error
}

// The document's words for each bound, as JSON pointers.
const (
	boundEndpoints   = "#/components/schemas/WebhookEndpointListResponse/properties/data/maxItems"
	boundFailures    = "#/components/schemas/SandboxDeliveryFailureListResponse/properties/data/maxItems"
	boundAttempts    = "#/components/schemas/DeliveryAttemptListResponse/properties/data/maxItems"
	boundFieldErrors = "#/components/schemas/Error/properties/errors/maxItems"
	boundMessage     = "#/components/schemas/Error/properties/message/maxLength"
	boundField       = "#/components/schemas/FieldError/properties/field/maxLength"
	boundReason      = "#/components/schemas/FieldError/properties/reason/maxLength"
	boundAttemptErr  = "#/components/schemas/DeliveryAttempt/properties/error/maxLength"
)

func readLimits(spec *openapi.Spec) (limits, error) {
	var l limits
	for _, b := range []struct {
		pointer string
		to      *int
	}{
		{boundEndpoints, &l.endpoints}, {boundFailures, &l.failures}, {boundAttempts, &l.attempts},
		{boundFieldErrors, &l.fieldErrors}, {boundMessage, &l.message}, {boundField, &l.field},
		{boundReason, &l.reason}, {boundAttemptErr, &l.attemptErr},
	} {
		n, err := spec.Bound(b.pointer)
		if err != nil {
			return limits{}, fmt.Errorf("read a bound from the contract: %w", err)
		}
		*b.to = n
	}
	return l, nil
}

// clip cuts s to at most n characters (code points, as maxLength counts them), never inside one.
func clip(s string, n int) string {
	if len(s) <= n { // bytes: at least as many as characters
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i]
}

// fieldErrorsOf is the first field errors of fields, each cut to the bounds; a copy when anything is
// cut, so that the caller's slice stays as it was.
func (l limits) fieldErrorsOf(fields []FieldError) []FieldError {
	out := fields[:min(len(fields), l.fieldErrors)]
	copied := false
	for i, f := range out {
		field, reason := clip(f.Field, l.field), clip(f.Reason, l.reason)
		if field == f.Field && reason == f.Reason {
			continue
		}
		if !copied {
			out, copied = slices.Clone(out), true
		}
		out[i] = FieldError{Field: field, Reason: reason}
	}
	return out
}
