package checks

import (
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The bounds on lists: a list the document does not page is bounded by a cap on what a merchant may
// hold, and a create past the cap is refused. Each list's maxItems itself is checked on every
// exchange (response validation); what is checked here is the behaviour the cap's words promise.

// endpointLimit is the pointer to the cap on a merchant's webhook endpoints: the list's maxItems.
const endpointLimit = "#/components/schemas/WebhookEndpointListResponse/properties/data/maxItems"

// listChecks are the checks of the documented caps.
func listChecks() []*harness.Check { return []*harness.Check{endpointLimitCheck()} }

// endpointLimitCheck is extensions.webhook-endpoints.limit. It fills the merchant's endpoints up to the
// cap (disabled, so that they receive nothing), so it is a final check: it runs once the other checks,
// which create endpoints of their own, have ended and deleted them.
func endpointLimitCheck() *harness.Check {
	return &harness.Check{ID: "extensions.webhook-endpoints.limit", Category: harness.CategoryExtensions, Extension: true, Final: true,
		Covers: []string{"createWebhookEndpoint", "listWebhookEndpoints", "deleteWebhookEndpoint"},
		Doc:    "a merchant can have as many webhook endpoints as the list's maxItems; one more is refused with 409 limit_reached and creates nothing",
		Rule: harness.Rule{Pointer: opCreateEndpoint + "/description",
			Quote: "A create when the merchant already has 100 is refused with `409` (code 4003, `limit_reached`) and creates nothing: delete an endpoint first. Every implementation accepts the 100; none refuses earlier."},
		Run: func(t *harness.T) {
			limit, err := t.Spec().Bound(endpointLimit)
			if err != nil {
				t.Skip("the document states no cap on webhook endpoints (" + err.Error() + ")")
				return
			}
			list := api.OpListWebhookEndpoints()
			count := func() int {
				ex := t.Do(list.Method, list.URL(), nil)
				t.RequireStatus(ex, http.StatusOK)
				items, _ := ex.Get("/data").([]any)
				return len(items)
			}
			had := count()
			if had > limit {
				t.Fatalf("the merchant has %d webhook endpoints, more than the %d the document allows (%s)", had, limit, endpointLimit)
			}
			_, hook := t.Hook()
			body := t.EndpointBody(hook, api.EventTypePayoutSuccess)
			body["enabled"] = false
			create, remove := api.OpCreateWebhookEndpoint(), api.OpDeleteWebhookEndpoint()
			// The endpoints up to the cap are independent of one another: created endpointFill at a
			// time, and deleted so at the end, they cost a few round trips of a distant target each,
			// not a hundred.
			var mu sync.Mutex
			var made []string
			keep := func(ex *harness.Exchange) {
				if id := ex.Str("/data/id"); ex.Status == http.StatusCreated && id != "" {
					mu.Lock()
					made = append(made, id)
					mu.Unlock()
				}
			}
			t.Cleanup(func() {
				inParallel(len(made), endpointFill, func(i int) { t.Do(remove.Method, remove.URL(made[i]), nil) })
			})
			inParallel(limit-had, endpointFill, func(i int) {
				ex := t.Do(create.Method, create.URL(), body)
				keep(ex)
				if ex.Status != http.StatusCreated {
					t.Errorf("creating endpoint %d of the %d the document allows a merchant answered %d, not 201: %s", had+i+1, limit, ex.Status, harness.Snippet(ex.Body))
				}
			})
			if t.Failed() {
				return
			}
			over := t.Do(create.Method, create.URL(), body)
			keep(over)
			t.ExpectError(over, api.CodeLimitReached)
			if n := count(); n != limit {
				t.Errorf("after the refused create the merchant has %d webhook endpoints, want %d: a refused create creates nothing", n, limit)
			}
		}}
}

// endpointFill is how many of the endpoints up to the cap the limit check creates (and deletes) at once.
const endpointFill = 8

// inParallel calls f(0) to f(n-1), at most width at a time, and returns when every call has.
func inParallel(n, width int, f func(i int)) {
	slots := make(chan struct{}, width)
	var wg sync.WaitGroup
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			f(i)
		})
	}
	wg.Wait()
}

// onlyPathValue is the value path gives template's one parameter (`/v1/webhooks/{id}/rotate-secret`,
// `/v1/webhooks/we_1/rotate-secret`: `we_1`), or "" when the template has another number of them or
// the path does not fit it.
func onlyPathValue(template, path string) string {
	ts, ps := strings.Split(template, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) || len(pathParams(template)) != 1 {
		return ""
	}
	for i, seg := range ts {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			v, err := url.PathUnescape(ps[i])
			if err != nil {
				return ""
			}
			return v
		}
	}
	return ""
}
