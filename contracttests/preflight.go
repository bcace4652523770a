package contracttests

import (
	"context"
	"fmt"
	"net/http"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/runner"
)

// The preflight tells a run that cannot judge the target from one that finds it broken. Before any
// check, it proves that the target answers and accepts the keys; the document's 401 codes do not say
// which key was refused (invalid_api_key covers a wrong key and a mismatched pair alike), but its
// security requirements do: an operation that needs only the public key is asked first, then one
// that needs both. During the run, a request that gets no answer at all makes the suite ask the
// target again (harness.Suite's confirmAlive): a target that no longer answers aborts the run instead of failing
// every remaining check with "connection refused".

// Operations the preflight asks, by what they need: listCountries only the public key, getPayout
// both keys (TestPreflightOperationsNeedTheKeysItAssumes holds the document to that).
var (
	preflightPublicOnly = harness.PingOperation
	preflightBothKeys   = api.OpGetPayout()
)

// keyPair names one pair of keys in messages: which flags and variables to correct.
type keyPair struct {
	keys                   Keys
	owner                  string // "" for the target's merchant, "second merchant's " for OtherMerchant
	publicFlag, secretFlag string
}

// extensionProbes are the extensions of the contract a target may leave out, each with the operation
// whose 404 (or 501) says that it did: every operation of the probe's extension tag is then left out.
var extensionProbes = []struct {
	name  string // in messages: "the target does not implement the <name> extension"
	probe api.Operation
}{
	{harness.ExtensionWebhookEndpoints, api.OpListWebhookEndpoints()},
	{harness.ExtensionEventLog, api.OpListEvents()},
}

// preflight checks that the target answers and accepts every key pair of the configuration, and
// which extensions of the contract it has. Its errors are runner.ErrSetup (and runner.ErrUnreachable when the
// target does not answer), or runner.ErrInterrupted when ctx ends.
func (s *session) preflight(ctx context.Context) error {
	pairs := []keyPair{{keys: s.cfg.Keys, publicFlag: "--public-key (or MALIPO_PUBLIC_KEY)", secretFlag: "--secret-key (or MALIPO_SECRET_KEY)"}}
	if s.cfg.OtherMerchant != nil {
		pairs = append(pairs, keyPair{keys: *s.cfg.OtherMerchant, owner: "second merchant's ",
			publicFlag: "--other-public-key", secretFlag: "--other-secret-key"})
	}
	for _, p := range pairs {
		if err := s.preflightKeys(ctx, p); err != nil {
			return err
		}
	}
	if err := s.probeScenarios(ctx); err != nil {
		return err
	}
	s.extensionOfTag, s.absentExtensions = map[string]string{}, map[string]string{}
	for _, ext := range extensionProbes {
		probe, ok := s.inRunDocument(ext.probe)
		if !ok {
			// The document lacks the extension: its checks are skipped for that reason.
			continue
		}
		if doc, ok := s.spec.Operation(probe.ID); ok {
			for _, tag := range doc.ExtensionTags {
				s.extensionOfTag[tag] = ext.name
			}
		}
		status, _, err := s.Get(ctx, probe, probe.URL(), s.cfg.Keys, nil)
		if err != nil {
			return s.unanswered(ctx, err)
		}
		if status == http.StatusNotFound || status == http.StatusNotImplemented {
			s.absentExtensions[ext.name] = probe.Method + " " + probe.Path
		}
	}
	s.Found(s.scenarios, s.absentExtensions)
	return nil
}

// probeScenarios asks whether the target plays the sandbox's error scenarios (api.HeaderSandboxScenario):
// a target that answers the internal_error scenario with 500 does, and the scenario checks run; any
// other answer (a production implementation ignores the header) skips them.
func (s *session) probeScenarios(ctx context.Context) error {
	op, _ := s.inRunDocument(preflightPublicOnly)
	status, _, err := s.Get(ctx, op, op.URL(), s.cfg.Keys, http.Header{api.HeaderSandboxScenario: {string(api.ScenarioInternalError)}})
	if err != nil {
		return s.unanswered(ctx, err)
	}
	s.scenarios = status == http.StatusInternalServerError
	return nil
}

// absentExtension names an extension check c needs that the target lacks, and the probe that told:
// the extensions of the operations it covers (the webhook-endpoint extension when it covers none).
func (s *session) absentExtension(c *Check) (name, probe string) {
	var needed []string
	for _, cover := range c.Covers {
		op, ok := s.spec.Operation(cover)
		if !ok || op.Webhook {
			continue
		}
		for _, tag := range op.Tags {
			if ext, ok := s.extensionOfTag[tag]; ok {
				needed = append(needed, ext)
			}
		}
	}
	if len(needed) == 0 {
		needed = []string{extensionProbes[0].name}
	}
	for _, ext := range needed {
		if probe, absent := s.absentExtensions[ext]; absent {
			return ext, probe
		}
	}
	return "", ""
}

// inRunDocument returns op with the method and path the run's document gives its operationId (they
// differ from package api's under --spec when the next version moves a path), and whether the document
// has it; without it, op is returned as package api has it.
func (s *session) inRunDocument(op api.Operation) (api.Operation, bool) {
	doc, ok := s.spec.Operation(op.ID)
	if !ok || doc.Webhook {
		return op, false
	}
	op.Method, op.Path = doc.Method, doc.Path
	return op, true
}

// preflightKeys asks an operation that needs only the public key, then one that needs both: a 401 to
// the first refuses the public key, a 401 to the second the secret key (or the pair).
func (s *session) preflightKeys(ctx context.Context, p keyPair) error {
	op, _ := s.inRunDocument(preflightPublicOnly)
	status, answer, err := s.Get(ctx, op, op.URL(), p.keys, nil)
	switch {
	case err != nil:
		return s.unanswered(ctx, err)
	case status == http.StatusUnauthorized:
		return fmt.Errorf("%w: the target refused the %spublic key: %s %s, which needs only the public key, answered 401%s; check %s: it must be a test public key of this target",
			runner.ErrSetup, p.owner, op.Method, op.Path, answer, p.publicFlag)
	case status == http.StatusNotFound:
		return fmt.Errorf("%w: the target answered 404 to %s %s, which every implementation has; is --target %s the API's base URL, the one its paths start from?",
			runner.ErrSetup, op.Method, op.Path, s.cfg.BaseURL)
	}
	op, _ = s.inRunDocument(preflightBothKeys)
	status, answer, err = s.Get(ctx, op, op.URL(harness.UnknownID), p.keys, nil)
	switch {
	case err != nil:
		return s.unanswered(ctx, err)
	case status == http.StatusUnauthorized:
		return fmt.Errorf("%w: the target accepted the %spublic key but refused the secret key: %s %s, which needs both keys, answered 401%s; check %s: it must be the secret key of the same merchant as the public key",
			runner.ErrSetup, p.owner, op.Method, op.Path, answer, p.secretFlag)
	}
	return nil
}

// unanswered is the preflight's error for a request that got no answer.
func (s *session) unanswered(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w before any check ran: %w", runner.ErrInterrupted, context.Cause(ctx))
	}
	return fmt.Errorf("%w: %w: %s: %w; check --target and that the service is running", runner.ErrSetup, runner.ErrUnreachable, s.cfg.BaseURL, err)
}
