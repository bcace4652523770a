package valuegen

import (
	"slices"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// Walk returns the fields of the object schema root describes, merged over its allOf branches (a
// webhook's own schema, PaymentEvent, Payment), and of every property that is an object, depth first:
// first the root itself (Object, with an empty Path), then each property in the order the schemas
// declare them, an object's properties right after it.
func Walk(root *base.SchemaProxy, opts Options) []*Field {
	out := []*Field{{Object: true, opts: opts}}
	out[0].Closed = walkObject([]*base.SchemaProxy{root}, nil, opts, true, &out)
	return out
}

// Properties returns the fields of the object schema sch, its properties' own objects left whole.
func Properties(sch *base.Schema, opts Options) []*Field {
	var out []*Field
	walkSchemas([]*base.Schema{sch}, nil, opts, false, &out)
	return out
}

// FieldOf is the field of one schema (a parameter's), named name.
func FieldOf(name string, required bool, sch *base.SchemaProxy, opts Options) *Field {
	return newField(name, []string{name}, required, branches(sch), opts)
}

// walkObject appends the fields of the object the proxies describe together, at path, and reports
// whether the object is closed to undeclared properties.
func walkObject(proxies []*base.SchemaProxy, path []string, opts Options, deep bool, out *[]*Field) (closed bool) {
	var schemas []*base.Schema
	for _, p := range proxies {
		schemas = append(schemas, branches(p)...)
	}
	return walkSchemas(schemas, path, opts, deep, out)
}

// walkSchemas appends the fields the schemas of one object declare, merging each property's schemas,
// and with deep, recurses into the properties that are objects.
func walkSchemas(schemas []*base.Schema, path []string, opts Options, deep bool, out *[]*Field) (closed bool) {
	var names []string
	props := map[string][]*base.SchemaProxy{}
	required := map[string]bool{}
	for _, s := range schemas {
		if ap := s.AdditionalProperties; ap != nil && ap.IsB() && !ap.B {
			closed = true
		}
		for _, r := range s.Required {
			required[r] = true
		}
		if s.Properties == nil {
			continue
		}
		for name, p := range s.Properties.FromOldest() {
			if _, seen := props[name]; !seen {
				names = append(names, name)
			}
			props[name] = append(props[name], p)
		}
	}
	for _, name := range names {
		var all []*base.Schema
		for _, p := range props[name] {
			all = append(all, branches(p)...)
		}
		if len(all) == 0 {
			continue
		}
		f := newField(name, append(slices.Clone(path), name), required[name], all, opts)
		*out = append(*out, f)
		if deep && f.Object {
			f.Closed = walkObject(props[name], f.Path, opts, deep, out)
		}
	}
	return closed
}

// branches returns the schema behind p and every allOf branch under it: the schemas a value there
// must satisfy together.
func branches(p *base.SchemaProxy) []*base.Schema {
	if p == nil {
		return nil
	}
	s := p.Schema()
	if s == nil {
		return nil
	}
	out := []*base.Schema{s}
	for _, sub := range s.AllOf {
		out = append(out, branches(sub)...)
	}
	return out
}

// Members follows the property names path from sch (through allOf, oneOf and anyOf) and returns the
// property names of the schemas found there: which members an object of that schema has.
func Members(sch *base.Schema, path ...string) map[string]bool {
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
