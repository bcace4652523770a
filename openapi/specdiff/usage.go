package specdiff

import (
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// side is one side of a message: who the audience is, and whether the audience produces the message
// (a client's request, a receiver's answer) or consumes it (a response, a delivery). The same change
// breaks a consumer and not a producer, or the other way round: a new enum value is one more value a
// producer may send and one more a consumer must understand.
type side struct {
	audience Audience
	produces bool
	// who and part word the side in reasons: "clients", "a request".
	who, part string
}

var (
	requestSide       = side{Clients, true, "clients", "requests"}
	responseSide      = side{Clients, false, "clients", "responses"}
	webhookSide       = side{Receivers, false, "receivers", "webhook deliveries"}
	webhookAnswerSide = side{Receivers, true, "receivers", "answers to deliveries"}
)

// usage records, for each component schema, the sides of the messages it is part of, directly or
// through other schemas. libopenapi reports a change to a component schema once, where it is declared
// (`components.schemas.PayoutStatus`), so whom it breaks depends on where it is used: PayoutStatus is
// in responses and in webhook payloads, PayoutAmount in requests, responses and payloads.
type usage map[string]map[side]bool

// schemaUsage finds the sides of every component schema that the documents' operations and webhooks
// use. Both documents count: a schema a change stops using was still used by the clients of the old one.
func schemaUsage(docs ...*v3.Document) usage {
	u := usage{}
	for _, d := range docs {
		if d.Paths != nil {
			for _, item := range d.Paths.PathItems.FromOldest() {
				u.pathItem(item, requestSide, responseSide)
			}
		}
		for _, item := range d.Webhooks.FromOldest() {
			u.pathItem(item, webhookSide, webhookAnswerSide)
		}
	}
	return u
}

// sides returns the sides a component schema is used on, in a stable order.
func (u usage) sides(name string) []side {
	var out []side
	for _, s := range []side{requestSide, responseSide, webhookSide, webhookAnswerSide} {
		if u[name][s] {
			out = append(out, s)
		}
	}
	return out
}

func (u usage) pathItem(item *v3.PathItem, in, out side) {
	if item == nil {
		return
	}
	u.parameters(item.Parameters, in)
	for _, op := range item.GetOperations().FromOldest() {
		u.parameters(op.Parameters, in)
		if op.RequestBody != nil {
			u.content(op.RequestBody.Content, in)
		}
		if op.Responses == nil {
			continue
		}
		responses := []*v3.Response{op.Responses.Default}
		for _, r := range op.Responses.Codes.FromOldest() {
			responses = append(responses, r)
		}
		for _, r := range responses {
			if r == nil {
				continue
			}
			u.content(r.Content, out)
			for _, h := range r.Headers.FromOldest() {
				if h != nil {
					u.schema(h.Schema, out)
					u.content(h.Content, out)
				}
			}
		}
	}
}

func (u usage) parameters(params []*v3.Parameter, s side) {
	for _, p := range params {
		if p != nil {
			u.schema(p.Schema, s)
			u.content(p.Content, s)
		}
	}
}

func (u usage) content(content *orderedmap.Map[string, *v3.MediaType], s side) {
	for _, mt := range content.FromOldest() {
		if mt != nil {
			u.schema(mt.Schema, s)
		}
	}
}

// schema marks the component schemas proxy leads to on side s, following references and subschemas.
func (u usage) schema(proxy *base.SchemaProxy, s side) {
	if proxy == nil {
		return
	}
	if proxy.IsReference() {
		name, ok := strings.CutPrefix(proxy.GetReference(), "#/components/schemas/")
		if !ok {
			return
		}
		if u[name][s] {
			return // seen on this side already (and the guard against reference cycles)
		}
		if u[name] == nil {
			u[name] = map[side]bool{}
		}
		u[name][s] = true
	}
	sch := proxy.Schema()
	if sch == nil {
		return
	}
	for _, p := range sch.Properties.FromOldest() {
		u.schema(p, s)
	}
	for _, list := range [][]*base.SchemaProxy{sch.AllOf, sch.OneOf, sch.AnyOf, sch.PrefixItems} {
		for _, p := range list {
			u.schema(p, s)
		}
	}
	for _, p := range []*base.SchemaProxy{sch.Not, sch.If, sch.Then, sch.Else, sch.Contains, sch.PropertyNames, sch.UnevaluatedItems} {
		u.schema(p, s)
	}
	for _, m := range []*orderedmap.Map[string, *base.SchemaProxy]{sch.PatternProperties, sch.DependentSchemas} {
		for _, p := range m.FromOldest() {
			u.schema(p, s)
		}
	}
	for _, dyn := range []*base.DynamicValue[*base.SchemaProxy, bool]{sch.Items, sch.AdditionalProperties, sch.UnevaluatedProperties} {
		if dyn != nil && dyn.IsA() {
			u.schema(dyn.A, s)
		}
	}
}
