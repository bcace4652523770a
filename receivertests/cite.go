package receivertests

import (
	"fmt"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Where the document itself states a rule the grader enforces: its pointer and, for a rule in a
// description, the sentence. Reports and CI annotations place a failure there (the file and line);
// a rule only Standard Webhooks states (the signature's version prefix) has no place in the document
// and is cited in words alone.

// The document's sentences the grader cites, found there by TestCitedRulesAreInTheDocument.
const (
	// toleranceQuote is the introduction's rule on timestamps and duplicates ("Verifying webhooks").
	toleranceQuote = "Reject deliveries whose `webhook-timestamp` is more than five minutes from your clock, and deduplicate on `webhook-id`: delivery is at least once."
	// additiveQuote is the Events tag's rule on how events change.
	additiveQuote = "Events change only by addition: new fields can appear in any event and in its object, and new event types can be added, without a new API version."
)

// cite returns where the document states rule for deliveries of eventType, or the zero Rule when it
// does not (or the document moved it: the failure then cites the rule in words only).
func (g *grader) cite(rule, eventType string) report.Rule {
	var r report.Rule
	switch rule {
	case ruleAuthentic, ruleRawBody:
		r.Pointer = g.spec.WebhookParameter(eventType, webhook.HeaderSignature)
	case ruleSeveral, ruleRotation:
		if p := g.spec.WebhookParameter(eventType, webhook.HeaderSignature); p != "" {
			r = report.Rule{Pointer: p + "/description", Quote: severalAcceptQuote}
		}
	case ruleTolerance, ruleIdempotency:
		r = report.Rule{Pointer: "#/info/description", Quote: toleranceQuote}
	case ruleTimeout:
		if tag := eventsTag(g.spec); tag != "" {
			r.Pointer = tag + "/" + openapi.DeliveryTimeoutExtension
		}
	case ruleAdditive:
		if tag := eventsTag(g.spec); tag != "" {
			r = report.Rule{Pointer: tag + "/description", Quote: additiveQuote}
		}
	case ruleSchema:
		r.Pointer = "#/webhooks/" + eventType + "/post/requestBody"
	}
	if r.Pointer == "" {
		return report.Rule{}
	}
	if _, err := g.spec.Resolve(r.Pointer); err != nil {
		return report.Rule{}
	}
	if r.Quote != "" && g.spec.Says(r.Pointer, r.Quote) != nil {
		return report.Rule{}
	}
	return r
}

// placed completes a rule for the reports: the document's words at its pointer when it quotes none,
// and the file and line where it is stated.
func (g *grader) placed(r report.Rule) report.Rule {
	if r.Pointer == "" {
		return r
	}
	if r.Quote == "" {
		r.Says = g.spec.Words(r.Pointer)
	}
	if line := g.spec.QuoteLine(r.Pointer, r.Quote); line > 0 {
		r.At = report.Place{File: g.spec.Path(), Line: line}
	}
	return r
}

// eventsTag is the pointer of the tag that carries the webhook delivery time-out (the Events tag), ""
// when none does.
func eventsTag(spec *openapi.Spec) string {
	for i := 0; ; i++ {
		tag := fmt.Sprintf("#/tags/%d", i)
		if _, err := spec.Resolve(tag); err != nil {
			return ""
		}
		if _, err := spec.Resolve(tag + "/" + openapi.DeliveryTimeoutExtension); err == nil {
			return tag
		}
	}
}
