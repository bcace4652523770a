package openapi

import (
	"fmt"
	"strconv"
	"time"
)

// Outcome is the final state a test value produces.
type Outcome struct {
	// Status is the final status: `success` or `failed`.
	Status string `yaml:"status" json:"status"`
	// FailureReason is set when Status is `failed`.
	FailureReason string `yaml:"failure_reason,omitempty" json:"failure_reason,omitempty"`
	// Description says what the simulated network does.
	Description string `yaml:"description" json:"description"`
}

// PaymentTestValue is a customer number whose push prompt ends in Outcome.
type PaymentTestValue struct {
	PhoneNumber string `yaml:"phone_number" json:"phone_number"`
	Outcome     `yaml:",inline"`
}

// MobilePayoutTestValue is a payout wallet number that ends in Outcome.
type MobilePayoutTestValue struct {
	MomoPhoneNumber string `yaml:"momo_phone_number" json:"momo_phone_number"`
	Outcome         `yaml:",inline"`
}

// BankPayoutTestValue is a payout account number that ends in Outcome.
type BankPayoutTestValue struct {
	AccountNumber string `yaml:"account_number" json:"account_number"`
	Outcome       `yaml:",inline"`
}

// TestValues is the document's `x-malipo-test-values`: the inputs that produce each outcome in test
// mode. The sandbox simulates them, the contract suite drives every one, `malipo trigger` chooses by
// outcome among them and `malipo spec diff` compares them, all read through TestValuesOf
// (testvalues.go), which also says whether the document has them (Present) and finds one by outcome
// (Find).
type TestValues struct {
	Description string             `yaml:"description" json:"description"`
	Payments    []PaymentTestValue `yaml:"payments" json:"payments"`
	Payouts     struct {
		MobileNumber []MobilePayoutTestValue `yaml:"mobile_number" json:"mobile_number"`
		Bank         []BankPayoutTestValue   `yaml:"bank" json:"bank"`
	} `yaml:"payouts" json:"payouts"`

	present bool           // the document has x-malipo-test-values
	lines   map[string]int // "payouts/bank/2" → the entry's line in the document
}

// ErrorStatuses returns the error table of the `ErrorCode` schema: envelope code → HTTP status, as its
// `x-malipo-http-status` extension fixes it.
func (s *Spec) ErrorStatuses() (map[int]int, error) {
	if Model(s).Components == nil || Model(s).Components.Schemas == nil {
		return nil, fmt.Errorf("the document has no ErrorCode schema")
	}
	proxy, ok := Model(s).Components.Schemas.Get("ErrorCode")
	if !ok || proxy.Schema() == nil {
		return nil, fmt.Errorf("the document has no ErrorCode schema")
	}
	ext := proxy.Schema().Extensions
	if ext == nil {
		return nil, fmt.Errorf("the ErrorCode schema has no x-malipo-http-status")
	}
	node, ok := ext.Get("x-malipo-http-status")
	if !ok {
		return nil, fmt.Errorf("the ErrorCode schema has no x-malipo-http-status")
	}
	var raw map[string]int
	if err := node.Decode(&raw); err != nil {
		return nil, fmt.Errorf("decode x-malipo-http-status: %w", err)
	}
	out := make(map[int]int, len(raw))
	for k, v := range raw {
		code, err := strconv.Atoi(k)
		if err != nil {
			return nil, fmt.Errorf("x-malipo-http-status: code %q is not an integer", k)
		}
		out[code] = v
	}
	return out, nil
}

// DeliveryTimeoutExtension is the extension, on the tag of the document's webhooks (Events), that says
// how long a receiver has to acknowledge a delivery.
const DeliveryTimeoutExtension = "x-malipo-delivery-timeout-seconds"

// FirstRetryExtension is the extension, on the tag of the document's webhooks (Events), that bounds
// how long after a failed attempt its first retry may come.
const FirstRetryExtension = "x-malipo-first-retry-within-seconds"

// WebhookDeliveryTimeout returns how long a merchant's receiver has to answer a webhook delivery with a
// 2xx: the `x-malipo-delivery-timeout-seconds` of the tag the document's webhooks carry. The sender
// gives up on an attempt after it (the sandbox's default delivery time-out) and `malipo webhooks test`
// grades receivers by it, so the number is written once, in the document.
func (s *Spec) WebhookDeliveryTimeout() (time.Duration, error) {
	return s.webhookTagSeconds(DeliveryTimeoutExtension)
}

// WebhookFirstRetryBound returns how long after a failed delivery attempt the first retry may come at
// the latest: the `x-malipo-first-retry-within-seconds` of the webhooks' tag. Retries back off
// exponentially with no other bound, so this is the one retry a conformance run can wait for; a run
// whose wait is shorter reports the retry as not observable rather than missing.
func (s *Spec) WebhookFirstRetryBound() (time.Duration, error) {
	return s.webhookTagSeconds(FirstRetryExtension)
}

// webhookTagSeconds reads a positive whole number of seconds from an extension of the tag the
// document's webhooks carry.
func (s *Spec) webhookTagSeconds(extension string) (time.Duration, error) {
	tags := map[string]bool{}
	for _, t := range s.EventTypes() {
		op, _ := s.Webhook(t)
		for _, tag := range OperationModel(op).Tags {
			tags[tag] = true
		}
	}
	for _, tag := range Model(s).Tags {
		if !tags[tag.Name] || tag.Extensions == nil {
			continue
		}
		node, ok := tag.Extensions.Get(extension)
		if !ok || node == nil {
			continue
		}
		var seconds int
		if err := node.Decode(&seconds); err != nil || seconds <= 0 {
			return 0, fmt.Errorf("tag %s: %s must be a positive whole number of seconds, got %q", tag.Name, extension, node.Value)
		}
		return time.Duration(seconds) * time.Second, nil
	}
	return 0, fmt.Errorf("no tag of the document's webhooks has %s; add it to the tag the webhooks carry (Events)", extension)
}
