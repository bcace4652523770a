package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// addedEventType is a type a later version of the service adds, which this provider does not know.
const addedEventType = "payout.reversed"

// newerService makes the sandbox answer as a later version of the service that has an event type
// more: an endpoint subscribed to it keeps it (the sandbox, which does not know it, never sees it) and
// every answer about the endpoint lists it. The document allows exactly this: event types are added
// without a new version, and `malipo spec diff` classifies an added type as breaking no client.
type newerService struct {
	mu   sync.Mutex
	subs map[string]bool // endpoint ids subscribed to addedEventType
}

func (n *newerService) middleware(_ *sandbox.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		endpoints := strings.HasPrefix(r.URL.Path, api.OpListWebhookEndpoints().Path)
		asked := false // the request subscribes the endpoint to addedEventType
		named := false // the request says which types the endpoint gets
		if endpoints && r.Body != nil && (r.Method == http.MethodPost || r.Method == http.MethodPatch) {
			var body map[string]any
			raw := new(bytes.Buffer)
			_, _ = raw.ReadFrom(r.Body)
			if json.Unmarshal(raw.Bytes(), &body) == nil {
				if events, ok := body["events"].([]any); ok {
					named = true
					asked = slices.Contains(events, any(addedEventType))
					body["events"] = slices.DeleteFunc(events, func(e any) bool { return e == addedEventType })
					b, _ := json.Marshal(body)
					raw = bytes.NewBuffer(b)
				}
			}
			r.Body = http.NoBody
			if raw.Len() > 0 {
				r.Body = io.NopCloser(raw)
				r.ContentLength = int64(raw.Len())
				r.Header.Set("Content-Length", strconv.Itoa(raw.Len()))
			}
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		out := rec.Body.Bytes()
		if endpoints && rec.Code < 300 {
			var env map[string]any
			if json.Unmarshal(out, &env) == nil {
				n.rewrite(env["data"], named, asked)
				out, _ = json.Marshal(env)
			}
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(out)
	})
}

// rewrite records what a create or update asked for, and lists addedEventType in every endpoint of
// data subscribed to it.
func (n *newerService) rewrite(data any, named, asked bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	list, ok := data.([]any)
	if !ok {
		list = []any{data}
	}
	for _, item := range list {
		e, ok := item.(map[string]any)
		if !ok {
			continue
		}
		id, _ := e["id"].(string)
		if named {
			n.subs[id] = asked
		}
		if events, ok := e["events"].([]any); ok && n.subs[id] {
			e["events"] = append(events, addedEventType)
		}
	}
}

// An endpoint another tool subscribed to a type the provider does not know (the service added it)
// imports with that type, plans empty with it in the configuration (a warning, not an error), and
// takes a change of another attribute, which sends no events.
func TestAccWebhookEndpointResource_eventTypeAddedLater(t *testing.T) {
	newer := &newerService{subs: map[string]bool{}}
	sb := startSandbox(t, sandbox.WithHooks(sandbox.Hooks{Middleware: newer.middleware}))
	id := createThroughAnotherTool(t, sb, `{"url":"https://merchant.example.org/hooks/reversals","events":["payout.success","`+addedEventType+`"]}`)
	config := func(description string) string {
		return sb.providerConfig() + `
resource "malipo_webhook_endpoint" "test" {
  url         = "https://merchant.example.org/hooks/reversals"
  events      = ["payout.success", "` + addedEventType + `"]
  description = "` + description + `"
}`
	}
	events := knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("payout.success"), knownvalue.StringExact(addedEventType)})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			{
				Config:             config("reversals"),
				ResourceName:       endpointAddr,
				ImportState:        true,
				ImportStateId:      id,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					got := states[0].Attributes
					if got["events.#"] != "2" || !slices.Contains([]string{got["events.0"], got["events.1"]}, addedEventType) {
						return fmt.Errorf("the imported endpoint's events are %v, want payout.success and %s", got, addedEventType)
					}
					return nil
				},
			},
			{
				Config: config("reversals"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("events"), events)},
			},
			{
				Config: config("reversals, renamed"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("events"), events),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("description"), knownvalue.StringExact("reversals, renamed")),
				},
			},
		},
	})
}

// createThroughAnotherTool creates a webhook endpoint with a plain request, as a tool built from a later
// version of the document would, and returns its id.
func createThroughAnotherTool(t *testing.T, sb *testSandbox, body string) string {
	t.Helper()
	req, err := http.NewRequest(api.OpCreateWebhookEndpoint().Method, sb.url+api.OpCreateWebhookEndpoint().URL(), strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderPublicKey, sandbox.DefaultPublicKey)
	req.Header.Set(api.HeaderSecretKey, sandbox.DefaultSecretKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	var env struct {
		Data struct {
			ID     string   `json:"id"`
			Events []string `json:"events"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Contains(t, env.Data.Events, addedEventType, "the newer service lists the type it added")
	return env.Data.ID
}
