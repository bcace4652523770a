package faults

import (
	"slices"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Wrappers of the sandbox's state rules. Each embeds the contract's rules and replaces one of them.

// referencesReusable gives a merchant reference to every new object, whoever held it before.
type referencesReusable struct{ sandbox.Rules }

func (referencesReusable) ClaimReference(refs map[string]string, ref, id string) (string, bool) {
	refs[ref] = id
	return "", true
}

// anyDestination accepts any countryId and bank_id. A country it does not know has ISO 4217's "no
// currency", XXX.
type anyDestination struct{ sandbox.Rules }

func (r anyDestination) PayoutDestination(countryID string, transferTo api.TransferTo, bankID string) (sandbox.Country, []sandbox.FieldError) {
	country, problems := r.Rules.PayoutDestination(countryID, transferTo, bankID)
	if len(problems) == 0 {
		return country, nil
	}
	if country, problems = r.Rules.PayoutDestination(countryID, api.TransferToMobileNumber, ""); len(problems) == 0 {
		return country, nil // a known country with an unknown or foreign bank
	}
	return sandbox.Country{ID: countryID, CurrencyCode: "XXX"}, nil
}

// anyURL stores every URL the document's pattern lets through, usable or not.
type anyURL struct{ sandbox.Rules }

func (anyURL) URLProblem(string) string { return "" }

// disabledReceives delivers to subscribed endpoints whether they are enabled or not.
type disabledReceives struct{ sandbox.Rules }

func (disabledReceives) Receives(e sandbox.WebhookEndpoint, t api.EventType) bool {
	return slices.Contains(e.Events, t)
}

// keepEarlierSecrets lets every earlier secret keep signing through its grace period, although the
// rotation's response names only the one it replaced.
type keepEarlierSecrets struct{ sandbox.Rules }

func (keepEarlierSecrets) EarlierSecretsKept(inGrace int) int { return inGrace }
