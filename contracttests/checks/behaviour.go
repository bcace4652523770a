package checks

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Idempotency, webhook retries and cross-merchant isolation: behaviour the schemas cannot express.
// The webhook-endpoint extension's checks are in extensions.go, the registry in registry.go.

// idempotencyChecks are the checks of retry safety: Idempotency-Key replays, conflicts and races, and
// merchant references unique across payments and payouts.
func idempotencyChecks() []*harness.Check {
	return []*harness.Check{
		replayCheck(api.OpProcessPayout(), http.StatusCreated, creditedPayout, "/data/payout_id"),
		replayCheck(api.OpInitializePayment(), http.StatusCreated, examplePayment, "/data/paymentReference"),
		conflictCheck(api.OpProcessPayout(), creditedPayout),
		conflictCheck(api.OpInitializePayment(), examplePayment),
		concurrentPayoutCheck(),
		keyAfterValidationErrorCheck(),
		completeReplayCheck(),
		payoutDuplicateReferenceCheck(),
		paymentDuplicateReferenceCheck(),
		sharedReferenceCheck(),
	}
}

// creditedPayout is a mobile payout that succeeds, without a webhook URL.
func creditedPayout(t *harness.T) map[string]any {
	return t.MobilePayout(t.Inputs().CreditedWallet(), "")
}

// examplePayment is the document's payment example with the run's values (see ExampleBody).
func examplePayment(t *harness.T) map[string]any {
	return t.ExampleBody(api.OpInitializePayment(), "", nil)
}

// replayCheck is idempotency.<op>.replay: a retry with the same key and body must return the first
// response, marked as a replay, and must not create a second object.
func replayCheck(op api.Operation, status int, body func(t *harness.T) map[string]any, idPointer string) *harness.Check {
	return &harness.Check{ID: "idempotency." + op.ID + ".replay", Category: harness.CategoryIdempotency, Covers: []string{op.ID},
		Rule: harness.Rule{Pointer: infoDescription, Quote: replayQuote},
		Doc:  op.ID + ": the same Idempotency-Key and body replays the first response with Idempotent-Replayed: true",
		Run: func(t *harness.T) {
			key, b := harness.NewID("conform-key-"), body(t)
			first := t.Do(op.Method, op.URL(), b, harness.WithIdempotencyKey(key))
			t.RequireStatus(first, status)
			second := t.Do(op.Method, op.URL(), b, harness.WithIdempotencyKey(key))
			t.ExpectStatus(second, status)
			if second.Header.Get(api.HeaderIdempotentReplayed) != "true" {
				t.Errorf("the replay must carry Idempotent-Replayed: true, got %q", second.Header.Get(api.HeaderIdempotentReplayed))
			}
			if first.Header.Get(api.HeaderIdempotentReplayed) == "true" {
				t.Errorf("the first response must not claim to be a replay")
			}
			if a, b := first.Str(idPointer), second.Str(idPointer); a == "" || a != b {
				t.Errorf("the replay must return the same object: %s %q then %q", idPointer, a, b)
			}
		}}
}

// conflictCheck is idempotency.<op>.conflict: a key reused with another body (here, another amount)
// is a client bug the service must refuse rather than replay the first answer to a different request.
func conflictCheck(op api.Operation, body func(t *harness.T) map[string]any) *harness.Check {
	return &harness.Check{ID: "idempotency." + op.ID + ".conflict", Category: harness.CategoryIdempotency, Covers: []string{op.ID},
		Rule: harness.Rule{Pointer: infoDescription, Quote: "The same key with a different body is rejected with `409` (code 4000)."},
		Doc:  fmt.Sprintf("%s: the same Idempotency-Key with another body is rejected with %d (code %d)", op.ID, api.CodeIdempotencyKeyReused.HTTPStatus(), api.CodeIdempotencyKeyReused),
		Run: func(t *harness.T) {
			key, b := harness.NewID("conform-key-"), body(t)
			first := t.Do(op.Method, op.URL(), b, harness.WithIdempotencyKey(key))
			if first.Status/100 != 2 {
				t.Fatalf("the first request failed: %s", first)
			}
			b["amount"] = toFloat(b["amount"]) + 1
			if _, ok := b["reference"]; ok {
				// A fresh merchant reference: with the first one the body would break two rules (4000 and
				// 4002), and the document does not say which answer wins.
				b["reference"] = harness.NewID("conform-")
			}
			t.ExpectError(t.Do(op.Method, op.URL(), b, harness.WithIdempotencyKey(key)), api.CodeIdempotencyKeyReused)
		}}
}

// concurrentPayoutCheck is idempotency.processPayout.concurrent: retries that overlap the first
// request are the case keys exist for, and the one where a check-then-insert implementation pays twice.
func concurrentPayoutCheck() *harness.Check {
	return &harness.Check{ID: "idempotency.processPayout.concurrent", Category: harness.CategoryIdempotency, Covers: []string{"processPayout"},
		Rule: harness.Rule{Pointer: opProcessPayout + "/description", Quote: "Send an `Idempotency-Key` so that a retry never pays twice."},
		Doc:  "10 concurrent payouts with one Idempotency-Key create one payout: every success names the same payout_id",
		Run: func(t *harness.T) {
			ids := sendConcurrently(t, 10, harness.NewID("conform-key-"), creditedPayout(t))
			if len(ids) == 0 {
				t.Fatalf("no request succeeded")
			}
			for _, id := range ids {
				if id != ids[0] {
					t.Errorf("concurrent requests with one key created several payouts: %v", ids)
					break
				}
			}
		}}
}

// keyAfterValidationErrorCheck is idempotency.processPayout.key-after-validation-error: a request
// refused by validation does not use up its key, so the corrected request is carried out, not
// answered with the refusal again (a replay) or with 409 (another body).
func keyAfterValidationErrorCheck() *harness.Check {
	return &harness.Check{ID: "idempotency.processPayout.key-after-validation-error", Category: harness.CategoryIdempotency, Covers: []string{"processPayout"},
		Rule: harness.Rule{Pointer: "#/components/parameters/IdempotencyKey/description", Quote: "A request rejected by validation (`400`, `401`, `413`, `415`) does not use up its key, so the corrected request may reuse it"},
		Doc:  "processPayout: a body refused with 400 does not use up its Idempotency-Key; the corrected body with the same key creates the payout",
		Run: func(t *harness.T) {
			key, b := harness.NewID("conform-key-"), creditedPayout(t)
			bad := maps.Clone(b)
			bad["amount"] = 0
			t.ExpectError(t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), bad, harness.WithIdempotencyKey(key)), api.CodeValidationFailed, "/amount")
			ex := t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), b, harness.WithIdempotencyKey(key))
			t.ExpectStatus(ex, http.StatusCreated)
			if ex.Header.Get(api.HeaderIdempotentReplayed) == "true" {
				t.Errorf("the corrected request is the key's first carried-out request, not a replay")
			}
		}}
}

// sendConcurrently sends n identical payouts with one Idempotency-Key at once and returns the payout_id
// of each that succeeded; an answer that is neither a success nor "key in use" fails the check.
func sendConcurrently(t *harness.T, n int, key string, body map[string]any) []string {
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			ex := t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), body, harness.WithIdempotencyKey(key))
			switch {
			case ex.Status == http.StatusCreated:
				mu.Lock()
				ids = append(ids, ex.Str("/data/payout_id"))
				mu.Unlock()
			case ex.Status == api.CodeIdempotencyKeyInUse.HTTPStatus() && int(ex.Num("/code")) == int(api.CodeIdempotencyKeyInUse):
			default:
				t.Errorf("a concurrent duplicate must succeed (replay) or get %d code %d, got %s", api.CodeIdempotencyKeyInUse.HTTPStatus(), api.CodeIdempotencyKeyInUse, ex)
			}
		})
	}
	wg.Wait()
	return ids
}

// completeReplayCheck is idempotency.completePayment.replay: completing is not repeatable (422 once the
// payment is processing), so only the key tells a retry from a second attempt.
func completeReplayCheck() *harness.Check {
	return &harness.Check{ID: "idempotency.completePayment.replay", Category: harness.CategoryIdempotency, Covers: []string{"completePayment"},
		Rule: harness.Rule{Pointer: infoDescription, Quote: replayQuote},
		Doc:  "completePayment replayed with its Idempotency-Key returns the first 202 instead of 422",
		Run: func(t *harness.T) {
			_, hook := t.Hook()
			ref := t.InitPayment(t.Inputs().ApprovingPhone(), hook, nil).Str("/data/paymentReference")
			key := harness.NewID("conform-key-")
			t.RequireStatus(t.CompletePayment(ref, nil, harness.WithIdempotencyKey(key)), http.StatusAccepted)
			again := t.CompletePayment(ref, nil, harness.WithIdempotencyKey(key))
			t.ExpectStatus(again, http.StatusAccepted)
			if again.Header.Get(api.HeaderIdempotentReplayed) != "true" {
				t.Errorf("the replay must carry Idempotent-Replayed: true")
			}
		}}
}

// payoutDuplicateReferenceCheck is idempotency.reference.payout-duplicate: without a key, the merchant
// reference is what stops a second payout, and the error must say which payout holds it.
func payoutDuplicateReferenceCheck() *harness.Check {
	return &harness.Check{ID: "idempotency.reference.payout-duplicate", Category: harness.CategoryIdempotency, Covers: []string{"processPayout"},
		Rule: harness.Rule{Pointer: "#/components/responses/Conflict/description", Quote: referenceUsedQuote},
		Doc:  errorDoc("a second payout with a used merchant reference", api.CodeDuplicateReference) + ", naming the existing payout",
		Run: func(t *harness.T) {
			b := creditedPayout(t)
			first := t.CreatePayout(b)
			second := t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), b)
			if t.ExpectError(second, api.CodeDuplicateReference, "/reference") {
				if got, want := second.Str("/data/existing_id"), first.Str("/data/payout_id"); got != want {
					t.Errorf("data.existing_id must name the payout holding the reference: want %q, got %q", want, got)
				}
			}
		}}
}

// paymentDuplicateReferenceCheck is idempotency.reference.payment-duplicate, the same rule for payments.
func paymentDuplicateReferenceCheck() *harness.Check {
	return &harness.Check{ID: "idempotency.reference.payment-duplicate", Category: harness.CategoryIdempotency, Covers: []string{"initializePayment"},
		Rule: harness.Rule{Pointer: opInitializePayment + "/description", Quote: "a `reference` already used by this merchant is rejected with `409` (code 4002) and `data.existing_id` names the payment that holds it"},
		Doc:  errorDoc("a second payment with a used merchant reference", api.CodeDuplicateReference) + ", naming the existing payment",
		Run: func(t *harness.T) {
			_, hook := t.Hook()
			first := t.InitPayment("", hook, nil)
			second := t.Do(api.OpInitializePayment().Method, api.OpInitializePayment().URL(),
				t.ExampleBody(api.OpInitializePayment(), "", map[string]any{"reference": first.Str("/data/reference"), "webhook_url": hook}))
			if t.ExpectError(second, api.CodeDuplicateReference, "/reference") {
				if got, want := second.Str("/data/existing_id"), first.Str("/data/paymentReference"); got != want {
					t.Errorf("data.existing_id must name the payment holding the reference: want %q, got %q", want, got)
				}
			}
		}}
}

// sharedReferenceCheck is idempotency.reference.shared-across-kinds: the status API looks objects up
// by merchant reference, so one reference must not name both a payment and a payout.
func sharedReferenceCheck() *harness.Check {
	return &harness.Check{ID: "idempotency.reference.shared-across-kinds", Category: harness.CategoryIdempotency, Covers: []string{"initializePayment", "processPayout"},
		Rule: harness.Rule{Pointer: "#/components/schemas/MerchantReference/description", Quote: "The merchant's own reference, unique among the merchant's payments and payouts."},
		Doc:  "merchant references are unique across payments and payouts: " + errorDoc("a payout reusing a payment's reference", api.CodeDuplicateReference),
		Run: func(t *harness.T) {
			_, hook := t.Hook()
			ref := t.InitPayment("", hook, nil).Str("/data/reference")
			b := t.MobilePayout("", "")
			b["reference"] = ref
			t.ExpectError(t.Do(api.OpProcessPayout().Method, api.OpProcessPayout().URL(), b), api.CodeDuplicateReference, "/reference")
		}}
}

// webhookRetryChecks are the retry checks and the run-wide webhook checks. The document bounds only
// the first retry (x-malipo-first-retry-within-seconds on the Events tag); later retries back off
// with no bound a run could wait for, so each retry check provokes one failed attempt and waits for
// one retry.
func webhookRetryChecks() []*harness.Check {
	retryRule := harness.Rule{Pointer: "#/tags/" + harness.EventsTagIndex + "/description", Quote: "The first retry is sent no later than the number of seconds in `x-malipo-first-retry-within-seconds` (60) after the failed attempt ended"}
	return []*harness.Check{
		{ID: "webhooks.retry-after-500", Category: harness.CategoryWebhooks, Covers: []string{"payout.success"}, Rule: retryRule,
			Doc: "a delivery answered with 500 is retried, with the same webhook-id and a valid signature",
			Run: func(t *harness.T) {
				path, hook := t.Hook(webhooksink.Behavior{FailFirst: 1})
				t.CreatePayout(t.MobilePayout(t.Inputs().CreditedWallet(), hook))
				ds := waitRetry(t, path, "a retry after a 500", 0, func(ds []*webhooksink.Delivery) bool { return len(harness.Acknowledged(ds)) >= 1 })
				checkRetried(t, ds, 2)
			}},
		{ID: "webhooks.retry-after-timeout", Category: harness.CategoryWebhooks, Covers: []string{"payout.success"}, Rule: retryRule,
			Doc: "a delivery the receiver does not answer in time is retried with the same webhook-id",
			Run: func(t *harness.T) {
				path, hook := t.Hook(webhooksink.Behavior{StallFirst: 1, Stall: t.StallTime()})
				t.CreatePayout(t.MobilePayout(t.Inputs().CreditedWallet(), hook))
				ds := waitRetry(t, path, "a second attempt after a time-out", t.StallTime(), func(ds []*webhooksink.Delivery) bool { return len(ds) >= 2 })
				checkRetried(t, ds, 2)
			}},
		signaturesCheck(),
		{ID: "webhooks.all-types-observed", Category: harness.CategoryWebhooks, Final: true,
			Rule: harness.Rule{Pointer: "#/tags/" + harness.EventsTagIndex + "/description", Quote: "Webhook deliveries the service sends; one per status change."},
			Doc:  "every event type the spec declares under webhooks was delivered during the run",
			Run: func(t *harness.T) {
				seen := t.Receiver().TypesSeen()
				var unselected, unasked []string
				for _, typ := range t.Spec().EventTypes() {
					switch {
					case seen[typ]:
					case !t.CoverRan(typ):
						// No check of this run causes one: --run (or --skip) left them out.
						unselected = append(unselected, typ)
					case t.CoverSkipped(typ):
						// The checks that would have caused one were skipped; they say why.
						unasked = append(unasked, typ)
					default:
						t.Errorf("no %s event was delivered during the run", typ)
					}
				}
				if t.Failed() {
					return
				}
				var why []string
				if len(unselected) > 0 {
					why = append(why, "no check of this run causes "+strings.Join(unselected, ", ")+" (the checks that do were not selected)")
				}
				if len(unasked) > 0 {
					why = append(why, "no check that causes "+strings.Join(unasked, ", ")+" ran: they were skipped")
				}
				if len(why) > 0 {
					t.Skip(strings.Join(why, "; "))
				}
			}},
	}
}

// signaturesCheck is webhooks.signatures: every delivery of the run to an object's own webhook_url
// verifies with the merchant secret key, each failure naming its delivery. The lifecycle checks verify
// the deliveries they wait for too; this one sees every delivery, those no check waited for included,
// and says "the signature" rather than leaving a bad one to read as a broken state machine.
func signaturesCheck() *harness.Check {
	return &harness.Check{ID: "webhooks.signatures", Category: harness.CategoryWebhooks, Final: true,
		Rule: harness.Rule{Pointer: infoDescription, Quote: "a payment's or payout's own **`webhook_url`** signs with the merchant secret key"},
		Doc:  "every delivery to an object's webhook_url during the run is signed (Standard Webhooks) with the merchant secret key",
		Run: func(t *harness.T) {
			ds, owners := t.Receiver().MerchantSigned()
			if len(ds) == 0 {
				t.Skip("no delivery to an object's webhook_url arrived during the run (the checks that cause one were not selected or were skipped)")
			}
			v := webhook.Verifier{Secrets: []webhook.Secret{t.MerchantSecret()}}
			for i, d := range ds {
				v.Now = func() time.Time { return d.Received }
				if err := v.Verify(d.Header, d.Body); err != nil {
					t.Fail(report.Failure{Message: fmt.Sprintf("the signature does not verify with the merchant secret key: %v (a delivery of check %s)", err, owners[i]),
						Exchange: fmt.Sprintf("webhook %s %s to %s", d.Type, d.EventID, d.Path), Pointer: "header.webhook-signature",
						SpecLocation: harness.SignatureLocation(t.Spec(), d.Type)})
				}
			}
		}}
}

// waitRetry waits, for at most the run's --wait, until done says the deliveries to path include the
// retry the check provoked. The document lets the first retry come up to its bound after the failed
// attempt ended (the attempt's arrival, plus failAfter for an attempt the receiver stalled), so a wait
// that ended sooner than that after the failure has not seen the promise broken: the check is then
// skipped, naming the --wait that would observe it. Past the bound, a missing retry fails.
func waitRetry(t *harness.T, path, what string, failAfter time.Duration, done func([]*webhooksink.Delivery) bool) []*webhooksink.Delivery {
	_, ok, state := t.Watch(what, func() (bool, string) {
		ds := t.Deliveries(path)
		return done(ds), harness.DescribeDeliveries(ds)
	})
	ds := t.Deliveries(path)
	if ok {
		return ds
	}
	if len(ds) == 0 {
		t.Fatalf("timed out after %s waiting for %s: no delivery arrived", t.EventuallyTimeout(), what)
	}
	if timeout, err := t.Spec().WebhookDeliveryTimeout(); err == nil && failAfter > timeout {
		failAfter = timeout
	}
	failed := ds[0].Received.Add(failAfter)
	bound, err := t.Spec().WebhookFirstRetryBound()
	if err != nil {
		t.Skip(fmt.Sprintf("no retry within --wait %s, and the document bounds no retry (%s): not observable", t.EventuallyTimeout(), err))
	}
	if waited := time.Since(failed); waited < bound {
		when := fmt.Sprintf("the wait ended %s after the failed attempt", waited.Round(time.Millisecond))
		if waited <= 0 {
			when = "the wait ended before the attempt could have timed out"
		}
		need := (t.EventuallyTimeout() + bound - waited + 2*time.Second).Truncate(time.Second)
		t.Skip(fmt.Sprintf("not observable within --wait %s: the document lets the first retry come up to %s after a failed attempt, and %s; --wait %s observes it",
			t.EventuallyTimeout(), bound, when, need))
	}
	t.Fatalf("no retry %s after the failed attempt, past the document's bound of %s; last seen: %s", time.Since(failed).Round(time.Millisecond), bound, state)
	return nil
}

// checkRetried checks that the first attempts of one event were retried with a stable id.
func checkRetried(t *harness.T, ds []*webhooksink.Delivery, atLeast int) {
	if len(ds) < atLeast {
		t.Fatalf("want at least %d attempts, got %s", atLeast, harness.DescribeDeliveries(ds))
	}
	first := ds[0]
	for i, d := range ds[:atLeast] {
		if d.EventID != first.EventID || d.Header.Get(api.HeaderWebhookID) != first.Header.Get(api.HeaderWebhookID) {
			t.Errorf("attempt %d has webhook-id %q (event %q); retries must keep %q", i+1, d.Header.Get(api.HeaderWebhookID), d.EventID, first.EventID)
		}
		t.VerifyDelivery(d, t.MerchantSecret())
	}
}

func isolationChecks() []*harness.Check {
	return []*harness.Check{
		{ID: "auth.isolation.payout", Category: harness.CategoryAuth, NeedsSecondMerchant: true,
			Rule:   harness.Rule{Pointer: opTransactionStatus + "/description", Quote: "Objects of other merchants are reported as not found."},
			Covers: []string{"getPayout", "getTransactionStatus"},
			Doc:    "another merchant's payout is not found (404), by payout_id and by the status API",
			Run: func(t *harness.T) {
				created := t.CreatePayout(t.MobilePayout(t.Inputs().CreditedWallet(), ""))
				other := harness.WithKeys(t.OtherMerchant())
				t.ExpectError(t.GetPayout(created.Str("/data/payout_id"), other), api.CodeNotFound)
				t.ExpectError(t.Transaction(created.Str("/data/payout_id"), other), api.CodeNotFound)
			}},
		{ID: "auth.isolation.payment", Category: harness.CategoryAuth, NeedsSecondMerchant: true,
			Rule:   harness.Rule{Pointer: opTransactionStatus + "/description", Quote: "Objects of other merchants are reported as not found."},
			Covers: []string{"completePayment", "getTransactionStatus"},
			Doc:    "another merchant's payment cannot be completed or read (404)",
			Run: func(t *harness.T) {
				_, hook := t.Hook()
				init := t.InitPayment(t.Inputs().ApprovingPhone(), hook, nil)
				other := harness.WithKeys(t.OtherMerchant())
				t.ExpectError(t.CompletePayment(init.Str("/data/paymentReference"), nil, other), api.CodeNotFound)
				t.ExpectError(t.Transaction(init.Str("/data/reference"), other), api.CodeNotFound)
			}},
		{ID: "auth.isolation.webhook-endpoint", Category: harness.CategoryAuth, NeedsSecondMerchant: true, Extension: true,
			Rule:   harness.Rule{Pointer: errorTable, Quote: notFoundQuote},
			Covers: []string{"getWebhookEndpoint"},
			Doc:    "another merchant's webhook endpoint is not found (404)",
			Run: func(t *harness.T) {
				id := t.IdleEndpoint()
				t.ExpectError(t.Do(api.OpGetWebhookEndpoint().Method, api.OpGetWebhookEndpoint().URL(id), nil, harness.WithKeys(t.OtherMerchant())), api.CodeNotFound)
			}},
	}
}
