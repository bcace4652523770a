package checks

import (
	"fmt"
	"net/url"
	"slices"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/contracttests/links"
	"github.com/malipo/terraform-provider-malipo/internal/valuegen"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/report"
)

// Generated parameters: an operation without a request body (a read, a list, a delete) takes its
// input in its path and query, and those are generated too, one check per operation
// (`generated.<operationId>.parameters`): every path and query parameter at its boundaries, each enum
// value, a pattern's whole alphabet, date-times, optional ones absent and present, then random draws.
// An id drawn from a pattern names nothing on the target, so the answer need not be a success: it must
// be one the operation documents, valid against the document, and never a 5xx ("A `5xx` answer is the
// service's own failure").

// fiveXXQuote is the document's rule the generated parameters are judged by.
const fiveXXQuote = "A `5xx` answer is the service's own failure, never the verdict on a request: no request its schemas allow (its body, path and query parameters) causes one."

// generatedParameterChecks returns one check per operation without a JSON request body that has path
// or query parameters.
func generatedParameterChecks(spec *openapi.Spec) []*harness.Check {
	var checks []*harness.Check
	for _, op := range harness.APIOperations(spec) {
		if op.HasBody {
			continue // its body's checks send its path parameters too
		}
		g := &genTarget{bt: bodyTarget{op: op, extension: harness.IsExtensionIn(op)}, params: parameterFields(spec, op)}
		if len(g.params) == 0 {
			continue
		}
		g.fields = g.params
		checks = append(checks, &harness.Check{ID: "generated." + op.ID + ".parameters", Category: harness.CategoryGenerated, Covers: []string{op.ID},
			Extension: g.bt.extension, Rule: harness.Rule{Pointer: infoDescription, Quote: fiveXXQuote},
			Doc: op.ID + " answers generated path and query parameters its schemas allow with a documented status and a valid response, never a 5xx",
			Run: func(t *harness.T) { g.run(t, false) }})
	}
	return checks
}

// parameterFields reads an operation's path and query parameters (its own and its path's) as the
// generator's fields; their location is "query" or "path" (genField.in).
func parameterFields(spec *openapi.Spec, op *openapi.Operation) []*genField {
	params := openapi.OperationModel(op).Parameters
	if model := openapi.Model(spec); model.Paths != nil {
		if item, ok := model.Paths.PathItems.Get(op.Path); ok && item != nil {
			params = append(slices.Clone(item.Parameters), params...)
		}
	}
	var out []*genField
	for i, p := range params {
		if p == nil || (p.In != "path" && p.In != "query") || p.Schema == nil || p.Schema.Schema() == nil {
			continue
		}
		required := p.In == "path" || (p.Required != nil && *p.Required)
		f := &genField{Field: valuegen.FieldOf(p.Name, required, p.Schema, valuegen.Options{}), in: p.In,
			location: fmt.Sprintf("%s/parameters/%d/schema", operationLocation(op), i)}
		if p.Schema.IsReference() {
			f.location = p.Schema.GetReference()
		}
		out = append(out, f)
	}
	return out
}

// fillParameters makes the request path of a parameters case: path parameters escaped into the
// template, query parameters encoded; c.body keeps the values, for the report.
func (g *genTarget) fillParameters(c *genCase) {
	op := g.bt.op
	values := map[string]string{}
	query := url.Values{}
	for _, f := range g.params {
		v, ok := c.design.Values[f.Name]
		if !ok || (c.design.Absent[f.Name] && f.in != "path") {
			continue
		}
		text := links.ParamString(v.V)
		c.body[f.Name] = v.V
		if f.in == "path" {
			values[f.Name] = url.PathEscape(text)
		} else {
			query.Set(f.Name, text)
		}
	}
	c.path, _ = links.ExpandTemplate(op.Path, values)
	if len(query) > 0 {
		c.path += "?" + query.Encode()
	}
}

// judgeParameters sends a parameters case: the answer must be documented and valid, and no 5xx.
func (g *genTarget) judgeParameters(t *harness.T, c *genCase) (problems []problem, seq uint64) {
	var violations []report.Failure
	ex := t.Do(g.bt.op.Method, c.path, nil, harness.CollectViolations(&violations), harness.InDocumentTerms())
	for _, v := range violations {
		problems = append(problems, problem{"spec " + v.Pointer, v})
	}
	if ex.Status >= 500 {
		problems = append(problems, problem{"5xx", report.Failure{Message: fmt.Sprintf("answered %d to parameters the document allows: %s", ex.Status, harness.Snippet(ex.Body)),
			Exchange: ex.String(), SpecLocation: infoDescription}})
	}
	return problems, ex.Seq
}
