package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// The event-log extension: list (filters, cursor pages without repeats or gaps), get (the payload is
// the delivered body), delivery attempts, resend (the same webhook-id, again, to the destinations or
// one endpoint), unknown events, and isolation between merchants. The checks use payments, whose
// events come at once when the prompt is sent, and only acknowledged deliveries, so that what they
// prove is the event log's, not the retry schedule's.

// eventChecks are the checks of the event-log extension; a target without it skips them.
func eventChecks() []*harness.Check {
	checks := []*harness.Check{eventListCheck(), eventPaginationCheck(), eventGetCheck(), eventAttemptsCheck(), eventResendCheck(),
		eventResendToEndpointCheck(), eventNotFoundCheck(), eventIsolationCheck()}
	return append(checks, eventOrderChecks()...)
}

// deliveredPayment makes a payment that succeeds, with its webhooks to a fresh hook of the check, and
// waits until its payment.success is acknowledged there; it returns the hook and that delivery.
func deliveredPayment(t *harness.T) (path, hookURL, ref string, d *webhooksink.Delivery) {
	path, hookURL = t.Hook()
	ref = t.InitPayment(t.Inputs().ApprovingPhone(), hookURL, nil).Str("/data/paymentReference")
	t.ExpectStatus(t.CompletePayment(ref, nil), http.StatusAccepted)
	success := func(ds []*webhooksink.Delivery) *webhooksink.Delivery {
		for _, d := range harness.Acknowledged(harness.ForObject(ds, ref)) {
			if d.Type == string(api.EventTypePaymentSuccess) {
				return d
			}
		}
		return nil
	}
	ds := t.WaitDeliveries(path, "payment.success acknowledged at the payment's webhook_url", func(ds []*webhooksink.Delivery) bool { return success(ds) != nil })
	// The log lists "the same events the webhooks deliver", with no promise that it has them the moment
	// a delivery arrives: the checks read it once it lists both of the payment's events.
	t.Eventually("the payment's two events in the event log (object_id="+ref+")", func() (bool, string) {
		items := listAllEvents(t, url.Values{"object_id": {ref}}, 10)
		return len(items) >= 2, fmt.Sprint(ids(items))
	})
	return path, hookURL, ref, success(ds)
}

// listEvents lists with the query and requires a 200.
func listEvents(t *harness.T, query url.Values, opts ...harness.ReqOption) (items []map[string]any, ex *harness.Exchange) {
	path := api.OpListEvents().URL()
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	ex = t.Do(api.OpListEvents().Method, path, nil, opts...)
	t.RequireStatus(ex, http.StatusOK)
	raw, _ := ex.Get("/data/items").([]any)
	for _, it := range raw {
		m, _ := it.(map[string]any)
		items = append(items, m)
	}
	return items, ex
}

// listAllEvents lists the events a query selects by following next_cursor, for at most maxPages pages.
func listAllEvents(t *harness.T, query url.Values, maxPages int) []map[string]any {
	var all []map[string]any
	for range maxPages {
		items, ex := listEvents(t, query)
		all = append(all, items...)
		cursor, _ := ex.Get("/data/next_cursor").(string)
		if ex.Get("/data/has_more") != true || cursor == "" {
			break
		}
		query.Set("cursor", cursor)
	}
	return all
}

func ids(items []map[string]any) []any {
	out := make([]any, 0, len(items))
	for _, it := range items {
		out = append(out, it["id"])
	}
	return out
}

// newestFirst fails the check unless created_at never increases along items.
func newestFirst(t *harness.T, items []map[string]any, what string) {
	var prev time.Time
	for i, it := range items {
		at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(it["created_at"]))
		if err != nil {
			continue // the response's validation reports a bad date-time
		}
		if i > 0 && at.After(prev) {
			t.Errorf("%s: events must be listed newest first, but %v (created %s) follows one created %s", what, it["id"], at.Format(time.RFC3339Nano), prev.Format(time.RFC3339Nano))
		}
		prev = at
	}
}

// eventListCheck is extensions.events.list.
func eventListCheck() *harness.Check {
	return &harness.Check{ID: "extensions.events.list", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opListEvents + "/description", Quote: "The merchant's events, newest first: one per status change of a payment or payout, the same events the webhooks deliver."},
		Covers: []string{"listEvents", "payment.success"},
		Doc:    "the events of an object are listed newest first, filtered by object_id and by type, the delivered event among them",
		Run: func(t *harness.T) {
			_, _, ref, d := deliveredPayment(t)
			items := listAllEvents(t, url.Values{"object_id": {ref}}, 10)
			found := false
			for _, it := range items {
				if it["object_id"] != ref {
					t.Errorf("object_id=%s listed an event of %v", ref, it["object_id"])
				}
				found = found || it["id"] == d.EventID
			}
			if !found {
				t.Errorf("object_id=%s does not list the delivered event %s: lists %v", ref, d.EventID, ids(items))
			}
			newestFirst(t, items, "object_id="+ref)
			typed, ex := listEvents(t, url.Values{"object_id": {ref}, "type": {string(api.EventTypePaymentSuccess)}})
			if len(typed) != 1 || typed[0]["id"] != d.EventID {
				t.Errorf("object_id=%s&type=payment.success must list exactly %s, listed %v", ref, d.EventID, ids(typed))
			}
			if ex.Get("/data/has_more") != false {
				t.Errorf("a page with every event must say has_more false: %s", harness.Snippet(ex.Body))
			}
		}}
}

// eventPaginationCheck is extensions.events.pagination.
func eventPaginationCheck() *harness.Check {
	return &harness.Check{ID: "extensions.events.pagination", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opListEvents + "/description", Quote: "page with `limit` and the `next_cursor` of the previous page, which continues exactly after its last event, so that events created while paging neither repeat nor shift a page"},
		Covers: []string{"listEvents"},
		Doc:    "pages that follow next_cursor list every event once, newest first, even while new events arrive",
		Run: func(t *harness.T) {
			_, _, ref, _ := deliveredPayment(t)
			// A page holds at most limit events, perhaps fewer while more follow (has_more): every event
			// of the payment is what the pages that follow next_cursor list.
			all := listAllEvents(t, url.Values{"object_id": {ref}}, 10)
			if len(all) < 2 {
				t.Fatalf("a completed payment that succeeded has two events (processing, success); object_id=%s lists %v", ref, ids(all))
			}
			// Everything since this payment's first event: other checks add events while the pages are read.
			since := fmt.Sprint(all[len(all)-1]["created_at"])
			snapshot, _ := listEvents(t, url.Values{"created_after": {since}, "limit": {"100"}})
			walk := func(query url.Values, maxPages int, stop func(seen map[any]bool) bool) []any {
				var seen []any
				set := map[any]bool{}
				for page := 0; page < maxPages; page++ {
					items, ex := listEvents(t, query)
					for _, it := range items {
						if set[it["id"]] {
							t.Errorf("event %v is listed twice while following next_cursor (page %d)", it["id"], page+1)
						}
						set[it["id"]] = true
						seen = append(seen, it["id"])
					}
					cursor, _ := ex.Get("/data/next_cursor").(string)
					if ex.Get("/data/has_more") != true || stop(set) {
						return seen
					}
					if cursor == "" {
						t.Fatalf("has_more is true but next_cursor is missing: %s", harness.Snippet(ex.Body))
					}
					query.Set("cursor", cursor)
				}
				return seen
			}
			newestFirst(t, snapshot, "created_after="+since)
			perObject := walk(url.Values{"object_id": {ref}, "limit": {"1"}}, 10, func(map[any]bool) bool { return false })
			if fmt.Sprint(perObject) != fmt.Sprint(ids(all)) {
				t.Errorf("object_id=%s one event per page lists %v, one page lists %v", ref, perObject, ids(all))
			}
			// The walk stops once every event of the snapshot was seen; a gap leaves one unseen.
			seen := map[any]bool{}
			for _, id := range walk(url.Values{"created_after": {since}, "limit": {"5"}}, 60, func(s map[any]bool) bool {
				for _, it := range snapshot {
					if !s[it["id"]] {
						return false
					}
				}
				return true
			}) {
				seen[id] = true
			}
			for _, it := range snapshot {
				if !seen[it["id"]] {
					t.Errorf("event %v (listed on one page of 100) is missing from the pages of 5 that follow next_cursor", it["id"])
				}
			}
		}}
}

// eventGetCheck is extensions.events.get.
func eventGetCheck() *harness.Check {
	return &harness.Check{ID: "extensions.events.get", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opGetEvent + "/description", Quote: "with `payload`, the body its webhook deliveries carry (their `webhook-id` is the event's `id`)"},
		Covers: []string{"getEvent", "payment.success"},
		Doc:    "an event read by id is the delivered one: its id is the webhook-id, its payload the delivered body",
		Run: func(t *harness.T) {
			_, _, ref, d := deliveredPayment(t)
			if got := d.Header.Get(webhook.HeaderID); got != d.EventID {
				t.Fatalf("the delivery's webhook-id %q is not its body's id %q", got, d.EventID)
			}
			ex := t.Do(api.OpGetEvent().Method, api.OpGetEvent().URL(d.EventID), nil)
			t.RequireStatus(ex, http.StatusOK)
			if ex.Str("/data/id") != d.EventID || ex.Str("/data/type") != d.Type || ex.Str("/data/object_id") != ref {
				t.Errorf("want event %s of type %s about %s, got %s", d.EventID, d.Type, ref, harness.Snippet(ex.Body))
			}
			if !sameJSON(ex.Get("/data/payload"), d.Body) {
				t.Errorf("payload must be the delivered body %s; got %s", harness.Snippet(d.Body), harness.Snippet(ex.Body))
			}
		}}
}

// sameJSON reports whether the decoded value v and the JSON text b are the same JSON value.
func sameJSON(v any, b []byte) bool {
	var w any
	if json.Unmarshal(b, &w) != nil {
		return false
	}
	x, err1 := json.Marshal(v)
	y, err2 := json.Marshal(w)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// attemptsOf lists an event's delivery attempts and requires a 200.
func attemptsOf(t *harness.T, eventID string) []map[string]any {
	ex := t.Do(api.OpListEventAttempts().Method, api.OpListEventAttempts().URL(eventID), nil)
	t.RequireStatus(ex, http.StatusOK)
	raw, _ := ex.Get("/data").([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, it := range raw {
		m, _ := it.(map[string]any)
		out = append(out, m)
	}
	return out
}

// waitAttempt waits until the event lists a delivered attempt to url that match accepts.
func waitAttempt(t *harness.T, eventID, url, what string, match func(a map[string]any) bool) map[string]any {
	var found map[string]any
	t.Eventually(what, func() (bool, string) {
		as := attemptsOf(t, eventID)
		for _, a := range as {
			dest, _ := a["destination"].(map[string]any)
			if dest["url"] == url && a["delivered"] == true && match(a) {
				found = a
				return true, ""
			}
		}
		b, _ := json.Marshal(as)
		return false, harness.Snippet(b)
	})
	return found
}

// eventAttemptsCheck is extensions.events.attempts.
func eventAttemptsCheck() *harness.Check {
	return &harness.Check{ID: "extensions.events.attempts", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opListEventAttempts + "/description", Quote: "The event's 100 most recent delivery attempts, oldest first"},
		Covers: []string{"listEventAttempts", "payment.success"},
		Doc:    "an acknowledged delivery is listed as a delivered attempt to the webhook_url, with the receiver's status",
		Run: func(t *harness.T) {
			_, hookURL, _, d := deliveredPayment(t)
			a := waitAttempt(t, d.EventID, hookURL, "the acknowledged delivery among the event's attempts", func(map[string]any) bool { return true })
			dest, _ := a["destination"].(map[string]any)
			if dest["kind"] != string(api.DeliveryDestinationKindWebhookURL) {
				t.Errorf("a delivery to the payment's webhook_url has destination.kind %q, want %q", dest["kind"], api.DeliveryDestinationKindWebhookURL)
			}
			if a["status_code"] != float64(d.Answer) {
				t.Errorf("the receiver answered %d, the attempt says status_code %v", d.Answer, a["status_code"])
			}
			if a["resend"] != false {
				t.Errorf("a delivery of the status change is not a resend: %v", a)
			}
		}}
}

// eventResendCheck is extensions.events.resend.
func eventResendCheck() *harness.Check {
	return &harness.Check{ID: "extensions.events.resend", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opResendEvent + "/description", Quote: "the same body and the same `webhook-id` (receivers that deduplicate on it see a repeat), a fresh `webhook-timestamp` and signature"},
		Covers: []string{"resendEvent", "listEventAttempts", "payment.success"},
		Doc:    "a resend delivers the event again with the same webhook-id and body, freshly signed, and lists a new attempt",
		Run: func(t *harness.T) {
			path, hookURL, _, d := deliveredPayment(t)
			before := len(t.Deliveries(path))
			ex := t.Do(api.OpResendEvent().Method, api.OpResendEvent().URL(d.EventID), nil)
			t.RequireStatus(ex, http.StatusAccepted)
			queued := false
			deliveries, _ := ex.Get("/data/deliveries").([]any)
			for _, q := range deliveries {
				m, _ := q.(map[string]any)
				queued = queued || (m["url"] == hookURL && m["kind"] == string(api.DeliveryDestinationKindWebhookURL))
			}
			if !queued {
				t.Errorf("the resend must queue a delivery to the payment's webhook_url %s: %s", hookURL, harness.Snippet(ex.Body))
			}
			// Deliveries arrive in no promised order and at least once: the payment's own
			// payment.processing may come after its payment.success, and the resend is told from the rest
			// by its webhook-id (a late duplicate of the first delivery would match too, harmlessly: same
			// id, same body). The event log's attempts say which one was the resend.
			resent := func(ds []*webhooksink.Delivery) []*webhooksink.Delivery {
				var out []*webhooksink.Delivery
				for _, x := range harness.Acknowledged(ds[min(before, len(ds)):]) {
					if x.Header.Get(webhook.HeaderID) == d.EventID {
						out = append(out, x)
					}
				}
				return out
			}
			ds := t.WaitDeliveries(path, "the resent payment.success (webhook-id "+d.EventID+")", func(ds []*webhooksink.Delivery) bool { return len(resent(ds)) > 0 })
			again := resent(ds)[0]
			if !bytes.Equal(again.Body, d.Body) && !sameJSON(mustDecode(again.Body), d.Body) {
				t.Errorf("a resend must carry the same body: first %s, resent %s", harness.Snippet(d.Body), harness.Snippet(again.Body))
			}
			t.VerifyDelivery(again, t.MerchantSecret())
			waitAttempt(t, d.EventID, hookURL, "the resend among the event's attempts", func(a map[string]any) bool { return a["resend"] == true })
		}}
}

func mustDecode(b []byte) any {
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}

// eventResendToEndpointCheck is extensions.events.resend-to-endpoint.
func eventResendToEndpointCheck() *harness.Check {
	return &harness.Check{ID: "extensions.events.resend-to-endpoint", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: opResendEvent + "/description", Quote: "With `endpoint_id` it goes to that endpoint only, whether or not it subscribes to the type or is enabled, as long as it belongs to the merchant (else `404`)"},
		Covers: []string{"resendEvent", "createWebhookEndpoint", "payment.success"},
		Doc:    "a resend with endpoint_id goes to that endpoint only, whatever it subscribes to, signed with its secret; an unknown endpoint_id is 404",
		Run: func(t *harness.T) {
			_, hookURL, _, d := deliveredPayment(t)
			endpointPath, endpointHook := t.Hook()
			// Disabled, so that no other check's events reach it: the resend must go there all the same
			// ("whether or not it subscribes to the type or is enabled").
			body := t.EndpointBody(endpointHook, api.EventTypePayoutFailed)
			body["enabled"] = false
			created := t.CreateEndpoint(body)
			secret, err := webhook.ParseSecret(created.Str("/data/secret"))
			if err != nil {
				t.Fatalf("the endpoint secret is not a whsec_ secret: %v", err)
			}
			ex := t.Do(api.OpResendEvent().Method, api.OpResendEvent().URL(d.EventID), map[string]any{"endpoint_id": created.Str("/data/id")})
			t.RequireStatus(ex, http.StatusAccepted)
			if n, _ := ex.Get("/data/deliveries").([]any); len(n) != 1 || ex.Str("/data/deliveries/0/endpoint_id") != created.Str("/data/id") {
				t.Errorf("the resend must queue exactly one delivery, to endpoint %s: %s", created.Str("/data/id"), harness.Snippet(ex.Body))
			}
			resent := func(ds []*webhooksink.Delivery) *webhooksink.Delivery {
				for _, x := range harness.Acknowledged(ds) {
					if x.Header.Get(webhook.HeaderID) == d.EventID {
						return x
					}
				}
				return nil
			}
			ds := t.WaitDeliveries(endpointPath, "the event resent to the endpoint (webhook-id "+d.EventID+")", func(ds []*webhooksink.Delivery) bool { return resent(ds) != nil })
			t.VerifyDelivery(resent(ds), secret)
			t.ExpectError(t.Do(api.OpResendEvent().Method, api.OpResendEvent().URL(d.EventID), map[string]any{"endpoint_id": harness.UnknownID}), api.CodeNotFound)
			// What reaches the payment's webhook_url afterwards cannot tell a resend from a delivery that
			// is late or repeated, as the document allows; the event log can: no attempt of the resend
			// may have gone there.
			t.Settle()
			for _, a := range attemptsOf(t, d.EventID) {
				if dest, _ := a["destination"].(map[string]any); a["resend"] == true && dest["url"] == hookURL {
					b, _ := json.Marshal(a)
					t.Errorf("a resend to one endpoint also went to the payment's webhook_url: attempt %s", harness.Snippet(b))
				}
			}
		}}
}

// eventNotFoundCheck is extensions.events.not-found.
func eventNotFoundCheck() *harness.Check {
	return &harness.Check{ID: "extensions.events.not-found", Category: harness.CategoryExtensions, Extension: true,
		Rule:   harness.Rule{Pointer: errorTable, Quote: notFoundQuote},
		Covers: []string{"getEvent", "listEventAttempts", "resendEvent"},
		Doc:    "an unknown event id is 404 (code 3000) to get, attempts and resend",
		Run: func(t *harness.T) {
			t.ExpectError(t.Do(api.OpGetEvent().Method, api.OpGetEvent().URL(harness.UnknownID), nil), api.CodeNotFound)
			t.ExpectError(t.Do(api.OpListEventAttempts().Method, api.OpListEventAttempts().URL(harness.UnknownID), nil), api.CodeNotFound)
			t.ExpectError(t.Do(api.OpResendEvent().Method, api.OpResendEvent().URL(harness.UnknownID), nil), api.CodeNotFound)
		}}
}

// eventIsolationCheck is auth.isolation.event.
func eventIsolationCheck() *harness.Check {
	return &harness.Check{ID: "auth.isolation.event", Category: harness.CategoryAuth, NeedsSecondMerchant: true, Extension: true,
		Rule:   harness.Rule{Pointer: opListEvents + "/description", Quote: "Another merchant's events are never listed."},
		Covers: []string{"listEvents", "getEvent", "listEventAttempts", "resendEvent"},
		Doc:    "another merchant cannot list, read, list the attempts of or resend a merchant's event (404)",
		Run: func(t *harness.T) {
			_, hook := t.Hook()
			ref := t.InitPayment(t.Inputs().ApprovingPhone(), hook, nil).Str("/data/paymentReference")
			t.ExpectStatus(t.CompletePayment(ref, nil), http.StatusAccepted)
			var eventID string
			t.Eventually("an event of payment "+ref, func() (bool, string) {
				items, ex := listEvents(t, url.Values{"object_id": {ref}})
				if len(items) > 0 {
					eventID = fmt.Sprint(items[0]["id"])
				}
				return eventID != "", harness.Snippet(ex.Body)
			})
			other := harness.WithKeys(t.OtherMerchant())
			t.ExpectError(t.Do(api.OpGetEvent().Method, api.OpGetEvent().URL(eventID), nil, other), api.CodeNotFound)
			t.ExpectError(t.Do(api.OpListEventAttempts().Method, api.OpListEventAttempts().URL(eventID), nil, other), api.CodeNotFound)
			t.ExpectError(t.Do(api.OpResendEvent().Method, api.OpResendEvent().URL(eventID), nil, other), api.CodeNotFound)
			// A filter on an object the merchant does not have may list nothing (200) or find no such
			// object (404, which the operation documents): either way nothing of the other merchant's.
			path := api.OpListEvents().URL() + "?" + url.Values{"object_id": {ref}}.Encode()
			ex := t.Do(api.OpListEvents().Method, path, nil, other)
			switch ex.Status {
			case http.StatusOK:
				if items, _ := ex.Get("/data/items").([]any); len(items) > 0 {
					t.Errorf("another merchant's listing shows this merchant's events: %s", harness.Snippet(ex.Body))
				}
			default:
				t.ExpectError(ex, api.CodeNotFound)
			}
		}}
}

// anEvent makes an event for a check that needs one to exist (a path parameter of the event log):
// a payment's payment.processing, emitted when its prompt is sent.
func anEvent(t *harness.T) string {
	_, hook := t.Hook()
	ref := t.InitPayment(t.Inputs().ApprovingPhone(), hook, nil).Str("/data/paymentReference")
	t.RequireStatus(t.CompletePayment(ref, nil), http.StatusAccepted)
	var id string
	t.Eventually("an event of payment "+ref, func() (bool, string) {
		items, ex := listEvents(t, url.Values{"object_id": {ref}})
		if len(items) > 0 {
			id = fmt.Sprint(items[len(items)-1]["id"])
		}
		return id != "", harness.Snippet(ex.Body)
	})
	return id
}
