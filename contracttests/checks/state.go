package checks

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/report"
)

// State machines: every test value of x-malipo-test-values drives a payment or a payout to its
// documented final status and failure_reason, with one webhook per status change, and the status APIs
// agreeing with the webhooks. Final states must never change.

// stateChecks are the lifecycle checks: one per test value of the document, then the rules of the
// payment state machine that no test value exercises.
func stateChecks(tv openapi.TestValues) []*harness.Check {
	return append(testValueChecks(tv),
		ownWalletCheck(),
		completeTwiceCheck(),
		completeWithoutPhoneCheck(),
		phoneAtCompleteCheck(),
		pendingAfterInitCheck(),
		generatedReferenceCheck(),
	)
}

// testValueChecks derives one check per x-malipo-test-values entry, so that a value added to the
// document is driven to its documented outcome with no code change.
func testValueChecks(tv openapi.TestValues) []*harness.Check {
	var checks []*harness.Check
	for i, v := range tv.Payments {
		checks = append(checks, &harness.Check{
			ID: "state.payment." + outcomeName(v.Outcome) + "." + v.PhoneNumber, Category: harness.CategoryState,
			Rule:   harness.Rule{Pointer: fmt.Sprintf("#/x-malipo-test-values/payments/%d", i)},
			Covers: []string{"initializePayment", "completePayment", "getTransactionStatus", string(api.EventTypePaymentProcessing), "payment." + v.Status},
			Doc:    fmt.Sprintf("a payment to %s (%s) ends %s", v.PhoneNumber, v.Description, harness.DescribeOutcome(v.Outcome)),
			Run:    func(t *harness.T) { paymentLifecycle(t, v.PhoneNumber, v.Outcome) },
		})
	}
	for i, v := range tv.Payouts.MobileNumber {
		checks = append(checks, &harness.Check{
			ID: "state.payout.mobile." + outcomeName(v.Outcome) + "." + v.MomoPhoneNumber, Category: harness.CategoryState,
			Rule:   harness.Rule{Pointer: fmt.Sprintf("#/x-malipo-test-values/payouts/mobile_number/%d", i)},
			Covers: []string{"processPayout", "getPayout", "getTransactionStatus", "payout." + v.Status},
			Doc:    fmt.Sprintf("a mobile payout to %s (%s) ends %s", v.MomoPhoneNumber, v.Description, harness.DescribeOutcome(v.Outcome)),
			Run: func(t *harness.T) {
				path, hook := t.Hook()
				payoutLifecycle(t, t.MobilePayout(v.MomoPhoneNumber, hook), path, v.Outcome)
			},
		})
	}
	for i, v := range tv.Payouts.Bank {
		checks = append(checks, &harness.Check{
			ID: "state.payout.bank." + outcomeName(v.Outcome) + "." + v.AccountNumber, Category: harness.CategoryState,
			Rule:   harness.Rule{Pointer: fmt.Sprintf("#/x-malipo-test-values/payouts/bank/%d", i)},
			Covers: []string{"processPayout", "getPayout", "getTransactionStatus", "payout." + v.Status},
			Doc:    fmt.Sprintf("a bank payout to account %s (%s) ends %s", v.AccountNumber, v.Description, harness.DescribeOutcome(v.Outcome)),
			Run: func(t *harness.T) {
				path, hook := t.Hook()
				payoutLifecycle(t, t.BankPayout(v.AccountNumber, hook), path, v.Outcome)
			},
		})
	}
	return checks
}

// ownWalletCheck is state.payout.mobile.own-wallet: the documented meaning of leaving out
// momo_phone_number, which no test value can express.
func ownWalletCheck() *harness.Check {
	return &harness.Check{ID: "state.payout.mobile.own-wallet", Category: harness.CategoryState, Covers: []string{"processPayout", "getPayout"},
		Rule: harness.Rule{Pointer: testValuesText, Quote: "A mobile payout without `momo_phone_number` (the merchant's own wallet) succeeds."},
		Doc:  "a mobile payout without momo_phone_number pays the merchant's own wallet and succeeds",
		Run: func(t *harness.T) {
			path, hook := t.Hook()
			payoutLifecycle(t, t.MobilePayout("", hook), path, openapi.Outcome{Status: string(api.PayoutStatusSuccess)})
		}}
}

// completeTwiceCheck is state.payment.complete-twice: a second push prompt would charge or bother the
// customer twice, so a payment past pending must refuse it.
func completeTwiceCheck() *harness.Check {
	return &harness.Check{ID: "state.payment.complete-twice", Category: harness.CategoryState, Covers: []string{"completePayment"},
		Rule: harness.Rule{Pointer: opCompletePayment + "/description", Quote: "A payment that is not `pending` is rejected with `422` (code 5000)."},
		Doc:  errorDoc("completing a payment that is no longer pending", api.CodeInvalidState),
		Run: func(t *harness.T) {
			_, hook := t.Hook()
			ref := t.InitPayment(t.Inputs().ApprovingPhone(), hook, nil).Str("/data/paymentReference")
			t.RequireStatus(t.CompletePayment(ref, nil), http.StatusAccepted)
			t.ExpectError(t.CompletePayment(ref, nil), api.CodeInvalidState)
		}}
}

// completeWithoutPhoneCheck is state.payment.complete-without-phone: the number may come at init or at
// completion, and with neither the error must name where it belongs.
func completeWithoutPhoneCheck() *harness.Check {
	return &harness.Check{ID: "state.payment.complete-without-phone", Category: harness.CategoryState, Covers: []string{"completePayment"},
		Rule: harness.Rule{Pointer: opCompletePayment + "/description", Quote: "with neither the call fails with `400` naming `/phone_number`"},
		Doc:  "completing a payment with no phone number at init or in the body is rejected with 400 naming /phone_number",
		Run: func(t *harness.T) {
			_, hook := t.Hook()
			ref := t.InitPayment("", hook, nil).Str("/data/paymentReference")
			t.ExpectError(t.CompletePayment(ref, nil), api.CodeValidationFailed, "/phone_number")
		}}
}

// phoneAtCompleteCheck is state.payment.phone-at-complete: the other half of the rule above, a number
// given only at completion is used.
func phoneAtCompleteCheck() *harness.Check {
	return &harness.Check{ID: "state.payment.phone-at-complete", Category: harness.CategoryState, Covers: []string{"initializePayment", "completePayment"},
		Rule: harness.Rule{Pointer: opCompletePayment + "/description", Quote: "The customer's number comes from `phone_number` in this body or, when the body has none, from initialization"},
		Doc:  "a phone number given at completion (not at init) is used: the payment moves to processing",
		Run: func(t *harness.T) {
			_, hook := t.Hook()
			ref := t.InitPayment("", hook, nil).Str("/data/paymentReference")
			ex := t.CompletePayment(ref, map[string]any{"phone_number": t.Inputs().ApprovingPhone()})
			t.RequireStatus(ex, http.StatusAccepted)
			if s := ex.Str("/data/status"); s != string(api.PaymentStatusProcessing) {
				t.Errorf("after completion the payment must be processing, got %q", s)
			}
		}}
}

// pendingAfterInitCheck is state.payment.pending-after-init: initialization alone must not contact the
// customer or send events, and both references must find the pending payment.
func pendingAfterInitCheck() *harness.Check {
	return &harness.Check{ID: "state.payment.pending-after-init", Category: harness.CategoryState, Covers: []string{"initializePayment", "getTransactionStatus"},
		Rule: harness.Rule{Pointer: opInitializePayment + "/description", Quote: "No money moves and the customer is not contacted yet"},
		Doc:  "an initialized payment is pending, by paymentReference and by merchant reference, and the customer is not contacted",
		Run: func(t *harness.T) {
			path, hook := t.Hook()
			init := t.InitPayment(t.Inputs().ApprovingPhone(), hook, nil)
			if s := init.Str("/data/status"); s != string(api.PaymentStatusPending) {
				t.Errorf("a new payment must be pending, got %q", s)
			}
			for _, ref := range []string{init.Str("/data/paymentReference"), init.Str("/data/reference")} {
				ex := t.Transaction(ref)
				if t.ExpectStatus(ex, http.StatusOK) {
					if ex.Str("/data/type") != string(api.TransactionTypePayment) || ex.Str("/data/status") != string(api.PaymentStatusPending) {
						t.Errorf("status check of %s: want a pending payment, got %s", ref, harness.Snippet(ex.Body))
					}
				}
			}
			t.Settle()
			if ds := t.Deliveries(path); len(ds) > 0 {
				t.Errorf("no webhook is due before completion, got %s", harness.DescribeDeliveries(ds))
			}
		}}
}

// generatedReferenceCheck is positive.payment.generated-reference: reference is optional, and the
// generated one must be as usable as one the merchant chose.
func generatedReferenceCheck() *harness.Check {
	return &harness.Check{ID: "positive.payment.generated-reference", Category: harness.CategoryPositive, Covers: []string{"initializePayment", "getTransactionStatus"},
		Rule: harness.Rule{Pointer: opInitializePayment + "/description", Quote: "When `reference` is omitted the service generates one and returns it"},
		Doc:  "a payment initialized without reference gets one generated, usable with the status API",
		Run: func(t *harness.T) {
			_, hook := t.Hook()
			ex := t.InitPayment("", hook, map[string]any{"reference": nil})
			ref := ex.Str("/data/reference")
			if ref == "" {
				t.Fatalf("initialize payment without reference: data.reference must be generated")
			}
			t.ExpectStatus(t.Transaction(ref), http.StatusOK)
		}}
}

func outcomeName(o openapi.Outcome) string {
	if o.FailureReason != "" {
		return o.FailureReason
	}
	return o.Status
}

// paymentLifecycle initializes and completes a payment for phone and follows it to its final state.
func paymentLifecycle(t *harness.T, phone string, want openapi.Outcome) {
	path, hook := t.Hook()
	init := t.InitPayment(phone, hook, nil)
	ref, merchantRef := init.Str("/data/paymentReference"), init.Str("/data/reference")
	done := t.CompletePayment(ref, nil)
	t.RequireStatus(done, http.StatusAccepted)
	if s := done.Str("/data/status"); s != string(api.PaymentStatusProcessing) {
		t.Errorf("completion must move the payment to processing, got %q", s)
	}
	final := t.WaitFinal("payment "+ref, func() *harness.Exchange { return t.Transaction(ref) })
	expectOutcome(t, final, want)

	processing, pending := string(api.PaymentStatusProcessing), string(api.PaymentStatusPending)
	events := []wantEvent{{string(api.EventTypePaymentProcessing), processing, pending}, {"payment." + want.Status, want.Status, processing}}
	ds := t.WaitDeliveries(path, "payment.processing and payment."+want.Status+" webhooks", func(ds []*webhooksink.Delivery) bool { return haveTypes(ds, events) })
	checkEvents(t, harness.Acknowledged(ds), ref, events, want)
	for _, d := range ds {
		t.VerifyDelivery(d, t.MerchantSecret())
	}
	byRef := t.Transaction(merchantRef)
	if byRef.Str("/data/status") != want.Status || byRef.Str("/data/failure_reason") != want.FailureReason {
		statusDisagrees(t, byRef, "by merchant reference "+merchantRef, want, finalEvent(ds, "payment."+want.Status))
	}
	t.Settle()
	again := t.Transaction(ref)
	if again.Str("/data/status") != final.Str("/data/status") || again.Str("/data/failure_reason") != final.Str("/data/failure_reason") {
		t.Errorf("final state changed: was %s/%s, now %s/%s", final.Str("/data/status"), final.Str("/data/failure_reason"),
			again.Str("/data/status"), again.Str("/data/failure_reason"))
	}
	if n := len(harness.Acknowledged(t.Deliveries(path))); n != 2 {
		t.Errorf("want exactly 2 events (distinct webhook-ids) for this payment (processing, %s), got %d: %s", want.Status, n, harness.DescribeDeliveries(t.Deliveries(path)))
	}
}

// payoutLifecycle creates a payout and follows it to its final state.
func payoutLifecycle(t *harness.T, body map[string]any, path string, want openapi.Outcome) {
	created := t.CreatePayout(body)
	id := created.Str("/data/payout_id")
	if s := created.Str("/data/status"); s != string(api.PayoutStatusProcessing) {
		t.Errorf("a new payout must be processing, got %q", s)
	}
	if amt := created.Num("/data/amount"); amt != toFloat(body["amount"]) {
		t.Errorf("data.amount must echo the request: want %v, got %v", body["amount"], amt)
	}
	final := t.WaitFinal("payout "+id, func() *harness.Exchange { return t.GetPayout(id) })
	expectOutcome(t, final, want)
	events := []wantEvent{{"payout." + want.Status, want.Status, string(api.PayoutStatusProcessing)}}
	ds := t.WaitDeliveries(path, "payout."+want.Status+" webhook", func(ds []*webhooksink.Delivery) bool { return haveTypes(ds, events) })
	checkEvents(t, harness.Acknowledged(ds), id, events, want)
	for _, d := range ds {
		t.VerifyDelivery(d, t.MerchantSecret())
	}
	for _, ref := range []string{id, body["reference"].(string)} {
		tx := t.Transaction(ref)
		if tx.Str("/data/type") != string(api.TransactionTypePayout) || tx.Str("/data/status") != want.Status || tx.Str("/data/failure_reason") != want.FailureReason {
			statusDisagrees(t, tx, "of "+ref, want, finalEvent(ds, "payout."+want.Status))
		}
	}
	t.Settle()
	again := t.GetPayout(id)
	if again.Str("/data/status") != final.Str("/data/status") || again.Str("/data/failure_reason") != final.Str("/data/failure_reason") {
		t.Errorf("final state changed: was %s/%s, now %s/%s", final.Str("/data/status"), final.Str("/data/failure_reason"),
			again.Str("/data/status"), again.Str("/data/failure_reason"))
	}
	if n := len(harness.Acknowledged(t.Deliveries(path))); n != 1 {
		t.Errorf("want exactly 1 event (one webhook-id) for this payout (%s), got %d: %s", want.Status, n, harness.DescribeDeliveries(t.Deliveries(path)))
	}
}

func expectOutcome(t *harness.T, ex *harness.Exchange, want openapi.Outcome) {
	if got := ex.Str("/data/status"); got != want.Status {
		t.Errorf("want final status %q, got %q", want.Status, got)
	}
	if got := ex.Str("/data/failure_reason"); got != want.FailureReason {
		t.Errorf("want failure_reason %q, got %q", want.FailureReason, got)
	}
}

// statusDisagrees fails the check about the status check tx (GET /v1/transactions/{ref}), naming what
// each side reported: the status check, the outcome the document's test value promises, and the final
// webhook (nil when none arrived), so that the message blames the component that is out of line.
func statusDisagrees(t *harness.T, tx *harness.Exchange, which string, want openapi.Outcome, event *webhooksink.Delivery) {
	got := fmt.Sprintf("type %q, status %q, failure_reason %q", tx.Str("/data/type"), tx.Str("/data/status"), tx.Str("/data/failure_reason"))
	webhook := "no final webhook was acknowledged"
	if event != nil {
		webhook = fmt.Sprintf("the %s webhook (%s) reported status %q, failure_reason %q", event.Type, event.EventID, event.ObjectStatus, event.FailureReason)
	}
	t.FailAbout(tx.Seq, report.Failure{Message: fmt.Sprintf("the status check %s reports %s; the test value promises %s, and %s",
		which, got, harness.DescribeOutcome(want), webhook), Exchange: tx.String()})
}

// finalEvent returns the acknowledged delivery of type typ among ds, nil when there is none.
func finalEvent(ds []*webhooksink.Delivery, typ string) *webhooksink.Delivery {
	for _, d := range harness.Acknowledged(ds) {
		if d.Type == typ {
			return d
		}
	}
	return nil
}

// wantEvent is one status change an object must report by webhook: its event type, the object's
// status in the event, and the status it had before.
type wantEvent struct{ typ, status, previous string }

// checkEvents checks the acknowledged events of one object against the status changes it went
// through. The document promises one event per status change, delivered at least once and deduplicated
// by webhook-id, and no order (#/tags/Events: "one per status change"; info: "delivery is at least
// once"): events are matched by type, never by arrival order, and each failure names its own delivery.
func checkEvents(t *harness.T, acked []*webhooksink.Delivery, objectID string, want []wantEvent, final openapi.Outcome) {
	byType := map[string][]*webhooksink.Delivery{}
	for _, d := range acked {
		byType[d.Type] = append(byType[d.Type], d)
	}
	for _, w := range want {
		ds := byType[w.typ]
		if len(ds) == 0 {
			t.Errorf("no %s event for %s; got %s", w.typ, objectID, harness.DescribeDeliveries(acked))
			continue
		}
		for _, d := range ds {
			where := fmt.Sprintf("webhook %s %s to %s", d.Type, d.EventID, d.Path)
			if d.ObjectID != objectID {
				t.FailAbout(d.Seq, report.Failure{Message: fmt.Sprintf("the event is about %q, want %q", d.ObjectID, objectID), Exchange: where})
			}
			if d.ObjectStatus != w.status || d.PreviousStatus != w.previous {
				t.FailAbout(d.Seq, report.Failure{Message: fmt.Sprintf("a %s event must carry the object in status %s and previous_status %s, got %s and %s",
					w.typ, w.status, w.previous, d.ObjectStatus, d.PreviousStatus), Exchange: where})
			}
			if w.status == final.Status && d.FailureReason != final.FailureReason {
				t.FailAbout(d.Seq, report.Failure{Message: fmt.Sprintf("the %s event's failure_reason is %q, want %q", w.typ, d.FailureReason, final.FailureReason),
					Exchange: where, Pointer: "/data/object/failure_reason"})
			}
		}
	}
}

// haveTypes reports whether the acknowledged deliveries include an event of every wanted type.
func haveTypes(ds []*webhooksink.Delivery, want []wantEvent) bool {
	acked := harness.Acknowledged(ds)
	for _, w := range want {
		if !slices.ContainsFunc(acked, func(d *webhooksink.Delivery) bool { return d.Type == w.typ }) {
			return false
		}
	}
	return true
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return -1
}
