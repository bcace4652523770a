package sandbox

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// authenticate finds the merchant a request acts for. Which key headers are needed comes from the
// operation's security requirements in the document: both keys for most operations, the public key
// only for completing a payment and reading reference data. A missing header is 401/2000, a key that
// is unknown or not the merchant's pair is 401/2001. It runs before body validation, so a request
// without keys learns about the keys first.
func (s *Server) authenticate(op *openapi.Operation, h http.Header) (*merchant, *response) {
	needed := requiredKeyHeaders(op)
	var missing []FieldError
	for _, name := range needed {
		if strings.TrimSpace(h.Get(name)) == "" {
			missing = append(missing, FieldError{Field: "header." + name, Reason: "required header is missing"})
		}
	}
	if len(missing) > 0 {
		names := make([]string, len(missing))
		for i, f := range missing {
			names[i] = strings.TrimPrefix(f.Field, "header.")
		}
		return nil, s.fail(api.CodeMissingAPIKey, fmt.Sprintf("The %s header is missing. Send the merchant's %s in the %s header.",
			strings.Join(names, " and "), keyWords(names), strings.Join(names, " and ")), missing, nil)
	}
	m := s.merchantByPublicKey(strings.TrimSpace(h.Get(api.HeaderPublicKey)))
	if m == nil {
		return nil, s.fail(api.CodeInvalidAPIKey, "The public-key is not valid. Use the public key of your merchant account (the sandbox prints it at start-up).",
			[]FieldError{{Field: "header." + api.HeaderPublicKey, Reason: "unknown key"}}, nil)
	}
	if contains(needed, api.HeaderSecretKey) &&
		!equalConstantTime(m.secretKey, strings.TrimSpace(h.Get(api.HeaderSecretKey))) {
		return nil, s.fail(api.CodeInvalidAPIKey, "The secret-key is not valid for this public-key. Send the secret key that belongs to the same merchant as the public key.",
			[]FieldError{{Field: "header." + api.HeaderSecretKey, Reason: "not the secret key of this merchant"}}, nil)
	}
	return m, nil
}

// requiredKeyHeaders returns the key headers of the operation's first security requirement, with the
// public key first. Every operation of the contract has exactly one requirement.
func requiredKeyHeaders(op *openapi.Operation) []string {
	if len(op.KeyHeaders) == 0 {
		return nil
	}
	var out []string
	for _, h := range op.KeyHeaders[0] {
		if h == api.HeaderPublicKey {
			out = append([]string{h}, out...)
		} else {
			out = append(out, h)
		}
	}
	return out
}

func keyWords(headers []string) string {
	words := make([]string, len(headers))
	for i, h := range headers {
		words[i] = strings.ReplaceAll(h, "-", " ")
	}
	return strings.Join(words, " and ")
}

// equalConstantTime compares two keys without leaking, through timing, how long a common prefix is.
func equalConstantTime(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
