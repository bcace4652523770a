package contracttests

import (
	"strconv"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// Which members an object has, by its schema: what a generated body's values are compared with in a
// response's data, a read-back's, and an event's object.

// responseDataMembers returns the members the schema of op's response with status gives its `data`.
func responseDataMembers(op *openapi.Operation, status int) map[string]bool {
	model := openapi.OperationModel(op)
	if model == nil || model.Responses == nil || model.Responses.Codes == nil {
		return nil
	}
	resp, ok := model.Responses.Codes.Get(strconv.Itoa(status))
	if !ok || resp == nil || resp.Content == nil {
		return nil
	}
	mt, ok := resp.Content.Get(jsonMediaType)
	if !ok || mt == nil || mt.Schema == nil {
		return nil
	}
	return membersAt(mt.Schema.Schema(), "data")
}

// eventObjectMembers returns the members the webhook of event type typ gives its `data.object`.
func eventObjectMembers(spec *openapi.Spec, typ string) map[string]bool {
	op, ok := spec.Webhook(typ)
	if !ok {
		return nil
	}
	sch, err := requestBodySchema(op, "")
	if err != nil {
		return nil
	}
	return membersAt(sch, "data", "object")
}

// membersAt follows the property names path from sch (through allOf, oneOf and anyOf) and returns
// the property names of the schemas found there.
func membersAt(sch *base.Schema, path ...string) map[string]bool {
	schemas := []*base.Schema{sch}
	for _, name := range path {
		var next []*base.Schema
		for _, s := range expand(schemas) {
			if s.Properties == nil {
				continue
			}
			if p := s.Properties.GetOrZero(name); p != nil && p.Schema() != nil {
				next = append(next, p.Schema())
			}
		}
		schemas = next
	}
	out := map[string]bool{}
	for _, s := range expand(schemas) {
		if s.Properties == nil {
			continue
		}
		for name := range s.Properties.KeysFromOldest() {
			out[name] = true
		}
	}
	return out
}

// expand returns the schemas and every schema their allOf, oneOf and anyOf name, to a small depth.
func expand(schemas []*base.Schema) []*base.Schema {
	var out []*base.Schema
	var walk func(s *base.Schema, depth int)
	walk = func(s *base.Schema, depth int) {
		if s == nil || depth > 4 {
			return
		}
		out = append(out, s)
		for _, group := range [][]*base.SchemaProxy{s.AllOf, s.OneOf, s.AnyOf} {
			for _, p := range group {
				walk(p.Schema(), depth+1)
			}
		}
	}
	for _, s := range schemas {
		walk(s, 0)
	}
	return out
}
