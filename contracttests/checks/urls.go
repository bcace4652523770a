package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// unusableWebhookURLs are URLs that no HTTP client can deliver to. Every one breaks the WebhookURL
// rule of the contract (its pattern, or "must parse as a URL with a host name"), and each was once
// accepted by an implementation whose pattern was evaluated with Go's RE2, where `\s` does not match
// these spaces: a JavaScript or Java client would refuse the same value, and every delivery to it fails.
var unusableWebhookURLs = []string{
	"https://merchant.example.org/a\u00a0b", // NO-BREAK SPACE
	"https://merchant.example.org/\u2028",   // LINE SEPARATOR
	"https://merchant\u3000example.org/",    // IDEOGRAPHIC SPACE
	"https://merchant.example.org/\ufeff",   // ZERO WIDTH NO-BREAK SPACE
	"https://merchant.example.org/\u000b",   // VERTICAL TAB
	"http://\u0000",
	"http://[ts^s[Ef",
	"https://\"vi-;[",
	"http://[x",
	"http://:80/hooks",
	"http://merchant.example.org:99999/hooks",
	"http://::1/hooks",                     // an IPv6 host without brackets
	"https://merchant.example.org/h\u00e9", // non-ASCII must be percent-encoded
}

// urlChecks: a webhook URL the contract does not allow is refused where it is given, with 400 naming
// the field, instead of being stored and failing every delivery later.
func urlChecks() []*harness.Check {
	var checks []*harness.Check
	for _, target := range []struct {
		op    api.Operation
		field string
		body  func(t *harness.T, url string) map[string]any
	}{
		{api.OpInitializePayment(), "/webhook_url", func(t *harness.T, url string) map[string]any {
			return t.ExampleBody(api.OpInitializePayment(), "", map[string]any{"webhook_url": url})
		}},
		{api.OpProcessPayout(), "/webhook_url", func(t *harness.T, url string) map[string]any {
			return t.MobilePayout("", url)
		}},
		{api.OpCreateWebhookEndpoint(), "/url", func(t *harness.T, url string) map[string]any {
			return t.EndpointBody(url, api.EventTypePayoutSuccess)
		}},
	} {
		checks = append(checks, &harness.Check{ID: "negative." + target.op.ID + ".unusable-webhook-url", Category: harness.CategoryNegative,
			Rule:   harness.Rule{Pointer: "#/components/schemas/WebhookURL/description", Quote: "Besides this pattern the URL must parse as a URL with a host name (`http://[x` and `http://:80/` are refused), and a port, when given, is 1 to 65535."},
			Covers: []string{target.op.ID}, Extension: target.op.Extension,
			Doc: fmt.Sprintf("%d URLs no client can deliver to (Unicode spaces, controls, no host, unparsable) are each refused with 400 naming %s",
				len(unusableWebhookURLs), target.field),
			Run: func(t *harness.T) {
				for _, u := range unusableWebhookURLs {
					if !t.ExpectError(t.Do(target.op.Method, target.op.URL(), target.body(t, u)), api.CodeValidationFailed, target.field) {
						t.Errorf("the webhook URL %s was not refused as the contract's WebhookURL rule requires", strconv.QuoteToASCII(u))
					}
				}
			}})
	}
	checks = append(checks, &harness.Check{ID: "positive.initializePayment.amount-exact", Category: harness.CategoryPositive,
		Rule:   harness.Rule{Pointer: "#/components/schemas/PaymentAmount/description", Quote: "Every amount this schema allows has at most 15 significant digits"},
		Covers: []string{"initializePayment", "getTransactionStatus"},
		Doc:    "payment amounts up to the maximum keep every digit: 987654321.12 and 999999999999.99 come back as sent",
		Run: func(t *harness.T) {
			for _, amount := range []string{"987654321.12", "999999999999.99", "0.01", "2188118558.01"} {
				init := t.InitPayment("", "https://merchant.example.org/hooks/malipo", map[string]any{"amount": json.Number(amount)})
				for _, ex := range []*harness.Exchange{init, t.Transaction(init.Str("/data/paymentReference"))} {
					if got := rawMember(ex.Body, "amount"); !sameDecimal(got, amount) {
						t.Errorf("%s: the amount %s came back as %s", ex, amount, got)
					}
				}
			}
		}})
	return checks
}

// rawMember returns the JSON text of data.<name> in an envelope body, as sent.
// sameDecimal reports whether two JSON numbers are the same decimal value, exactly: `987654321.12`
// and `9.8765432112e8` are (JSON does not fix a number's spelling), `987654340` is not.
func sameDecimal(a, b string) bool {
	x, okA := new(big.Rat).SetString(a)
	y, okB := new(big.Rat).SetString(b)
	return okA && okB && x.Cmp(y) == 0
}

func rawMember(body []byte, name string) string {
	var env struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&env); err != nil {
		return "(not a JSON envelope)"
	}
	return string(env.Data[name])
}
