package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// ErrorCode is the envelope `code` of an error response. The codes, their names and HTTP statuses are
// package api's (generated from the document): api.CodeValidationFailed and the rest.
type ErrorCode = api.ErrorCode

// FieldError names one offending field: the error envelope's `errors[]` entry (the document's
// FieldError), also used by client-side validation so that both read the same. Field is a JSON pointer
// into the request body (`/amount`), or `<in>.<name>` for a parameter or header (`path.payout_id`,
// `header.secret-key`); Reason says what is wrong with it.
//
// It is defined on api.FieldError, not an alias of it, only so that it can have the String method the
// error texts use; the fields are the generated type's.
type FieldError api.FieldError

// String renders `field: reason`.
func (f FieldError) String() string {
	if f.Field == "" {
		return f.Reason
	}
	return f.Field + ": " + f.Reason
}

// APIError is a non-2xx response (or a 2xx whose envelope reports an error). When the body is the
// document's error envelope, Code, Message, Errors and ExistingID come from it; otherwise (a proxy's
// HTML page, an empty body) Code is 0 and Message describes the body. Use errors.As, or the Is*
// helpers, to branch on it.
type APIError struct {
	// Operation is what was being done, in words (`process payout`).
	Operation string
	// StatusCode is the HTTP status of the last attempt.
	StatusCode int
	// Code is the envelope's error code; 0 when the body was not an error envelope.
	Code ErrorCode
	// Message is the envelope's message (what went wrong and what to do), or a description of a body
	// that is not an envelope.
	Message string
	// Errors lists every offending field; empty when the error is not about a field.
	Errors []FieldError
	// ExistingID is, for api.CodeDuplicateReference, the payment or payout that already holds the reference.
	ExistingID string
	// RetryAfter is the wait the service asked for (Retry-After), zero when it asked for none.
	RetryAfter time.Duration
	// Attempts is how many attempts were made, more than 1 when retries were exhausted.
	Attempts int
}

// Error renders `malipo: process payout: 400 validation_failed (code 1000): <message>; /amount: <reason>`.
func (e *APIError) Error() string {
	return "malipo: " + e.Operation + ": " + e.detail()
}

// detail is Error without the operation prefix.
func (e *APIError) detail() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(e.StatusCode))
	if e.Code != 0 {
		fmt.Fprintf(&b, " %s (code %d)", e.Code, int(e.Code))
	} else if text := http.StatusText(e.StatusCode); text != "" {
		b.WriteString(" " + text)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	for _, f := range e.Errors {
		b.WriteString("; " + f.String())
	}
	if e.ExistingID != "" {
		b.WriteString("; existing id " + e.ExistingID)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// InvalidRequestError is returned before any network call when a request is certainly invalid
// (a required field is empty, an amount is below the minimum, an id cannot name a path segment). The
// service stays the authority on everything else.
type InvalidRequestError struct {
	// Operation is what was being attempted (`process payout`).
	Operation string
	// Errors names each offending field in the service's notation.
	Errors []FieldError
}

// Error renders `malipo: process payout: invalid request, not sent: /amount: must be at least 1`.
func (e *InvalidRequestError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, f := range e.Errors {
		parts[i] = f.String()
	}
	return "malipo: " + e.Operation + ": invalid request, not sent: " + strings.Join(parts, "; ")
}

// IsNotFound reports whether err is a 404: the object does not exist for this merchant (or the
// service lacks the webhook-endpoint extension). A Terraform Read removes the resource on it.
func IsNotFound(err error) bool {
	e, ok := asAPIError(err)
	return ok && (e.StatusCode == http.StatusNotFound || e.Code == api.CodeNotFound)
}

// IsConflict reports whether err is a 409: an Idempotency-Key reused with another body or still in
// use, a merchant reference already used (then ExistingID names its holder), or a create past the
// merchant's cap (api.CodeLimitReached, e.g. on webhook endpoints: delete one first).
func IsConflict(err error) bool {
	e, ok := asAPIError(err)
	return ok && (e.StatusCode == http.StatusConflict ||
		e.Code == api.CodeIdempotencyKeyReused || e.Code == api.CodeIdempotencyKeyInUse || e.Code == api.CodeDuplicateReference ||
		e.Code == api.CodeLimitReached)
}

// IsUnauthorized reports whether err is a 401: a key is missing, wrong, or the keys are not a pair.
func IsUnauthorized(err error) bool {
	e, ok := asAPIError(err)
	return ok && (e.StatusCode == http.StatusUnauthorized || e.Code == api.CodeMissingAPIKey || e.Code == api.CodeInvalidAPIKey)
}

// IsValidation reports whether the request was invalid: rejected by the service with a 400
// (validation_failed or malformed_json), or caught by the client before sending (InvalidRequestError).
// Retrying the same request cannot succeed.
func IsValidation(err error) bool {
	var ire *InvalidRequestError
	if errors.As(err, &ire) {
		return true
	}
	e, ok := asAPIError(err)
	return ok && (e.StatusCode == http.StatusBadRequest || e.Code == api.CodeValidationFailed || e.Code == api.CodeMalformedJSON)
}

// IsInvalidState reports whether err is a 422: the object's status does not allow the operation (for
// example completing a payment that is not pending).
func IsInvalidState(err error) bool {
	e, ok := asAPIError(err)
	return ok && (e.StatusCode == http.StatusUnprocessableEntity || e.Code == api.CodeInvalidState)
}

// IsRateLimited reports whether err is a 429 that was still returned after the retries: slow down.
func IsRateLimited(err error) bool {
	e, ok := asAPIError(err)
	return ok && (e.StatusCode == http.StatusTooManyRequests || e.Code == api.CodeRateLimited)
}

func asAPIError(err error) (*APIError, bool) {
	var e *APIError
	if errors.As(err, &e) && e != nil {
		return e, true
	}
	return nil, false
}

// maxQuoted is how much of a body that is not an error envelope an APIError quotes.
const maxQuoted = 200

// newAPIError builds the error of a non-2xx response from its body. scrub removes the secret key from
// any text the server sent back.
func newAPIError(op string, status int, header http.Header, body []byte, scrub func(string) string) *APIError {
	e := &APIError{Operation: op, StatusCode: status}
	var env api.Error
	if err := json.Unmarshal(body, &env); err == nil && env.Status == api.ErrorStatusError && env.Code != 0 {
		e.Code = env.Code
		e.Message = scrub(env.Message)
		for _, f := range env.Errors {
			e.Errors = append(e.Errors, FieldError{Field: scrub(f.Field), Reason: scrub(f.Reason)})
		}
		if env.Data != nil {
			e.ExistingID = scrub(env.Data.ExistingID)
		}
		return e
	}
	// Scrubbed before quoting too: quoting doubles the backslash of a JSON-escaped secret (\/), which
	// the scrub pattern then no longer sees.
	e.Message = scrub(describeBody(header.Get("Content-Type"), []byte(scrub(string(body))), "the response is not a Malipo error envelope"))
	return e
}

// describeBody says what a body that could not be used is, quoting at most maxQuoted bytes of it.
func describeBody(contentType string, body []byte, what string) string {
	if contentType == "" {
		contentType = "no Content-Type"
	}
	if len(body) == 0 {
		return what + " (" + contentType + ", empty body)"
	}
	return fmt.Sprintf("%s (%s, %d bytes): %s", what, contentType, len(body), quote(body))
}

// quote renders up to maxQuoted bytes of b as a Go string literal, cut on a rune boundary.
func quote(b []byte) string {
	if len(b) <= maxQuoted {
		return strconv.Quote(string(b))
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
}
