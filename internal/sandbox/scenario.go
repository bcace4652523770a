package sandbox

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The scenario header (api.HeaderSandboxScenario, described by the document's "Sandbox controls"
// tag): one request answers an error scenario, so that a client can test its retry path against the
// sandbox. 429 and 500 are documented on every operation; without this no client could see them. A
// value it cannot play is a 400, which the document has every operation declare for that reason.

// slowDelay is how late a `slow` answer comes by default: past the 30-second time-out common in
// HTTP clients. maxSlowDelay bounds `delay_ms`.
const (
	slowDelay    = 35 * time.Second
	maxSlowDelay = 120 * time.Second
)

// maxEchoedScenario bounds how much of a bad scenario value the answer and the log repeat: the header
// is the client's, and may be as long as the server lets headers be.
const maxEchoedScenario = 64

// rateLimitRetryAfter is the Retry-After of a rate_limited answer, in seconds.
const rateLimitRetryAfter = 1

// scenario is a parsed scenario header; kind is empty without one.
type scenario struct {
	kind  api.SandboxScenario
	delay time.Duration
}

// scenarioField names the header in the field errors of a bad scenario, as the document writes
// header fields.
var scenarioField = "header." + strings.ToLower(api.HeaderSandboxScenario)

// scenario parses the request's scenario header: a scenario name, and for slow an optional
// `; delay_ms=N`. Anything else is a 400 naming the header and the values it takes.
func parseScenario(h http.Header) (scenario, *FieldError) {
	raw := strings.TrimSpace(h.Get(api.HeaderSandboxScenario))
	if raw == "" {
		return scenario{}, nil
	}
	name, param, hasParam := strings.Cut(raw, ";")
	sc := scenario{kind: api.SandboxScenario(strings.TrimSpace(name))}
	known := false
	for _, k := range api.SandboxScenarios() {
		known = known || k == sc.kind
	}
	if !known {
		return scenario{}, &FieldError{Field: scenarioField,
			Reason: fmt.Sprintf("unknown scenario %q: use one of %s", echoed(strings.TrimSpace(name)), scenarioNames())}
	}
	if sc.kind == api.ScenarioSlow {
		sc.delay = slowDelay
	}
	if hasParam {
		key, value, _ := strings.Cut(strings.TrimSpace(param), "=")
		ms, err := strconv.Atoi(strings.TrimSpace(value))
		if sc.kind != api.ScenarioSlow || strings.TrimSpace(key) != "delay_ms" || err != nil || ms < 0 || time.Duration(ms)*time.Millisecond > maxSlowDelay {
			return scenario{}, &FieldError{Field: scenarioField,
				Reason: fmt.Sprintf("only slow takes a parameter, delay_ms=N with N from 0 to %d (e.g. \"slow; delay_ms=2000\")", maxSlowDelay.Milliseconds())}
		}
		sc.delay = time.Duration(ms) * time.Millisecond
	}
	return sc, nil
}

// scenarioNames lists the values the scenario header takes, for the answer and the log of a bad one.
func scenarioNames() string {
	names := make([]string, 0, len(api.SandboxScenarios()))
	for _, k := range api.SandboxScenarios() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// echoed is a client's header value cut to maxEchoedScenario bytes, for an answer or a log line.
func echoed(v string) string {
	if len(v) <= maxEchoedScenario {
		return v
	}
	return v[:maxEchoedScenario] + "…"
}

// refuseScenario answers a scenario header the sandbox cannot play with the 400 the document promises
// on every operation ("Sandbox controls" tag), and warns in the log: a misspelt scenario answered
// normally would pass for a client's retry path working when it was never exercised.
func (s *Server) refuseScenario(op *openapi.Operation, h http.Header, bad FieldError) *response {
	s.log.Warn("scenario header refused: the request was not carried out",
		"operation", op.ID, "header", api.HeaderSandboxScenario,
		"value", echoed(strings.TrimSpace(h.Get(api.HeaderSandboxScenario))), "valid", scenarioNames(), "reason", bad.Reason)
	return s.invalid(bad)
}

// answer is the response of a scenario that does nothing: rate_limited or internal_error.
func (sc scenario) answer(s *Server) *response {
	if sc.kind == api.ScenarioRateLimited {
		resp := s.fail(api.CodeRateLimited, fmt.Sprintf("Too many requests (sandbox scenario %s); retry after %d second.", sc.kind, rateLimitRetryAfter), nil, nil)
		resp.set(api.HeaderRetryAfter, strconv.Itoa(rateLimitRetryAfter))
		return resp
	}
	return s.fail(api.CodeInternalError, fmt.Sprintf("An internal error occurred (sandbox scenario %s); nothing was done: retry with the same Idempotency-Key.", sc.kind), nil, nil)
}

// after runs once the request was carried out: slow waits before the answer is written (or until the
// client gives up), drop_after_write closes the connection without one. net/http closes the
// connection on http.ErrAbortHandler without logging a stack.
func (sc scenario) after(r *http.Request) {
	switch sc.kind {
	case api.ScenarioSlow:
		t := time.NewTimer(sc.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
		}
	case api.ScenarioDropAfterWrite:
		panic(http.ErrAbortHandler)
	}
}
