package checks

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/internal/valuegen"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// genTargets are the generated checks' request bodies of the embedded document.
func genTargets(t *testing.T) (*openapi.Spec, []*genTarget) {
	t.Helper()
	spec, err := openapi.Default()
	require.NoError(t, err)
	targets, err := bodyTargets(spec)
	require.NoError(t, err)
	tv, err := spec.TestValuesOrNone()
	require.NoError(t, err)
	var out []*genTarget
	for _, bt := range targets {
		out = append(out, &genTarget{bt: bt, fields: genFields(bt.schema, bt.location, tv)})
	}
	return spec, out
}

// asBody is a design as a body, with the document's example values for what the run fills in
// (reference data, receiver URLs), so that the document's validator can judge it alone.
func asBody(g *genTarget, d valuegen.Design) map[string]any {
	var example map[string]any
	_ = json.Unmarshal(g.bt.example, &example)
	body := map[string]any{}
	for _, f := range g.fields {
		if d.Absent[f.Name] && f.Name != d.Broken {
			continue
		}
		v, ok := d.Values[f.Name]
		switch {
		case f.role == roleRun && f.Name != d.Broken:
			if e, ok := example[f.Name]; ok {
				body[f.Name] = e
			} else if f.Name == "webhook_url" || f.Name == "url" {
				body[f.Name] = "https://merchant.example.org/hooks/malipo" + valuegen.HookQuery
			} else if f.Name == "endpoint_id" {
				body[f.Name] = "we_2b7c9d1e4f6a8b30"
			}
		case ok:
			body[f.Name] = v.V
		}
	}
	return body
}

// violationsOf validates body as g's request body with the document's validator.
func violationsOf(t *testing.T, spec *openapi.Spec, g *genTarget, body map[string]any) openapi.Violations {
	t.Helper()
	data, err := json.Marshal(body)
	require.NoError(t, err)
	ids := make([]string, len(pathParams(g.bt.op.Path)))
	for i := range ids {
		ids[i] = "x_1"
	}
	req, err := http.NewRequest(g.bt.op.Method, "http://sandbox.test"+urlOf(g.bt.op, ids...), bytes.NewReader(data))
	require.NoError(t, err)
	req.Header.Set("Content-Type", harness.JSONMediaType)
	for _, h := range []string{"public-key", "secret-key"} {
		req.Header.Set(h, "k")
	}
	return spec.ValidateRequest(req)
}

// The same seed draws the same bodies; another seed other ones; and every body a `.valid` check
// sends is one the document allows, so that a refusal of it is the target's fault, never the
// generator's, for many seeds.
func TestGeneratedBodiesAreValidAndReproducible(t *testing.T) {
	spec, targets := genTargets(t)
	require.NotEmpty(t, targets)
	for _, g := range targets {
		draw := func(seed uint64) []valuegen.Design {
			r := rand.New(rand.NewPCG(seed, 7))
			var out []valuegen.Design
			for i := range harness.DefaultGenerated * 2 {
				out = append(out, g.design(r, i))
			}
			return out
		}
		a, b, other := draw(1), draw(1), draw(2)
		assert.Equal(t, a, b, "%s: the same seed draws the same bodies", g.bt.op.ID)
		if len(g.fields) > 1 {
			assert.NotEqual(t, a, other, "%s: another seed draws other bodies", g.bt.op.ID)
		}
		for seed := range uint64(20) {
			for i, d := range draw(seed) {
				body := asBody(g, d)
				for _, v := range violationsOf(t, spec, g, body) {
					if v.In == "body" {
						t.Errorf("%s %s: generated body %d of seed %d breaks the document at %s: %s\n%s", g.bt.op.ID, g.bt.branch, i, seed, v.Pointer, v.Message, show(body))
					}
				}
			}
		}
	}
}

// Every body an `.invalid` check sends breaks the document at the property it says it breaks, and the
// document's own validator names that property. Its merchant reference, unless that is what it breaks,
// is long enough to be made the run's own (uniqueTail): a target that wrongly keeps the body must not
// keep it under a reference another check looks up.
func TestGeneratedInvalidBodiesBreakTheirProperty(t *testing.T) {
	spec, targets := genTargets(t)
	for _, g := range targets {
		for seed := range uint64(5) {
			r := rand.New(rand.NewPCG(seed, 9))
			for i, d := range g.invalidDesigns(r, harness.DefaultGenerated) {
				body := asBody(g, d)
				vs := violationsOf(t, spec, g, body)
				named := false
				for _, v := range vs {
					named = named || v.Pointer == "/"+d.Broken || bytes.HasPrefix([]byte(v.Pointer), []byte("/"+d.Broken+"/"))
				}
				assert.True(t, named, "%s %s: invalid body %d of seed %d (%s: %s) must break /%s; the validator says %v\n%s",
					g.bt.op.ID, g.bt.branch, i, seed, d.Broken, d.Values[d.Broken].Label, d.Broken, vs, show(body))
				for _, f := range g.fields {
					if ref, ok := body[f.Name].(string); ok && f.role == roleUnique && f.Name != d.Broken {
						assert.NotEqual(t, ref, uniqueTail(f, ref), "%s %s: invalid body %d of seed %d: its reference %q cannot be made the run's own",
							g.bt.op.ID, g.bt.branch, i, seed, ref)
					}
				}
			}
		}
	}
}

// The parameters checks draw, for every operation without a body, requests whose path and query the
// document allows (its own validator finds nothing), and over their boundary cases send every
// parameter at least once.
func TestGeneratedParametersAreValidAndCoverEveryParameter(t *testing.T) {
	spec, err := openapi.Default()
	require.NoError(t, err)
	checks := generatedParameterChecks(spec)
	require.NotEmpty(t, checks)
	for _, op := range harness.APIOperations(spec) {
		if op.HasBody {
			continue
		}
		g := &genTarget{bt: bodyTarget{op: op}, params: parameterFields(spec, op)}
		g.fields = g.params
		if len(g.params) == 0 {
			continue
		}
		sent := map[string]bool{}
		for seed := range uint64(10) {
			r := rand.New(rand.NewPCG(seed, 3))
			for i := range harness.DefaultGenerated {
				c := &genCase{design: g.design(r, i), body: map[string]any{}}
				g.fillParameters(c)
				for name := range c.body {
					sent[name] = true
				}
				req, err := http.NewRequest(op.Method, "http://sandbox.test"+c.path, nil)
				require.NoError(t, err)
				for _, h := range []string{"public-key", "secret-key"} {
					req.Header.Set(h, "k")
				}
				for _, v := range spec.ValidateRequest(req) {
					if v.In == "query" || v.In == "path" {
						t.Errorf("%s: generated request %d of seed %d breaks the document at %s %s: %s (%s)", op.ID, i, seed, v.In, v.Pointer, v.Message, c.path)
					}
				}
			}
		}
		for _, f := range g.params {
			assert.True(t, sent[f.Name], "%s: the parameter %s is never sent", op.ID, f.Name)
		}
	}
}
