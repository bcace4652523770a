package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox/store"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// DefaultGracePeriod is how long a rotated-out endpoint secret keeps signing deliveries when
// rotate-secret is called without grace_period_seconds (the spec's default).
const DefaultGracePeriod = 86400 * time.Second

// withSecret is the body of create and rotate-secret, the only responses that show a secret.
func withSecret(e WebhookEndpoint, secret string, previousExpires *time.Time) api.WebhookEndpointWithSecret {
	return api.WebhookEndpointWithSecret{ID: e.ID, URL: e.URL, Events: e.Events, Description: e.Description,
		Enabled: e.Enabled, Secret: secret, PreviousSecretExpiresAt: previousExpires, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

func (s *Server) createWebhookEndpoint(req *request) *response {
	var in api.WebhookEndpointCreateRequest
	if fail := s.decode(req.value, &in); fail != nil {
		return fail
	}
	if fail := s.checkURLs([2]string{"/url", in.URL}); fail != nil {
		return fail
	}
	secret, fail := s.endpointSecret(in.Secret, "generate the endpoint's secret")
	if fail != nil {
		return fail
	}
	if n := len(req.m.st.Endpoints()); n >= s.limits.endpoints {
		return s.fail(api.CodeLimitReached, fmt.Sprintf("This merchant already has %d webhook endpoints, the most it can have; delete one (%s %s) before creating another.",
			n, api.OpDeleteWebhookEndpoint().Method, api.OpDeleteWebhookEndpoint().Path), nil, nil)
	}
	now := s.now()
	e := store.Endpoint{
		WebhookEndpoint: WebhookEndpoint{ID: newID(prefixEndpoint), URL: in.URL, Events: slices.Clone(in.Events),
			Description: nonEmpty(deref(in.Description)), Enabled: in.Enabled == nil || *in.Enabled, CreatedAt: now, UpdatedAt: now},
		Secret: secret,
	}
	req.m.st.PutEndpoint(req.tx, e)
	return s.success(http.StatusCreated, "Webhook endpoint created", withSecret(e.Public(), secret.Reveal(), nil))
}

func (s *Server) listWebhookEndpoints(req *request) *response {
	all := req.m.st.Endpoints()
	out := make([]any, 0, len(all))
	for _, e := range all {
		out = append(out, e.Public())
	}
	return s.success(http.StatusOK, "Webhook endpoints retrieved", out)
}

func (s *Server) endpointNotFound(id string) *response {
	return s.notFound(fmt.Sprintf("No webhook endpoint %s exists for this merchant.", id))
}

func (s *Server) getWebhookEndpoint(req *request) *response {
	id := req.params["id"]
	e, ok := req.m.st.Endpoint(id)
	if !ok {
		return s.endpointNotFound(id)
	}
	return s.success(http.StatusOK, "Webhook endpoint retrieved", e.Public())
}

// updateWebhookEndpoint merges the given fields into the endpoint (JSON merge semantics without
// nulls); the secret is untouched.
func (s *Server) updateWebhookEndpoint(req *request) *response {
	var in api.WebhookEndpointUpdateRequest
	if fail := s.decode(req.value, &in); fail != nil {
		return fail
	}
	id := req.params["id"]
	e, ok := req.m.st.Endpoint(id)
	if !ok {
		return s.endpointNotFound(id)
	}
	if in.URL != nil {
		if fail := s.checkURLs([2]string{"/url", *in.URL}); fail != nil {
			return fail
		}
		e.URL = *in.URL
		e.Seeded = false // a url of the merchant's own: deliveries start
	}
	if in.Events != nil {
		e.Events = slices.Clone(in.Events)
	}
	if in.Description != nil {
		e.Description = nonEmpty(*in.Description) // "" clears the note
	}
	if in.Enabled != nil {
		e.Enabled = *in.Enabled
	}
	e.UpdatedAt = s.now()
	req.m.st.PutEndpoint(req.tx, e)
	return s.success(http.StatusOK, "Webhook endpoint updated", e.Public())
}

// deleteWebhookEndpoint removes the endpoint; queued deliveries to it are dropped at their next
// attempt.
func (s *Server) deleteWebhookEndpoint(req *request) *response {
	id := req.params["id"]
	if !req.m.st.DeleteEndpoint(req.tx, id) {
		return s.endpointNotFound(id)
	}
	return &response{status: http.StatusNoContent}
}

// endpointSecret is the secret a create or rotate-secret asks for: the one the body supplies, used
// exactly as given, or else a new one. A supplied secret that webhook.ParseEndpointSecret refuses is a
// 400 naming /secret; validation refuses it first (the schema's pattern and lengths are the parser's
// rule, TestEndpointSecretSchemaIsTheParser), so this is reached with validation off.
func (s *Server) endpointSecret(supplied api.SecretString, generating string) (webhook.Secret, *response) {
	if supplied == "" {
		secret, err := webhook.NewSecret()
		if err != nil {
			return webhook.Secret{}, s.internalError(generating)
		}
		return secret, nil
	}
	secret, err := webhook.ParseEndpointSecret(string(supplied))
	if err != nil {
		return webhook.Secret{}, s.invalid(secretProblem(err))
	}
	return secret, nil
}

// secretProblem is the error entry for a refused /secret: the parser's words, which say what is wrong
// and how to make a good secret, and never quote it.
func secretProblem(err error) FieldError {
	return FieldError{Field: secretField, Reason: strings.TrimPrefix(err.Error(), "webhook: ")}
}

// secretField is the pointer of the secret in create's and rotate-secret's bodies.
const secretField = "/secret"

// explainSecret gives the violations of a refused /secret of create or rotate-secret (the schema's
// pattern and lengths, in the validator's general words) one entry with the parser's reason instead:
// how many bytes it decodes to and how to make a good one. Other violations are kept.
func explainSecret(op string, value any, vs openapi.Violations) openapi.Violations {
	if op != api.OpCreateWebhookEndpoint().ID && op != api.OpRotateWebhookEndpointSecret().ID {
		return vs
	}
	body, _ := value.(map[string]any)
	supplied, ok := body[strings.TrimPrefix(secretField, "/")].(string)
	if !ok {
		return vs // not a string: the validator's "got number, want string" says it
	}
	_, err := webhook.ParseEndpointSecret(supplied)
	if err == nil {
		return vs
	}
	out := make(openapi.Violations, 0, len(vs))
	explained := false
	for _, v := range vs {
		if v.Pointer != secretField {
			out = append(out, v)
			continue
		}
		if !explained {
			explained = true
			v.Message = secretProblem(err).Reason
			out = append(out, v)
		}
	}
	return out
}

// rotateWebhookEndpointSecret issues a new secret. The one it replaces keeps signing deliveries (next
// to the new one) until previous_secret_expires_at, so a receiver can switch without rejecting
// anything. The response is the whole truth about which secrets sign afterwards: the new one, and the
// replaced one while its grace lasts. Secrets retired by earlier rotations stop signing at once, even
// inside their own grace period, so a rotation with grace 0 (the answer to a leaked secret) leaves
// exactly one valid secret.
func (s *Server) rotateWebhookEndpointSecret(req *request) *response {
	var in api.RotateSecretRequest
	if fail := s.decode(req.value, &in); fail != nil {
		return fail
	}
	grace := DefaultGracePeriod
	if in.GracePeriodSeconds != nil {
		if *in.GracePeriodSeconds < 0 || *in.GracePeriodSeconds > 604800 {
			// Only reachable with validation off: the schema bounds it.
			return s.invalid(FieldError{Field: "/grace_period_seconds", Reason: "must be between 0 and 604800"})
		}
		grace = time.Duration(*in.GracePeriodSeconds) * time.Second
	}
	secret, fail := s.endpointSecret(in.Secret, "generate the endpoint's new secret")
	if fail != nil {
		return fail
	}
	id := req.params["id"]
	e, ok := req.m.st.Endpoint(id)
	if !ok {
		return s.endpointNotFound(id)
	}
	now := s.now()
	expires := now.Add(grace)
	// Only the previous secrets still in grace count: the expired ones sign nothing any more.
	e.Previous = slices.DeleteFunc(e.Previous, func(p store.PreviousSecret) bool { return !now.Before(p.Expires) })
	kept := s.rules.EarlierSecretsKept(len(e.Previous))
	e.Previous = slices.Clone(e.Previous[len(e.Previous)-kept:])
	if grace > 0 {
		e.Previous = append(e.Previous, store.PreviousSecret{Secret: e.Secret, Expires: expires})
	}
	e.Secret = secret
	e.UpdatedAt = now
	req.m.st.PutEndpoint(req.tx, e)
	out := withSecret(e.Public(), secret.Reveal(), &expires)
	return s.success(http.StatusOK, "Webhook endpoint secret rotated", out)
}
