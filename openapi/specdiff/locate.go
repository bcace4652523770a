package specdiff

import (
	"strings"
)

// place is where a change sits in the documents, read from its path in libopenapi's report.
type place struct {
	// where is the operation, webhook or component ("POST /v1/payment/init", "webhook payout.failed",
	// "schema Payout", "document").
	where string
	// parts are the parts of it, outermost first ("request body", "parameter Idempotency-Key",
	// "response 201", "header webhook-signature", "example withPhone").
	parts []string
	// field is the member of a schema the change is in, as a JSON pointer into the message
	// ("/data/object/status"; "/events/[]" for array items); "" at a schema's root.
	field string
	// node is the kind of thing the change is a property of: document, paths, pathItem, operation,
	// parameter, requestBody, mediaType, responses, response, header, schema, discriminator, example,
	// extensions, securityScheme, securityRequirement, components, documentation, other.
	node string
	// in and out are the sides of the messages at this place: requests and responses of a path, the
	// payload and the receiver's answer of a webhook. side is the one the change is on, when known
	// (nil for a component schema, whose sides come from where it is used).
	in, out *side
	side    *side
	// schema is the component schema's name, for changes under components.schemas.
	schema string
	// path and method identify a path operation (method upper case; "" at path level); webhook the
	// event type of a webhook.
	path, method, webhook string
	// param is the parameter's name, for changes of a parameter.
	param string
}

var methods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true,
	"patch": true, "trace": true, "query": true}

// locate reads a place from a path of libopenapi's report (see rawChange.path).
func locate(segs []string) place {
	p := place{where: "document", node: "document"}
	i := 0
	at := func(k int) string {
		if k < len(segs) {
			return segs[k]
		}
		return ""
	}
	switch at(0) {
	case "":
		return p
	case "paths":
		p.where, p.node, i = "paths", "paths", 1
		if at(1) == "pathItems" && at(2) != "" {
			p.path, p.where, p.node, i = at(2), "path "+at(2), "pathItem", 3
			p.in, p.out = &requestSide, &responseSide
		}
	case "webhooks":
		p.webhook, p.where, p.node, i = at(1), "webhook "+at(1), "pathItem", 2
		p.in, p.out = &webhookSide, &webhookAnswerSide
	case "components":
		p.where, p.node, i = "components", "components", 1
		switch {
		case at(1) == "schemas" && at(2) != "":
			p.schema, p.where, p.node, i = at(2), "schema "+at(2), "schema", 3
		case at(1) == "securitySchemes" && at(2) != "":
			p.where, p.node, i = "security scheme "+at(2), "securityScheme", 3
		}
	case "extensions":
		p.node, i = "extensions", 1
	case "securityRequirements":
		p.where, p.node, i = "security", "securityRequirement", len(segs)
	default: // info, tags, servers, externalDoc
		p.where, p.node, i = at(0), "documentation", len(segs)
	}
	if p.node == "pathItem" && methods[at(i)] {
		p.method = strings.ToUpper(at(i))
		if p.webhook == "" {
			p.where = p.method + " " + p.path
		}
		p.node = "operation"
		i++
	}
	for i < len(segs) {
		if p.node == "schema" || p.node == "discriminator" {
			i = p.schemaStep(segs, i)
			continue
		}
		i = p.step(segs, i)
	}
	return p
}

// step reads one part of an operation, path item or component.
func (p *place) step(segs []string, i int) int {
	s := segs[i]
	next := ""
	if i+1 < len(segs) {
		next = segs[i+1]
	}
	switch s {
	case "parameters":
		p.node, p.param, p.side = "parameter", next, p.in
		p.parts = append(p.parts, "parameter "+next)
		return i + 2
	case "requestBodies":
		p.node, p.side = "requestBody", p.in
		p.parts = append(p.parts, p.bodyName())
		return i + 1
	case "content":
		p.node = "mediaType"
		if next != "application/json" {
			p.parts = append(p.parts, next)
		}
		return i + 2
	case "schemas":
		p.node = "schema"
		return i + 1
	case "responses":
		p.node, p.side = "responses", p.out
		return i + 1
	case "response":
		p.node = "response"
		p.parts = append(p.parts, p.responseName()+" "+next)
		return i + 2
	case "default":
		p.node = "response"
		p.parts = append(p.parts, p.responseName()+" default")
		return i + 1
	case "headers":
		p.node = "header"
		p.parts = append(p.parts, "header "+next)
		return i + 2
	case "examples":
		p.node = "example"
		if next != "" {
			p.parts = append(p.parts, "example "+next)
		}
		return i + 2
	case "securityRequirements":
		p.node, p.side = "securityRequirement", p.in
		p.parts = append(p.parts, "security")
		return i + 2
	case "extensions":
		p.node = "extensions"
		return i + 1
	case "externalDoc", "externalDocs", "servers", "links":
		p.node = "documentation"
		return len(segs)
	default: // callbacks, encodings and what this does not know: judged by libopenapi's own flag
		p.node = "other"
		return len(segs)
	}
}

// schemaStep reads one level of a schema: members add to the field pointer.
func (p *place) schemaStep(segs []string, i int) int {
	s := segs[i]
	next := ""
	if i+1 < len(segs) {
		next = segs[i+1]
	}
	switch s {
	case "properties", "patternProperties", "dependentSchemas":
		p.field += "/" + next
		return i + 2
	case "items", "prefixItems":
		p.field += "/[]"
		if s == "prefixItems" {
			return i + 2
		}
		return i + 1
	case "additionalProperties", "unevaluatedProperties":
		p.field += "/*"
		return i + 1
	case "allOf", "oneOf", "anyOf":
		return i + 2 // a subschema of the same value
	case "discriminator":
		p.node = "discriminator"
		return i + 1
	case "extensions":
		p.node = "extensions"
		return i + 1
	case "externalDoc", "xml":
		p.node = "documentation"
		return len(segs)
	default: // not, if, then, else, contains, propertyNames, contentSchema, ...: a constraint on the value
		p.field += "(" + s + ")"
		return i + 1
	}
}

func (p *place) bodyName() string {
	if p.webhook != "" {
		return "payload"
	}
	return "request body"
}

func (p *place) responseName() string {
	if p.webhook != "" {
		return "answer"
	}
	return "response"
}

// at renders the place, with the member a change adds or removes (a field, a parameter) when given.
func (p place) at(member string) string {
	parts := append([]string{p.where}, p.parts...)
	field := p.field
	if member != "" {
		field += "/" + member
	}
	if field != "" {
		parts = append(parts, field)
	}
	return strings.Join(parts, " › ")
}
