package harness

import (
	"fmt"
	"strings"
	"sync"

	"github.com/malipo/terraform-provider-malipo/contracttests/links"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Running the suite from another version of the document (Config.Spec, `malipo conform --spec FILE`).
//
// The derived checks are built from whichever document AllFor (package checks) is given, and the
// run validates every exchange and delivery against Config.Spec. The hand-written checks name
// operations through package api, whose table is compiled from the embedded document; a later
// version may move a path, change a method, or drop the operation. Rather than have each check look
// its operations up, every request goes through one seam, documentRequest (called by send): the
// request is routed against the embedded document, which tells which operation the check meant and
// the values of its path parameters, and is rewritten to that operation's method and path in the
// run's document. When the run's document lacks the operation, the check is skipped, naming it.
// Checks also skip, with the reason, when the document lacks an operation or webhook they cover
// (Suite.MissingCover), a request example they send (ExampleBody), a test value of the kind they
// need (Inputs), or an error code they expect (ExpectError): a document that says nothing about a
// behaviour cannot be conformed to or broken.

// coverSet records what a set of checks of a run cover (the skipped ones, the ones that ran), so that
// webhooks.all-types-observed can tell an event type the target never sent from one whose checks did
// not run.
type coverSet struct {
	mu     sync.Mutex
	covers map[string]bool
}

func (s *coverSet) note(c *Check) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.covers == nil {
		s.covers = map[string]bool{}
	}
	for _, cover := range c.Covers {
		s.covers[cover] = true
	}
}

func (s *coverSet) has(cover string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.covers[cover]
}

// MissingCover returns why c cannot run against the run's document: the first operation or webhook
// type it covers that the document does not declare; "" when it declares them all. It notes what c
// covers as covered by a skipped check when it returns a reason.
func (s *Suite) MissingCover(c *Check) string {
	reason := s.firstMissingCover(c)
	if reason != "" {
		s.skipped.note(c)
	}
	return reason
}

func (s *Suite) firstMissingCover(c *Check) string {
	for _, cover := range c.Covers {
		if _, ok := s.spec.Operation(cover); ok {
			continue
		}
		if _, ok := s.spec.Webhook(cover); ok {
			continue
		}
		// Event types are `<object>.<status>`; operation ids have no dot.
		if strings.Contains(cover, ".") {
			return "the document declares no webhook " + cover + " (under webhooks), which this check needs"
		}
		return "the document has no operation " + cover + ", which this check needs"
	}
	return ""
}

// InDocumentTerms marks a request whose method and path were taken from the run's document already
// (the derived checks), so that documentRequest leaves it as it is.
func InDocumentTerms() ReqOption { return func(r *request) { r.documented = true } }

// documentRequest rewrites a request a check built from package api (the embedded document's
// operations) into the run's document: the same operation, by operationId, with the document's method
// and path and the path parameter values the check gave. A path no operation of the embedded document
// has (negative.unknown-path) is sent as it is; a method the path does not take (negative.unknown-method)
// keeps its method and gets the document's path. It skips the check when the document has no such
// operation, and does nothing when the run checks the embedded document itself.
func (t *T) documentRequest(r *request) {
	if r.documented {
		return
	}
	embedded, err := openapi.Default()
	if err != nil {
		t.Fatalf("load the embedded contract: %v", err)
	}
	if t.suite.spec == embedded {
		return
	}
	path, query, hasQuery := strings.Cut(r.path, "?")
	op, params, allowed := embedded.Route(r.method, path)
	sameMethod := op != nil
	if op == nil {
		if len(allowed) == 0 {
			return
		}
		op, params, _ = embedded.Route(allowed[0], path)
	}
	doc, ok := t.suite.spec.Operation(op.ID)
	if !ok || doc.Webhook {
		t.Skip("the document has no operation " + op.ID + ", which this check needs")
	}
	expanded, missing := links.ExpandTemplate(doc.Path, params)
	if missing != "" {
		t.Skip(fmt.Sprintf("the document's path of %s, %s, takes the parameter {%s}, for which this check has no value", op.ID, doc.Path, missing))
	}
	if hasQuery {
		expanded += "?" + query
	}
	r.path = expanded
	if sameMethod {
		r.method = doc.Method
	}
}

// DocumentOperation returns the run's document's operation for one of package api's, or skips the
// check when the document has none.
func (t *T) DocumentOperation(op api.Operation) *openapi.Operation {
	doc, ok := t.suite.spec.Operation(op.ID)
	if !ok || doc.Webhook {
		t.Skip("the document has no operation " + op.ID + ", which this check needs")
	}
	return doc
}

// The extensions of the contract a target may leave out, by the names the preflight's skip reasons
// give them ("the target does not implement the <name> extension").
const (
	ExtensionWebhookEndpoints = "webhook-endpoint"
	ExtensionEventLog         = "event-log"
)

// IsExtensionIn reports whether the document puts the operation in an extension of the contract (a tag
// marked x-malipo-extension), which a target may leave out. It reads the document rather than package
// api, so that an operation only a later version of the document has is classified too.
func IsExtensionIn(op *openapi.Operation) bool {
	return len(op.ExtensionTags) > 0
}

// needWebhook skips the check when a delivery it received has an event type that the embedded
// document declares and the run's document does not: the check relied on it (subscribed to it, or
// drove an object to the status it reports), and the document no longer says what it looks like. A
// type the run's document does not declare never reaches a check (Delivery.Undeclared): the document
// lets new event types appear without a new API version.
func (t *T) needWebhook(eventType string) {
	if _, ok := t.suite.spec.Webhook(eventType); ok {
		return
	}
	embedded, err := openapi.Default()
	if err != nil {
		t.Fatalf("load the embedded contract: %v", err)
	}
	if _, ok := embedded.Webhook(eventType); ok {
		t.Skip("the document declares no webhook " + eventType + " (under webhooks), which this check needs")
	}
}

// needOperations skips the check when the run's document lacks one of the operations.
func (t *T) needOperations(ops ...api.Operation) {
	for _, op := range ops {
		t.DocumentOperation(op)
	}
}

// APIOperations returns the document's operations of the API: without the sandbox's controls (tag
// x-malipo-sandbox-only), which no production implementation has and the suite does not derive checks
// or coverage from.
func APIOperations(spec *openapi.Spec) []*openapi.Operation {
	var out []*openapi.Operation
	for _, op := range spec.Operations() {
		if !op.SandboxOnly {
			out = append(out, op)
		}
	}
	return out
}
