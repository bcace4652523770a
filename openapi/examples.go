package openapi

import (
	"encoding/json"
	"fmt"
	"strings"

	yaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"

	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

// Example is one example value of the document.
type Example struct {
	// Location is a JSON pointer to the example in the document.
	Location string
	// JSON is the example value encoded as JSON.
	JSON []byte
}

// schemaExample is an example with the schema it illustrates, which CheckExamples validates it against.
type schemaExample struct {
	Example
	schema *base.Schema
}

// Examples returns every example of the document: schema `examples`, media-type `example(s)`,
// parameter and header `example(s)`, each with where the document gives it. CheckExamples validates them.
func (s *Spec) Examples() ([]Example, error) {
	withSchemas, err := schemaExamples(s)
	out := make([]Example, len(withSchemas))
	for i, ex := range withSchemas {
		out[i] = ex.Example
	}
	return out, err
}

// schemaExamples is Examples, each with its schema. It is a function, not a method, because its result
// names a libopenapi schema (see libModel).
func schemaExamples(s *Spec) ([]schemaExample, error) {
	model := Model(s)
	w := exampleWalker{seen: map[*base.Schema]bool{}}
	if model.Components != nil {
		for name, proxy := range model.Components.Schemas.FromOldest() {
			w.schema(proxy, "#/components/schemas/"+docedit.Escape(name))
		}
		for name, p := range model.Components.Parameters.FromOldest() {
			w.parameter(p, "#/components/parameters/"+docedit.Escape(name))
		}
		for name, h := range model.Components.Headers.FromOldest() {
			w.header(h, "#/components/headers/"+docedit.Escape(name))
		}
	}
	for _, op := range append(s.Operations(), s.webhookOperations()...) {
		for _, p := range OperationModel(op).Parameters {
			w.parameter(p, op.location+"/parameters/"+docedit.Escape(p.Name))
		}
		if OperationModel(op).RequestBody != nil {
			w.content(OperationModel(op).RequestBody.Content, op.location+"/requestBody/content")
		}
		if OperationModel(op).Responses != nil {
			for code, resp := range OperationModel(op).Responses.Codes.FromOldest() {
				w.content(resp.Content, op.location+"/responses/"+code+"/content")
				for name, h := range resp.Headers.FromOldest() {
					w.header(h, op.location+"/responses/"+code+"/headers/"+docedit.Escape(name))
				}
			}
		}
	}
	for _, p := range pathLevelParameters(s) {
		w.parameter(p.param, p.location)
	}
	return w.out, w.err
}

// CheckExamples validates every example of the document against its own schema; a wrong example
// teaches readers and generators the wrong thing, so it is a defect of the document.
func (s *Spec) CheckExamples() (Violations, error) {
	examples, err := schemaExamples(s)
	if err != nil {
		return nil, err
	}
	validator := schema_validation.NewSchemaValidator()
	var out Violations
	for _, ex := range examples {
		if ok, errs := validator.ValidateSchemaBytesWithVersion(ex.schema, ex.JSON, 3.1); !ok {
			for _, e := range errs {
				if len(e.SchemaValidationErrors) == 0 {
					out = append(out, Violation{In: InBody, Message: firstNonEmpty(e.Reason, e.Message), SpecLocation: ex.Location})
				}
				for _, f := range e.SchemaValidationErrors {
					out = append(out, Violation{In: InBody, Pointer: pointerOf(f.InstancePath), Message: f.Reason, SpecLocation: ex.Location})
				}
			}
		}
	}
	return out, nil
}

type exampleWalker struct {
	seen map[*base.Schema]bool
	out  []schemaExample
	err  error
}

func (w *exampleWalker) add(loc string, schema *base.Schema, node *yaml.Node) {
	if node == nil || schema == nil || w.err != nil {
		return
	}
	var value any
	if err := node.Decode(&value); err != nil {
		w.err = fmt.Errorf("decode example at %s: %w", loc, err)
		return
	}
	data, err := json.Marshal(value)
	if err != nil {
		w.err = fmt.Errorf("encode example at %s as JSON: %w", loc, err)
		return
	}
	w.out = append(w.out, schemaExample{Example: Example{Location: loc, JSON: data}, schema: schema})
}

// schema records a schema's own examples and walks its subschemas; a referenced schema is walked once,
// under its own location.
func (w *exampleWalker) schema(proxy *base.SchemaProxy, loc string) {
	if proxy == nil {
		return
	}
	if proxy.IsReference() && !strings.HasPrefix(loc, "#/components/schemas/") {
		return // walked where it is declared
	}
	sch := proxy.Schema()
	if sch == nil || w.seen[sch] {
		return
	}
	w.seen[sch] = true
	for i, ex := range sch.Examples {
		w.add(fmt.Sprintf("%s/examples/%d", loc, i), sch, ex)
	}
	w.add(loc+"/example", sch, sch.Example)
	for name, p := range sch.Properties.FromOldest() {
		if !p.IsReference() {
			w.schema(p, loc+"/properties/"+docedit.Escape(name))
		}
	}
	for kw, list := range map[string][]*base.SchemaProxy{"allOf": sch.AllOf, "oneOf": sch.OneOf, "anyOf": sch.AnyOf} {
		for i, p := range list {
			if !p.IsReference() {
				w.schema(p, fmt.Sprintf("%s/%s/%d", loc, kw, i))
			}
		}
	}
	if sch.Items != nil && sch.Items.IsA() && !sch.Items.A.IsReference() {
		w.schema(sch.Items.A, loc+"/items")
	}
}

func (w *exampleWalker) content(content *orderedmap.Map[string, *v3.MediaType], loc string) {
	for mediaType, mt := range content.FromOldest() {
		if mt == nil || mt.Schema == nil {
			continue
		}
		mloc := loc + "/" + docedit.Escape(mediaType)
		w.schema(mt.Schema, mloc+"/schema")
		sch := mt.Schema.Schema()
		w.add(mloc+"/example", sch, mt.Example)
		for name, ex := range mt.Examples.FromOldest() {
			w.add(mloc+"/examples/"+docedit.Escape(name), sch, ex.Value)
		}
	}
}

func (w *exampleWalker) parameter(p *v3.Parameter, loc string) {
	if p == nil || p.Schema == nil {
		return
	}
	sch := p.Schema.Schema()
	w.add(loc+"/example", sch, p.Example)
	for name, ex := range p.Examples.FromOldest() {
		w.add(loc+"/examples/"+docedit.Escape(name), sch, ex.Value)
	}
}

func (w *exampleWalker) header(h *v3.Header, loc string) {
	if h == nil || h.Schema == nil {
		return
	}
	sch := h.Schema.Schema()
	w.add(loc+"/example", sch, h.Example)
	for name, ex := range h.Examples.FromOldest() {
		w.add(loc+"/examples/"+docedit.Escape(name), sch, ex.Value)
	}
}

func (s *Spec) webhookOperations() []*Operation {
	out := make([]*Operation, 0, len(s.webhooks))
	for _, t := range s.EventTypes() {
		out = append(out, s.webhooks[t])
	}
	return out
}

type locatedParameter struct {
	param    *v3.Parameter
	location string
}

func pathLevelParameters(s *Spec) []locatedParameter {
	var out []locatedParameter
	if Model(s).Paths == nil {
		return out
	}
	for path, item := range Model(s).Paths.PathItems.FromOldest() {
		for _, p := range item.Parameters {
			out = append(out, locatedParameter{p, "#/paths/" + docedit.Escape(path) + "/parameters/" + docedit.Escape(p.Name)})
		}
	}
	return out
}
