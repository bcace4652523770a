package sandbox

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
)

// urlProblem is what the contract's WebhookURL rule asks beyond its pattern: the URL must parse, be
// absolute http or https, and name a host. The pattern alone lets through text such as "http://[x" or
// "http://:80/" that no HTTP client can deliver to; storing it would only produce failed deliveries
// later, far from the request that caused them. It returns "" when raw is a usable URL.
func urlProblem(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "is not a URL: " + trimURLError(err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "must be an absolute http or https URL"
	case u.Opaque != "" || u.Hostname() == "":
		return "must name a host, as in https://merchant.example.org/hooks"
	case strings.Contains(u.Hostname(), ":") && !strings.HasPrefix(u.Host, "["):
		return "an IPv6 address must be in brackets, as in http://[::1]:8080/hooks"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "the port must be between 1 and 65535"
		}
	}
	return ""
}

// trimURLError keeps url.Parse's reason without repeating the (possibly long) input.
func trimURLError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// checkURLs returns a validation failure naming every field whose URL is unusable; empty values are
// skipped (the schema decides whether a field is required).
func (s *Server) checkURLs(fields ...[2]string) *response {
	var bad []FieldError
	for _, f := range fields {
		if f[1] == "" {
			continue
		}
		if p := s.rules.URLProblem(f[1]); p != "" {
			bad = append(bad, FieldError{Field: f[0], Reason: p})
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return s.invalid(bad...)
}
