package checks

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/contracttests/webhooksink"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The orders the document fixes, each checked on a list long enough to tell: an event's delivery
// attempts (oldest first), the event log (newest first), the cursor that continues a page of it, and
// the webhook endpoints (oldest first). Each list holds things the check made one after another, so
// that their order is known without reading a timestamp: a retry comes after the attempt whose failure
// it answers, and what a check creates once the target has answered for (or listed) the thing before
// comes after that thing. Timestamps, which an
// implementation may write to the second (so that several are equal), are compared only where they
// must never decrease, equal ones allowed. Other checks create events and endpoints at the same time:
// each check judges only the order of its own among whatever else is listed.

// eventOrderChecks are the order checks of the event-log extension.
func eventOrderChecks() []*harness.Check {
	return []*harness.Check{eventAttemptsOrderCheck(), eventsNewestFirstCheck(), eventCursorCheck()}
}

// eventAttemptsOrderCheck is extensions.events.attempts-oldest-first.
func eventAttemptsOrderCheck() *harness.Check {
	return &harness.Check{ID: "extensions.events.attempts-oldest-first", Category: harness.CategoryExtensions, Extension: true,
		Covers: []string{"listEventAttempts", "processPayout", "payout.success"},
		Doc: "an event's delivery attempts are listed oldest first: the attempt the receiver answered with 500 comes " +
			"before the retry it acknowledged, and no attempt started before the one listed ahead of it",
		Rule: harness.Rule{Pointer: opListEventAttempts + "/description", Quote: "The event's 100 most recent delivery attempts, oldest first"},
		Run: func(t *harness.T) {
			// A payout has one event, so every attempt to this path is one of its: the first is answered
			// with 500, and the retry that failure calls for is acknowledged.
			path, hook := t.Hook(webhooksink.Behavior{FailFirst: 1})
			t.CreatePayout(t.MobilePayout(t.Inputs().CreditedWallet(), hook))
			ds := waitRetry(t, path, "a retry after a 500", 0, func(ds []*webhooksink.Delivery) bool { return len(harness.Acknowledged(ds)) >= 1 })
			eventID := ds[0].EventID
			var mine []map[string]any
			t.Eventually("the failed attempt and the acknowledged retry among the attempts of event "+eventID, func() (bool, string) {
				mine = nil
				for _, a := range attemptsOf(t, eventID) {
					if dest, _ := a["destination"].(map[string]any); dest["url"] == hook && a["resend"] == false {
						mine = append(mine, a)
					}
				}
				delivered := slices.ContainsFunc(mine, func(a map[string]any) bool { return a["delivered"] == true })
				return len(mine) >= 2 && delivered, attemptsText(mine)
			})
			// The receiver answered the first attempt to arrive with 500, and every later one with 200:
			// that attempt, never delivered, is the oldest, and nothing it answered with 500 follows an
			// acknowledged one.
			afterDelivered := func(i int) bool {
				return slices.ContainsFunc(mine[:i], func(a map[string]any) bool { return a["delivered"] == true })
			}
			if mine[0]["delivered"] == true {
				t.Errorf("event %s lists the acknowledged attempt to %s first: %s; the first attempt, which the receiver answered with 500, is the oldest (the retry came because it failed) and must be listed first",
					eventID, hook, attemptsText(mine))
			} else if i := slices.IndexFunc(mine, func(a map[string]any) bool { return a["status_code"] == float64(http.StatusInternalServerError) }); i > 0 && afterDelivered(i) {
				t.Errorf("event %s lists the attempt the receiver answered with 500 after an acknowledged one: %s; the 500 came first, and oldest first lists it first", eventID, attemptsText(mine))
			}
			var prev time.Time
			for i, a := range mine {
				at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(a["started_at"]))
				if err != nil {
					continue // the response's validation reports a bad date-time
				}
				if i > 0 && at.Before(prev) {
					t.Errorf("event %s lists an attempt started %s after one started %s: oldest first, no attempt started before the one ahead of it: %s",
						eventID, at.Format(time.RFC3339Nano), prev.Format(time.RFC3339Nano), attemptsText(mine))
					break
				}
				prev = at
			}
		}}
}

// attemptsText shows attempts in a failure: each one's number, status and whether it was delivered.
func attemptsText(as []map[string]any) string {
	parts := make([]string, 0, len(as))
	for _, a := range as {
		status := "no answer"
		if code, ok := a["status_code"].(float64); ok {
			status = fmt.Sprint(code)
		}
		parts = append(parts, fmt.Sprintf("#%v (%s, delivered %v, started %v)", a["number"], status, a["delivered"], a["started_at"]))
	}
	if len(parts) == 0 {
		return "no attempt"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// loggedEvent is an event as the log lists it: its id and its created_at as written.
type loggedEvent struct{ id, createdAt string }

// promptsInSequence completes payments one after another, each only once the event log lists the
// payment.processing of the one before, and returns those events oldest first: the order in which
// they were created, since each prompt was sent after the event of the one before existed. A payment's
// payment.processing comes with its prompt, so the check waits for no settlement.
func promptsInSequence(t *harness.T, payments int) []loggedEvent {
	var made []loggedEvent
	for range payments {
		_, hook := t.Hook()
		ref := t.InitPayment(t.Inputs().ApprovingPhone(), hook, nil).Str("/data/paymentReference")
		t.RequireStatus(t.CompletePayment(ref, nil), http.StatusAccepted)
		var ev loggedEvent
		t.Eventually("payment "+ref+"'s payment.processing in the event log", func() (bool, string) {
			items, ex := listEvents(t, url.Values{"object_id": {ref}, "type": {string(api.EventTypePaymentProcessing)}})
			if len(items) > 0 {
				ev = loggedEvent{id: fmt.Sprint(items[0]["id"]), createdAt: fmt.Sprint(items[0]["created_at"])}
			}
			return ev.id != "", harness.Snippet(ex.Body)
		})
		made = append(made, ev)
	}
	return made
}

// eventWindow selects the payment.processing events created from the first of evs to the last (oldest
// first), and a few others: created_after one step of its written precision before the first's
// created_at, and created_before one step after the last's. A log that writes times to the second
// shows an event created at 10:20:05.7 as 10:20:05, or as 10:20:06 if it rounds; either way the event
// is inside. Other checks' prompts sent meanwhile are in the window too.
func eventWindow(t *harness.T, evs []loggedEvent) url.Values {
	first, firstStep := writtenTime(t, evs[0])
	last, lastStep := writtenTime(t, evs[len(evs)-1])
	return url.Values{
		"type":           {string(api.EventTypePaymentProcessing)},
		"created_after":  {first.Add(-firstStep).UTC().Format(time.RFC3339Nano)},
		"created_before": {last.Add(lastStep).UTC().Format(time.RFC3339Nano)},
	}
}

// windowText shows a window's query in a failure, unescaped.
func windowText(q url.Values) string {
	text, err := url.QueryUnescape(q.Encode())
	if err != nil {
		return q.Encode()
	}
	return text
}

// writtenTime reads an event's created_at, and the step of its last digit: a second without a
// fraction, a millisecond with three fraction digits.
func writtenTime(t *harness.T, ev loggedEvent) (time.Time, time.Duration) {
	at, err := time.Parse(time.RFC3339Nano, ev.createdAt)
	if err != nil {
		t.Fatalf("event %s has created_at %q, not an RFC 3339 date-time", ev.id, ev.createdAt)
	}
	digits := 0
	if i := strings.IndexByte(ev.createdAt, '.'); i >= 0 {
		for _, c := range ev.createdAt[i+1:] {
			if c < '0' || c > '9' {
				break
			}
			digits++
		}
	}
	return at, time.Duration(float64(time.Second) / math.Pow10(digits))
}

// eventWalk is what following next_cursor listed: every event of every page, in order, and the
// index in events at which each page starts.
type eventWalk struct {
	events     []map[string]any
	pageStarts []int
	// repeated is the first event listed a second time, and the page (from 1) it came again on.
	repeated     any
	repeatedPage int
	// ended says the last page had has_more false.
	ended bool
}

// walkEvents lists the events query selects with limit, page after page following next_cursor,
// until the listing ends, enough says the walk has seen enough, or after maxPages pages.
func walkEvents(t *harness.T, query url.Values, limit, maxPages int, enough func(w *eventWalk) bool) *eventWalk {
	q := url.Values{}
	for k, v := range query {
		q[k] = slices.Clone(v)
	}
	q.Set("limit", fmt.Sprint(limit))
	w := &eventWalk{}
	seen := map[any]bool{}
	for page := 1; page <= maxPages; page++ {
		items, ex := listEvents(t, q)
		w.pageStarts = append(w.pageStarts, len(w.events))
		for _, it := range items {
			if seen[it["id"]] && w.repeated == nil {
				w.repeated, w.repeatedPage = it["id"], page
			}
			seen[it["id"]] = true
			w.events = append(w.events, it)
		}
		cursor, _ := ex.Get("/data/next_cursor").(string)
		if ex.Get("/data/has_more") != true {
			w.ended = true
			return w
		}
		if enough(w) {
			return w
		}
		if cursor == "" {
			t.Fatalf("has_more is true but next_cursor is missing: %s", harness.Snippet(ex.Body))
		}
		q.Set("cursor", cursor)
	}
	return w
}

// order returns the ids of evs in the order the walk first listed them, leaving out those it did not.
func (w *eventWalk) order(evs []loggedEvent) []string {
	want := map[string]bool{}
	for _, ev := range evs {
		want[ev.id] = true
	}
	var out []string
	for _, it := range w.events {
		if id := fmt.Sprint(it["id"]); want[id] && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// seenAll is an enough for walkEvents: the walk has listed every one of evs.
func seenAll(evs []loggedEvent) func(*eventWalk) bool {
	return func(w *eventWalk) bool { return len(w.order(evs)) == len(evs) }
}

// newestFirstIDs is the ids of evs (oldest first) newest first.
func newestFirstIDs(evs []loggedEvent) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[len(evs)-1-i] = ev.id
	}
	return out
}

const (
	// walkPages bounds a walk of the event log. A window holds the prompts of other checks' payments
	// sent while the check sent its own, and a target may cap its pages at fewer events than limit,
	// down to one.
	walkPages = 500
	// orderPayments is how many payments a check completes one after another: three events of known
	// order.
	orderPayments = 3
)

// eventsNewestFirstCheck is extensions.events.newest-first.
func eventsNewestFirstCheck() *harness.Check {
	return &harness.Check{ID: "extensions.events.newest-first", Category: harness.CategoryExtensions, Extension: true,
		Covers: []string{"listEvents", "payment.processing"},
		Doc: "the event log lists events newest first: the payment.processing events of three payments completed one " +
			"after another come in the reverse of the order they were created in",
		Rule: harness.Rule{Pointer: "#/components/schemas/EventPage/properties/items/description", Quote: "The events, newest first"},
		Run: func(t *harness.T) {
			made := promptsInSequence(t, orderPayments)
			window := eventWindow(t, made)
			w := walkEvents(t, window, 100, walkPages, seenAll(made))
			got, want := w.order(made), newestFirstIDs(made)
			switch {
			case len(got) < len(want) && !w.ended:
				t.Skip(fmt.Sprintf("the events created while the check sent its prompts (%s) fill more than %d pages; the check's own events were not all reached", windowText(window), walkPages))
			case len(got) < len(want):
				t.Errorf("%s lists %v of the check's events %v: every event created in that window belongs to it", windowText(window), got, want)
			case !slices.Equal(got, want):
				t.Errorf("%s lists the check's events as %v; newest first is %v (each payment's prompt was sent once the event log listed the one before's)",
					windowText(window), got, want)
			}
		}}
}

// eventCursorCheck is extensions.events.cursor.
func eventCursorCheck() *harness.Check {
	return &harness.Check{ID: "extensions.events.cursor", Category: harness.CategoryExtensions, Extension: true,
		Covers: []string{"listEvents", "payment.processing"},
		Doc: "a page's next_cursor continues exactly after its last event: pages of one event list the payment.processing " +
			"events of three payments completed one after another each once, newest first, and pages of three repeat and skip none",
		Rule: harness.Rule{Pointer: "#/components/parameters/EventCursor/description", Quote: "The `next_cursor` of the previous page, to continue after its last event"},
		Run: func(t *harness.T) {
			made := promptsInSequence(t, orderPayments)
			window := eventWindow(t, made)
			for _, limit := range []int{1, 3} {
				// A cursor that does not continue after its page can list one page for ever: the walk
				// ends at the first event listed again.
				w := walkEvents(t, window, limit, walkPages, func(w *eventWalk) bool { return w.repeated != nil || seenAll(made)(w) })
				got, want := w.order(made), newestFirstIDs(made)
				if w.repeated != nil {
					t.Errorf("%s with limit %d: event %v comes again on page %d; the cursor of the page before must continue after that page's last event: %s",
						windowText(window), limit, w.repeated, w.repeatedPage, pagesText(w))
					continue
				}
				switch {
				case len(got) < len(want) && !w.ended:
					t.Skip(fmt.Sprintf("the events created while the check sent its prompts (%s) fill more than %d pages of %d; the check's own events were not all reached", windowText(window), walkPages, limit))
				case len(got) < len(want):
					t.Errorf("%s with limit %d: the pages that follow next_cursor list %v of the check's events %v; a cursor that continues exactly after its page's last event skips none: %s",
						windowText(window), limit, got, want, pagesText(w))
				case limit == 1 && !slices.Equal(got, want):
					// Pages of one event cannot be out of order themselves: their order is the cursors'.
					t.Errorf("%s with limit 1: the pages that follow next_cursor list the check's events as %v; each page continuing after the one before lists them newest first, %v: %s",
						windowText(window), got, want, pagesText(w))
				}
			}
		}}
}

// pagesText shows a walk's pages in a failure: each page's event ids.
func pagesText(w *eventWalk) string {
	var pages []string
	for i, start := range w.pageStarts {
		end := len(w.events)
		if i+1 < len(w.pageStarts) {
			end = w.pageStarts[i+1]
		}
		pages = append(pages, fmt.Sprint(ids(w.events[start:end])))
	}
	const shown = 12
	if len(pages) > shown {
		pages = append(pages[:shown], fmt.Sprintf("… (%d pages)", len(w.pageStarts)))
	}
	return "pages " + strings.Join(pages, " ")
}

// endpointsOldestFirstCheck is extensions.webhook-endpoints.oldest-first.
func endpointsOldestFirstCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.oldest-first", Category: harness.CategoryExtensions, Extension: true,
		Covers: []string{"createWebhookEndpoint", "listWebhookEndpoints"},
		Doc:    "webhook endpoints are listed oldest first: three created one after another are listed in the order they were created",
		Rule:   harness.Rule{Pointer: opListEndpoints + "/description", Quote: "Every webhook endpoint of the merchant, oldest first"},
		Run: func(t *harness.T) {
			// Each create is sent once the one before was answered: they were created in this order.
			made := []string{t.IdleEndpoint(), t.IdleEndpoint(), t.IdleEndpoint()}
			list := api.OpListWebhookEndpoints()
			ex := t.Do(list.Method, list.URL(), nil)
			t.RequireStatus(ex, http.StatusOK)
			items, _ := ex.Get("/data").([]any)
			var got []string
			for _, it := range items {
				m, _ := it.(map[string]any)
				if id, _ := m["id"].(string); slices.Contains(made, id) {
					got = append(got, id)
				}
			}
			if !slices.Equal(got, made) {
				t.Errorf("the endpoints created one after another, %v, are listed as %v; oldest first lists them in the order they were created", made, got)
			}
		}}
}
