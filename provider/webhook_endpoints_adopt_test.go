package provider

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// adoptExample is the documented bulk-adoption configuration (rendered into the docs of
// malipo_webhook_endpoint and the adoption guide): the test runs that file, not a copy of it.
const adoptExample = "../examples/guides/adopt-all-webhook-endpoints.tf"

// adoptedAddr is the address the example gives the endpoint with this id.
func adoptedAddr(id string) string { return fmt.Sprintf("malipo_webhook_endpoint.adopted[%q]", id) }

// The documented example adopts every existing endpoint in one apply with terraform 1.11.4: the plan
// imports each endpoint by its id and changes nothing, the state then holds one instance per endpoint
// (its settings, no secret), the service is untouched, and the next plan is empty.
func TestAccWebhookEndpoints_adoptAllWithImportBlocks(t *testing.T) {
	example, err := os.ReadFile(adoptExample)
	require.NoError(t, err)

	sb := startSandbox(t)
	// What a merchant set up before Terraform: settings of every kind, and two endpoints with the same
	// URL (which is why the example keys instances by id).
	existing := createEndpoints(t, sb,
		client.WebhookEndpointCreateRequest{URL: "https://payments.example.org/hooks/payouts",
			Events:      []client.EventType{api.EventTypePayoutSuccess, api.EventTypePayoutFailed},
			Description: ptr("Finance team payout notifications")},
		client.WebhookEndpointCreateRequest{URL: "https://payments.example.org/hooks/payments",
			Events: []client.EventType{api.EventTypePaymentSuccess, api.EventTypePaymentFailed}, Enabled: ptr(false)},
		client.WebhookEndpointCreateRequest{URL: "https://ops.example.org/hooks/all", Events: api.EventTypeValues()},
		client.WebhookEndpointCreateRequest{URL: "https://audit.example.org/hooks",
			Events: []client.EventType{api.EventTypePayoutFailed}, Description: ptr("Audit trail")},
		client.WebhookEndpointCreateRequest{URL: "https://audit.example.org/hooks",
			Events: []client.EventType{api.EventTypePaymentFailed}},
	)
	want := make(map[string]string, len(existing)) // address → id
	var stateChecks []statecheck.StateCheck
	for _, e := range existing {
		addr := adoptedAddr(e.ID)
		want[addr] = e.ID
		for attr, check := range endpointAttrChecks(e) {
			stateChecks = append(stateChecks, statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), check))
		}
		// Imported, the secret is unknown to Terraform; nothing rotated it.
		stateChecks = append(stateChecks,
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("secret"), knownvalue.Null()),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("secret_rotation"), knownvalue.Null()),
		)
	}
	stateChecks = append(stateChecks, expectInstances("malipo_webhook_endpoint", "adopted", want))

	config := sb.providerConfig() + string(example)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{expectImportsOnly("malipo_webhook_endpoint", want)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: stateChecks,
			},
			{
				// The second plan of the same configuration: nothing to import, nothing to change.
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					expectInstances("malipo_webhook_endpoint", "adopted", want),
					// Adoption changed nothing at the service: the same endpoints with the same
					// settings, none updated (updated_at as before) and none added.
					checkService(func() error {
						now, err := sb.client(t).ListWebhookEndpoints(context.Background())
						if err != nil {
							return err
						}
						if !slices.EqualFunc(now, existing, endpointsEqual) {
							return fmt.Errorf("the service's endpoints changed during adoption:\nbefore %+v\nafter  %+v", existing, now)
						}
						return nil
					}),
				},
			},
			{
				// Adopted endpoints are managed: without the configuration they are destroyed. This
				// step also leaves an empty state, which the harness needs: its end-of-test destroy
				// reads the state through a legacy shim that cannot represent for_each instances.
				Config: sb.providerConfig(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: expectDestroys(want),
				},
				ConfigStateChecks: []statecheck.StateCheck{
					checkService(func() error {
						left, err := sb.client(t).ListWebhookEndpoints(context.Background())
						if err != nil {
							return err
						}
						if len(left) != 0 {
							return fmt.Errorf("%d endpoints are left after destroying the adopted ones: %+v", len(left), left)
						}
						return nil
					}),
				},
			},
		},
	})
}

// expectDestroys are plan checks: each address of want is destroyed.
func expectDestroys(want map[string]string) []plancheck.PlanCheck {
	checks := make([]plancheck.PlanCheck, 0, len(want))
	for addr := range want {
		checks = append(checks, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroy))
	}
	return checks
}

// checkService is a state check that looks at the service instead of the state.
type checkService func() error

func (f checkService) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f()
}

// endpointAttrChecks are the values the resource must hold for endpoint e, by attribute: its settings
// exactly as the API has them.
func endpointAttrChecks(e client.WebhookEndpoint) map[string]knownvalue.Check {
	events := make([]knownvalue.Check, len(e.Events))
	for i, ev := range e.Events {
		events[i] = knownvalue.StringExact(string(ev))
	}
	var description knownvalue.Check = knownvalue.Null()
	if e.Description != nil {
		description = knownvalue.StringExact(*e.Description)
	}
	return map[string]knownvalue.Check{
		"id":          knownvalue.StringExact(e.ID),
		"url":         knownvalue.StringExact(e.URL),
		"events":      knownvalue.SetExact(events),
		"description": description,
		"enabled":     knownvalue.Bool(e.Enabled),
		"created_at":  knownvalue.StringExact(e.CreatedAt.UTC().Format(time.RFC3339)),
	}
}

// endpointsEqual compares two listings of one endpoint, timestamps by instant.
func endpointsEqual(a, b client.WebhookEndpoint) bool {
	return a.ID == b.ID && a.URL == b.URL && slices.Equal(a.Events, b.Events) &&
		ptrEqual(a.Description, b.Description) && a.Enabled == b.Enabled &&
		a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt)
}

func ptrEqual[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// expectImportsOnly is a plan check: the plan's changes of resources of type typ are exactly the
// imports of want (address → id), each of them importing that id and changing nothing.
func expectImportsOnly(typ string, want map[string]string) plancheck.PlanCheck {
	return importsOnly{typ: typ, want: want}
}

type importsOnly struct {
	typ  string
	want map[string]string
}

func (c importsOnly) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var problems []string
	seen := map[string]bool{}
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Type != c.typ || rc.Mode != "managed" {
			continue
		}
		seen[rc.Address] = true
		id, ok := c.want[rc.Address]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s is planned (%v) but adopts no existing endpoint", rc.Address, rc.Change.Actions))
		case rc.Change.Importing == nil:
			problems = append(problems, fmt.Sprintf("%s is not imported", rc.Address))
		case rc.Change.Importing.ID != id:
			problems = append(problems, fmt.Sprintf("%s imports %q, want %q", rc.Address, rc.Change.Importing.ID, id))
		case !rc.Change.Actions.NoOp():
			problems = append(problems, fmt.Sprintf("%s is imported with changes %v; an adoption must change nothing", rc.Address, rc.Change.Actions))
		}
	}
	for addr := range c.want {
		if !seen[addr] {
			problems = append(problems, addr+" is not in the plan")
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		resp.Error = fmt.Errorf("the plan does not import exactly the existing endpoints:\n%s", strings.Join(problems, "\n"))
	}
}

// expectInstances is a state check: resource typ.name has exactly the instances of want (address →
// id), each with that id.
func expectInstances(typ, name string, want map[string]string) statecheck.StateCheck {
	return instances{typ: typ, name: name, want: want}
}

type instances struct {
	typ, name string
	want      map[string]string
}

func (c instances) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("the state is empty")
		return
	}
	got := map[string]string{}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Mode == "managed" && r.Type == c.typ && r.Name == c.name {
			id, _ := r.AttributeValues["id"].(string)
			got[r.Address] = id
		}
	}
	if len(got) != len(c.want) {
		resp.Error = fmt.Errorf("%s.%s has %d instances, want one per existing endpoint (%d): %v", c.typ, c.name, len(got), len(c.want), got)
		return
	}
	for addr, id := range c.want {
		if got[addr] != id {
			resp.Error = fmt.Errorf("%s holds id %q, want %q (instances: %v)", addr, got[addr], id, got)
			return
		}
	}
}
