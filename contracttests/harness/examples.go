package harness

import (
	"encoding/json"
	"fmt"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Request bodies come from the document's examples. A check that needs a valid body starts from the
// example malipo.yaml gives for the operation and replaces only what the target or the run decides
// (bodyInputs), so that a new operation with an example gets its derived checks without code, and a
// changed field or constraint is followed by every check at once.

// bodyInputs are the request properties whose example value a check must not send as it is, with the
// value the run sends instead. The examples name one implementation's reference data and objects
// that may already exist, and point webhooks at a host of the document's: a check sends the target's
// reference data, a fresh merchant reference (so that each request makes its own object), the run's
// webhook receiver, the test value with the outcome the hand-written checks rely on (success, see
// Inputs; the example's own value when the document has no such test value), and a narration that
// names the check, so that objects on a shared target can be traced. A nil value keeps the example's.
var bodyInputs = map[string]func(t *T) any{
	"reference":         func(*T) any { return NewID("conform-") },
	"narration":         func(t *T) any { return "malipo conform " + t.ID() },
	"webhook_url":       receiverURL,
	"url":               receiverURL,
	"country":           func(t *T) any { return t.RefData().CountryCode },
	"currency":          func(t *T) any { return t.RefData().Currency },
	"countryId":         func(t *T) any { return t.RefData().CountryID },
	"bank_id":           func(t *T) any { return t.RefData().BankID },
	"phone_number":      func(t *T) any { return OrNil(t.suite.inputs.ApprovingPhone) },
	"momo_phone_number": func(t *T) any { return OrNil(t.suite.inputs.CreditedWallet) },
	"account_number":    func(t *T) any { return OrNil(t.suite.inputs.CreditedAccount) },
}

// BodyInput is the value the run sends for the request property name instead of the example's (see
// bodyInputs); nil keeps the example's, as for a property bodyInputs does not name.
func (t *T) BodyInput(name string) any {
	input, ok := bodyInputs[name]
	if !ok {
		return nil
	}
	return input(t)
}

// receiverURL is a fresh URL of the run's webhook receiver, so that nothing a check makes is delivered
// outside the run.
func receiverURL(t *T) any {
	_, hook := t.Hook()
	return hook
}

// ExampleBody returns a valid request body for op, built from the document's example: for a oneOf body
// with a discriminator, the first example of the branch whose discriminator value is branch ("" takes
// the operation's first example). The values in set replace the example's (a nil value removes the
// property); the other properties named in bodyInputs get the run's values. It skips the check when
// the run's document has no such operation or example, since a body written here instead would drift
// from the document.
func (t *T) ExampleBody(op api.Operation, branch string, set map[string]any) map[string]any {
	example, err := RequestExample(t.DocumentOperation(op), branch)
	if err != nil {
		t.Skip(err.Error())
	}
	return t.FillExample(example, set)
}

// FillExample decodes an example (a new map each time, so that a check may change it) and applies set
// and bodyInputs to it as ExampleBody describes.
func (t *T) FillExample(example []byte, set map[string]any) map[string]any {
	var body map[string]any
	if err := json.Unmarshal(example, &body); err != nil {
		t.Fatalf("check bug: the request example is not a JSON object: %v", err)
	}
	for name := range body {
		if _, given := set[name]; given {
			continue
		}
		if input, ok := bodyInputs[name]; ok {
			if v := input(t); v != nil {
				body[name] = v
			}
		}
	}
	for name, v := range set {
		if v == nil {
			delete(body, name)
		} else {
			body[name] = v
		}
	}
	return body
}

// errNoExample is the error for an operation (or branch) the document gives no request example for.
type errNoExample struct{ op, branch, discriminator string }

func (e errNoExample) Error() string {
	what := e.op
	if e.branch != "" {
		what += " with " + e.discriminator + " " + e.branch
	}
	return fmt.Sprintf("the document gives no request example for %s, so the suite cannot build a valid body for it: "+
		"add one under the operation's requestBody.content.application/json.examples of the document (openapi/malipo.yaml)", what)
}

// RequestExample returns, as JSON, the first object example the document gives for op's JSON request
// body; for a oneOf body with a discriminator and a non-empty branch, the first whose discriminator
// property is branch. The operation's own examples (media type `examples`, then `example`) come
// before the schema's, and the schema's before the branch schema's, so that the most specific example
// the document wrote for this operation is used.
func RequestExample(op *openapi.Operation, branch string) ([]byte, error) {
	candidates, discriminator, err := op.RequestExamples(branch)
	for _, data := range candidates {
		var obj map[string]any
		if json.Unmarshal(data, &obj) != nil {
			continue // not an object: no body a check could fill in
		}
		if branch == "" || obj[discriminator] == branch {
			return data, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return nil, errNoExample{op: op.ID, branch: branch, discriminator: discriminator}
}

// JSONMediaType is the media type of every request body the suite sends.
const JSONMediaType = "application/json"
