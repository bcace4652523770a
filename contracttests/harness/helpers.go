package harness

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/report"
)

// RefData is the reference data the target offers, read once per run: checks build valid requests
// from it instead of assuming the ids of one implementation.
type RefData struct {
	CountryID, CountryCode, Currency, BankID string
	// OtherBankID is a bank of another country, when the target has one (for "bank not in country").
	OtherBankID string
}

type refCache struct {
	once sync.Once
	data RefData
	err  error
}

// RefData returns a country that has a bank (Zambia when it has one, for readable reports; the first
// listed that has one otherwise) and one of its banks. The document lists countries "where payouts can
// be sent", mobile payouts included, so a country need not have a bank; its bank payout test values need
// one country that has.
func (t *T) RefData() RefData {
	// Before the Once: a check that skips inside it would leave the cache empty for every other check.
	t.needOperations(api.OpListCountries(), api.OpListBanks())
	c := &t.suite.ref
	c.once.Do(func() { c.data, c.err = t.loadRefData() })
	if c.err != nil {
		t.Fatalf("reference data: %v", c.err)
	}
	return c.data
}

func (t *T) loadRefData() (RefData, error) {
	ex := t.Do(api.OpListCountries().Method, api.OpListCountries().URL(), nil)
	if ex.Status != http.StatusOK {
		return RefData{}, fmt.Errorf("%s %s answered %d", api.OpListCountries().Method, api.OpListCountries().Path, ex.Status)
	}
	list, _ := ex.Get("/data").([]any)
	if len(list) == 0 {
		return RefData{}, fmt.Errorf("%s %s returned no country; the suite needs at least one with a bank", api.OpListCountries().Method, api.OpListCountries().Path)
	}
	var countries []RefData
	for _, c := range list {
		m, _ := c.(map[string]any)
		id, _ := m["id"].(string)
		code, _ := m["country_code"].(string)
		cur, _ := m["currency_code"].(string)
		countries = append(countries, RefData{CountryID: id, CountryCode: code, Currency: cur})
	}
	// Zambia first (the document's examples are Zambian), then in the target's order.
	if i := slices.IndexFunc(countries, func(c RefData) bool { return c.CountryCode == "ZM" }); i > 0 {
		zm := countries[i]
		countries = slices.Insert(slices.Delete(countries, i, i+1), 0, zm)
	}
	var rd RefData
	for _, c := range countries {
		bank := t.firstBank(c.CountryCode)
		switch {
		case bank == "":
		case rd.BankID == "":
			rd, rd.BankID = c, bank
		case rd.OtherBankID == "":
			rd.OtherBankID = bank
		}
		if rd.OtherBankID != "" {
			break
		}
	}
	if rd.BankID == "" {
		return rd, fmt.Errorf("%s %s?country=… returned no bank for any of the %d listed countries; the document's bank payout test values need one",
			api.OpListBanks().Method, api.OpListBanks().Path, len(countries))
	}
	return rd, nil
}

// firstBank returns the id of the first bank the target lists for a country, or "".
func (t *T) firstBank(countryCode string) string {
	ex := t.Do(api.OpListBanks().Method, api.OpListBanks().URL()+"?country="+url.QueryEscape(countryCode), nil)
	list, _ := ex.Get("/data").([]any)
	if len(list) == 0 {
		return ""
	}
	id, _ := list[0].(map[string]any)["id"].(string)
	return id
}

// Hook returns a fresh receiver path for this check and the URL the target must deliver to.
func (t *T) Hook(behavior ...webhooksink.Behavior) (path, url string) {
	path = "/hooks/" + NewID("") + "/" + t.check.ID
	t.suite.receiver.Claim(path, t.check.ID, &t.evidence)
	if len(behavior) > 0 {
		t.suite.receiver.SetBehavior(path, behavior[0])
	}
	return path, t.suite.receiver.URL(path)
}

// Deliveries returns what the receiver saw on path.
func (t *T) Deliveries(path string) []*webhooksink.Delivery { return t.suite.receiver.Deliveries(path) }

// WaitDeliveries waits until path has seen deliveries that satisfy done. How long they took to arrive
// is the target's pace (Settle), unless the receiver fails or stalls on path: then the wait measures
// the target's retry schedule, which is deliberately slow.
func (t *T) WaitDeliveries(path, what string, done func([]*webhooksink.Delivery) bool) []*webhooksink.Delivery {
	var ds []*webhooksink.Delivery
	start := time.Now()
	_, ok, state := t.Watch(what, func() (bool, string) {
		ds = t.Deliveries(path)
		return done(ds), DescribeDeliveries(ds)
	})
	if !ok {
		t.Fatalf("timed out after %s waiting for %s; last seen: %s%s", t.suite.cfg.EventuallyTimeout, what, state, retryHint(t, ds))
	}
	if !t.suite.receiver.ProvokesRetries(path) {
		t.suite.pace.observe(arrivalLatency(ds, start))
	}
	return ds
}

// retryHint explains a wait for deliveries that timed out after the target had sent one of them more
// than once: it treated an attempt as failed and is retrying, and the document lets an object's later
// events wait behind that retry for up to its bound on the first retry. The missing delivery may still
// come; a --wait past the bound tells.
func retryHint(t *T, ds []*webhooksink.Delivery) string {
	sent := map[string]int{}
	for _, d := range ds {
		sent[d.EventID]++
	}
	for id, n := range sent {
		if n < 2 {
			continue
		}
		bound, err := t.Spec().WebhookFirstRetryBound()
		if err != nil {
			return ""
		}
		return fmt.Sprintf(" (the target delivered %s %d times, so it is retrying deliveries here; the document lets a retry, and events queued behind it, come up to %s after a failed attempt: a --wait of %s or more tells a late delivery from a missing one)",
			id, n, bound, (bound + t.suite.cfg.EventuallyTimeout).Truncate(time.Second))
	}
	return ""
}

// DescribeDeliveries lists deliveries for a failure message: each one's type, event id and the
// receiver's answer, "no delivery" when there is none.
func DescribeDeliveries(ds []*webhooksink.Delivery) string {
	if len(ds) == 0 {
		return "no delivery"
	}
	s := ""
	for i, d := range ds {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s(%s, answered %d)", d.Type, d.EventID, d.Answer)
	}
	return s
}

// Acknowledged returns the deliveries the receiver acknowledged, one per event id, in order.
func Acknowledged(ds []*webhooksink.Delivery) []*webhooksink.Delivery {
	var out []*webhooksink.Delivery
	seen := map[string]bool{}
	for _, d := range ds {
		if d.Answer >= 200 && d.Answer < 300 && !seen[d.EventID] {
			seen[d.EventID] = true
			out = append(out, d)
		}
	}
	return out
}

// VerifyDelivery checks one delivery as any receiver would: valid against the spec's `webhooks` entry,
// signed by one of secrets (Standard Webhooks), `webhook-id` equal to the event id, and a timestamp
// within the 5-minute tolerance of when it arrived. It skips the check when the run's document no
// longer declares the delivery's event type (see needWebhook).
func (t *T) VerifyDelivery(d *webhooksink.Delivery, secrets ...webhook.Secret) {
	t.needWebhook(d.Type)
	where := fmt.Sprintf("webhook %s %s to %s", d.Type, d.EventID, d.Path)
	for _, v := range d.Violations {
		t.FailAbout(d.Seq, report.Failure{Message: "delivery breaks the spec: " + v.Message, Exchange: where, Pointer: v.Pointer, SpecLocation: v.SpecLocation})
	}
	if id := d.Header.Get(api.HeaderWebhookID); id != d.EventID {
		t.FailAbout(d.Seq, report.Failure{Message: fmt.Sprintf("webhook-id %q must equal the event id %q", id, d.EventID), Exchange: where, Pointer: "header.webhook-id"})
	}
	ts, err := strconv.ParseInt(d.Header.Get(api.HeaderWebhookTimestamp), 10, 64)
	if err != nil {
		t.FailAbout(d.Seq, report.Failure{Message: "webhook-timestamp is not unix seconds", Exchange: where, Pointer: "header.webhook-timestamp"})
	} else if skew := d.Received.Sub(time.Unix(ts, 0)); skew > webhook.DefaultTolerance || skew < -webhook.DefaultTolerance {
		t.FailAbout(d.Seq, report.Failure{Message: fmt.Sprintf("webhook-timestamp is %s away from arrival, beyond the 5 minute tolerance", skew),
			Exchange: where, Pointer: "header.webhook-timestamp"})
	}
	v := webhook.Verifier{Secrets: secrets, Now: func() time.Time { return d.Received }}
	if err := v.Verify(d.Header, d.Body); err != nil {
		t.FailAbout(d.Seq, report.Failure{Message: "signature does not verify: " + err.Error(), Exchange: where, Pointer: "header.webhook-signature",
			SpecLocation: SignatureLocation(t.suite.spec, d.Type)})
	}
}

// SignatureLocation is where the document describes a delivery's webhook-signature header: that
// parameter of the event type's webhook (TestEveryCheckNamesItsRule resolves it for each type).
func SignatureLocation(spec *openapi.Spec, eventType string) string {
	return spec.WebhookParameter(eventType, webhook.HeaderSignature)
}

// MerchantSecret is the key that signs deliveries to an object's own webhook_url.
func (t *T) MerchantSecret() webhook.Secret {
	s, err := webhook.ParseSecret(t.suite.cfg.Keys.Secret)
	if err != nil {
		t.Fatalf("the merchant secret key cannot be used as a webhook secret: %v", err)
	}
	return s
}

// OtherMerchant returns the second key pair (checks that need it are skipped without one).
func (t *T) OtherMerchant() Keys { return *t.suite.cfg.OtherMerchant }

// Receiver exposes the run's webhook receiver.
func (t *T) Receiver() *webhooksink.Receiver { return t.suite.receiver }

// StallTime is how long the receiver stalls to make the target time out.
func (t *T) StallTime() time.Duration { return t.suite.cfg.WebhookStall }

// EventuallyTimeout bounds the check's waits for asynchronous outcomes (Config.EventuallyTimeout,
// `--wait`).
func (t *T) EventuallyTimeout() time.Duration { return t.suite.cfg.EventuallyTimeout }

// Keys are the keys of the merchant the run acts as (Config.Keys).
func (t *T) Keys() Keys { return t.suite.cfg.Keys }

// Generated is how many generated requests a generated check sends (Config.Generated: DefaultGenerated
// when the run does not say; negative when the generated checks are off).
func (t *T) Generated() int { return t.suite.cfg.Generated }

// ErrorStatus is the HTTP status the run's document's error table gives code, and whether the table
// has the code.
func (t *T) ErrorStatus(code api.ErrorCode) (status int, ok bool) {
	status, ok = t.suite.errorStatuses[int(code)]
	return status, ok
}

// PlaysScenarios reports whether the target plays the sandbox's scenario header
// (api.HeaderSandboxScenario), as the preflight found (Suite.Found).
func (t *T) PlaysScenarios() bool { return t.suite.scenarios }

// LacksExtension reports whether the preflight found the target without the extension of the contract
// it names (ExtensionWebhookEndpoints, ExtensionEventLog; Suite.Found).
func (t *T) LacksExtension(name string) bool {
	_, absent := t.suite.absentExtensions[name]
	return absent
}

// CoverRan reports whether a check of the run that started covers cover (an operation id or an event
// type), so that webhooks.all-types-observed can tell an event type the target never sent from one
// whose checks did not run.
func (t *T) CoverRan(cover string) bool { return t.suite.ran.has(cover) }

// CoverSkipped reports whether a check of the run that was skipped covers cover (see CoverRan).
func (t *T) CoverSkipped(cover string) bool { return t.suite.skipped.has(cover) }

// UnknownID is a path parameter value no implementation has issued, for not-found checks.
const UnknownID = "conform-unknown-id"

// ForObject returns the deliveries about the object id (Delivery.ObjectID), in order.
func ForObject(ds []*webhooksink.Delivery, id string) []*webhooksink.Delivery {
	var out []*webhooksink.Delivery
	for _, d := range ds {
		if d.ObjectID == id {
			out = append(out, d)
		}
	}
	return out
}

// DescribeOutcome words a test value's outcome for docs and messages: its status, "with" its
// failure_reason when it has one ("failed with account_blocked").
func DescribeOutcome(o openapi.Outcome) string {
	if o.FailureReason != "" {
		return o.Status + " with " + o.FailureReason
	}
	return o.Status
}
