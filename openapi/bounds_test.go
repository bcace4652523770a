package openapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// The document's bounds on lists depend on one another (docs/contract.md, "Bounds on every list and string"); these
// tests hold them together, so that raising one cap without the others fails here rather than in a
// client that validates responses.

func bound(t *testing.T, spec *openapi.Spec, pointer string) int {
	t.Helper()
	n, err := spec.Bound(pointer)
	require.NoError(t, err)
	return n
}

func TestListBoundsAgree(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	const schemas = "#/components/schemas/"

	// What a client subscribes to is each declared type at most once: the enum's size, which a new
	// type raises with it. What a response reports leaves room for types added later.
	declared := len(api.EventTypeValues())
	for _, req := range []string{"WebhookEndpointCreateRequest", "WebhookEndpointUpdateRequest"} {
		assert.Equal(t, declared, bound(t, spec, schemas+req+"/properties/events/maxItems"), "%s.events: one of each declared type", req)
		assert.Equal(t, "true", text(t, spec, schemas+req+"/properties/events/uniqueItems"), "%s.events", req)
	}
	for _, resp := range []string{"WebhookEndpoint", "WebhookEndpointWithSecret"} {
		assert.Greater(t, bound(t, spec, schemas+resp+"/properties/events/maxItems"), declared, "%s.events leaves room for types added later", resp)
	}

	// A resend goes to the object's own webhook_url and to endpoints, of which a merchant has at most
	// the list's maxItems.
	endpoints := bound(t, spec, schemas+"WebhookEndpointListResponse/properties/data/maxItems")
	assert.Equal(t, endpoints+1, bound(t, spec, schemas+"EventResend/properties/deliveries/maxItems"))

	// A page holds at most what limit may ask for.
	op, ok := spec.Operation(api.OpListEvents().ID)
	require.True(t, ok)
	limitMax, ok := op.ParameterMaximum("limit")
	require.True(t, ok)
	assert.Equal(t, int(limitMax), bound(t, spec, schemas+"EventPage/properties/items/maxItems"))
}

func text(t *testing.T, spec *openapi.Spec, pointer string) string {
	t.Helper()
	s, err := spec.Text(pointer)
	require.NoError(t, err)
	return s
}

func TestBoundRefusesWhatIsNotACount(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	_, err = spec.Bound("#/components/schemas/ErrorCode/description")
	assert.ErrorContains(t, err, "not a non-negative integer")
	_, err = spec.Bound("#/components/schemas/NoSuchSchema/maxItems")
	assert.Error(t, err)
}
