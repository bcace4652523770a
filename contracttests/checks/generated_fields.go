package checks

import (
	"math/rand/v2"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/malipo/terraform-provider-malipo/contracttests/harness"
	"github.com/malipo/terraform-provider-malipo/internal/valuegen"
	"github.com/malipo/terraform-provider-malipo/openapi"
)

// The generated checks' fields: the generator's (package valuegen) reading of a request body's
// properties and an operation's parameters, and where a run takes each value from.

// fieldRole says where a property's value comes from.
type fieldRole int

const (
	// roleGenerated: from its schema.
	roleGenerated fieldRole = iota
	// roleRun: the run decides it (reference data, the run's receiver, an object of the target's):
	// harness.T.BodyInput gives it.
	roleRun
	// roleTestValue: a customer or payee number, whose value picks the outcome (x-malipo-test-values):
	// each test value of its kind, then numbers its pattern allows, which succeed.
	roleTestValue
	// roleUnique: the merchant reference, which must be unique among the merchant's objects.
	roleUnique
)

// runFields are the properties whose value the run decides (see harness.T.BodyInput), in every body: a
// generated country id or bank id names nothing on the target, a generated URL nothing of the run's.
var runFields = map[string]bool{"countryId": true, "bank_id": true, "webhook_url": true, "url": true, "endpoint_id": true}

// testValueFields maps the properties that choose an outcome to their kind of test value.
var testValueFields = map[string]openapi.TestValueKind{
	"phone_number":      openapi.TestValuePayments,
	"momo_phone_number": openapi.TestValueMobilePayouts,
	"account_number":    openapi.TestValueBankPayouts,
}

// genField is one property of a request body, or one parameter, as the generated checks see it.
type genField struct {
	*valuegen.Field
	// in is where a parameter goes ("path", "query"); empty for a body property.
	in   string
	role fieldRole
	// location is the property's schema in the document (the component its $ref names), which a
	// refused invalid value's Rule points at.
	location string
}

// genFields reads the properties of a request body's schema.
func genFields(sch *base.Schema, loc string, tv openapi.TestValues) []*genField {
	var out []*genField
	for _, vf := range valuegen.Properties(sch, valuegen.Options{}) {
		f := &genField{Field: vf, role: roleOf(vf.Name), location: propertyLocation(sch, loc, vf.Name)}
		switch f.role {
		case roleRun:
			f.SetCases(nil)
		case roleTestValue:
			f.SetCases(append(testValueCases(tv, testValueFields[f.Name]), f.Cases...))
		}
		out = append(out, f)
	}
	return out
}

// roleOf is where the value of the body property name comes from.
func roleOf(name string) fieldRole {
	switch {
	case runFields[name]:
		return roleRun
	case name == "reference":
		return roleUnique
	case testValueFields[name] != "":
		return roleTestValue
	}
	return roleGenerated
}

// testValueCases are the test values of kind, each with the outcome it picks.
func testValueCases(tv openapi.TestValues, kind openapi.TestValueKind) []valuegen.Value {
	var out []valuegen.Value
	for _, v := range tv.Entries(kind) {
		out = append(out, valuegen.Value{V: v.Input, Label: "test value " + v.Input + " (" + harness.DescribeOutcome(v.Outcome) + ")"})
	}
	return out
}

// random draws a valid value of the property at random (false when it can only take its cases): a
// test-value property one of its test values half of the time.
func (f *genField) random(r *rand.Rand) (valuegen.Value, bool) {
	switch {
	case f.role == roleRun:
		return valuegen.Value{}, false
	case f.role == roleTestValue && r.IntN(2) == 0 && len(f.Cases) > 0:
		return f.Cases[r.IntN(len(f.Cases))], true
	}
	return f.Random(r)
}

// invalids are the ways to break the property (valuegen.Field.Invalids); none for a value of the run's
// without a pattern (a URL or an id), whose format rules are the derived checks'.
func (f *genField) invalids(r *rand.Rand) []valuegen.Invalid {
	if f.role == roleRun && !f.HasPattern() {
		return nil
	}
	return f.Invalids(r)
}

// valueFields are the generator's fields of g.
func (g *genTarget) valueFields() []*valuegen.Field {
	out := make([]*valuegen.Field, len(g.fields))
	for i, f := range g.fields {
		out[i] = f.Field
	}
	return out
}
