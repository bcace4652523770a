package receivertests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

func testGrader(t *testing.T, seed uint64) *grader {
	t.Helper()
	spec, err := openapi.Default()
	require.NoError(t, err)
	g, err := newGrader(Config{Spec: spec, Seed: seed})
	require.NoError(t, err)
	return g
}

// bodies is every generated body of type t, as JSON.
func bodies(t *testing.T, g *grader, et string) []string {
	t.Helper()
	vs, err := g.variants(et)
	require.NoError(t, err)
	out := make([]string, len(vs))
	for i, v := range vs {
		b, err := json.Marshal(v.event)
		require.NoError(t, err)
		out[i] = string(b)
	}
	return out
}

// The same seed sends the same bodies; another seed other drawn bodies. Selecting fewer event types
// changes no type's bodies.
func TestGeneratedPayloadsAreReproducible(t *testing.T) {
	for _, et := range api.EventTypeValues() {
		a, b, c := bodies(t, testGrader(t, 42), string(et)), bodies(t, testGrader(t, 42), string(et)), bodies(t, testGrader(t, 43), string(et))
		assert.Equal(t, a, b, "%s: seed 42 twice", et)
		assert.NotEqual(t, a, c, "%s: seeds 42 and 43", et)
		// The enum values and optional fields come first; the undeclared fields, the bounds (whose
		// characters are drawn) and the drawn bodies last.
		assert.Equal(t, a[:len(a)-randomVariants-3], c[:len(c)-randomVariants-3], "%s: only the drawn values depend on the seed", et)
	}
	spec, err := openapi.Default()
	require.NoError(t, err)
	one, err := newGrader(Config{Spec: spec, Seed: 42, EventTypes: []string{"payout.failed"}})
	require.NoError(t, err)
	assert.Equal(t, bodies(t, testGrader(t, 42), "payout.failed"), bodies(t, one, "payout.failed"))
}

// The generated bodies of each event type reach every enum value the document gives its fields
// (read here from the generated api package, not from the walk under test), every optional field
// both absent and present, and undeclared fields, which the document allows; and every one of them,
// drawn ones included, is valid against the document, for many seeds.
func TestGeneratedPayloadsCoverTheSchema(t *testing.T) {
	for _, et := range api.EventTypeValues() {
		t.Run(string(et), func(t *testing.T) {
			g := testGrader(t, 7)
			all := strings.Join(bodies(t, g, string(et)), "\n")
			if strings.HasSuffix(string(et), ".failed") {
				for _, r := range api.FailureReasonValues() {
					assert.Contains(t, all, fmt.Sprintf(`"failure_reason":%q`, r))
				}
			}
			if strings.HasPrefix(string(et), "payout.") {
				for _, tt := range api.TransferToValues() {
					assert.Contains(t, all, fmt.Sprintf(`"transfer_to":%q`, tt))
				}
			}
			assert.Contains(t, all, generatedFieldName, "the document allows undeclared fields in events")
			// The generators reach every field they know, at its bounds and in between.
			refs, texts, amounts := map[any]bool{}, map[int]bool{}, map[any]bool{}
			for _, b := range bodies(t, g, string(et)) {
				var ev map[string]any
				require.NoError(t, json.Unmarshal([]byte(b), &ev))
				obj, _ := get(ev, []string{"data", "object"})
				m, _ := obj.(map[string]any)
				refs[m["reference"]] = true
				amounts[m["amount"]] = true
				if n, ok := m["narration"].(string); ok {
					texts[utf8.RuneCountInString(n)] = true
				}
			}
			assert.GreaterOrEqual(t, len(refs), 4, "references drawn from the pattern's alphabet: %v", refs)
			assert.GreaterOrEqual(t, len(amounts), 4, "amounts at the bounds and drawn: %v", amounts)
			assert.True(t, texts[1] && texts[255], "a narration of 1 and one of 255 characters: %v", texts)
			vs, err := g.variants(string(et))
			require.NoError(t, err)
			for _, f := range g.fields[string(et)] {
				if f.Object || f.Required {
					continue
				}
				absent, present := false, false
				for _, v := range vs {
					_, ok := get(v.event, f.Path)
					absent, present = absent || !ok, present || ok
				}
				assert.True(t, absent && present, "%s: optional %s absent in some body and present in another", et, f.PathName())
			}
			secret, err := webhook.NewSecret()
			require.NoError(t, err)
			for seed := uint64(1); seed <= 20; seed++ {
				g := testGrader(t, seed)
				for _, b := range bodies(t, g, string(et)) {
					d := newRawDelivery(string(et), newEventID(), []byte(b), time.Now(), secret)
					assert.Empty(t, g.spec.ValidateWebhook(string(et), d.header, d.body), "seed %d: %s", seed, b)
				}
			}
		})
	}
}
