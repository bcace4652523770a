package specdiff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	lowbase "github.com/pb33f/libopenapi/datamodel/low/base"
	"github.com/pb33f/libopenapi/what-changed/model"
)

// The rules: whom a change breaks, by what it changes and on which side of a message.
//
// The principle is the robustness one, applied per direction. Whoever produces a message (a client
// sending a request, a receiver answering a delivery) is broken when what was valid is no longer
// accepted: a field becomes required, a bound tightens, an enum value or a field is removed. Whoever
// consumes a message (a client parsing a response, a receiver parsing a delivery) is broken when it
// may get what it was promised it would not, or stops getting what it relied on: a new enum value, a
// looser bound, a field removed or no longer required. A new optional field breaks neither: producers
// may leave it out and consumers ignore members they do not know.
//
// Two verdicts are choices, made on purpose:
//   - A new enum value in a response or a delivery breaks its consumers. Conventional tools call it a
//     warning, since a lenient client ignores it; but a status is what clients act on. A client that
//     waits for a final status (this repository's own client and Terraform provider poll until
//     `success` or `failed`) never sees one it does not know as final, a generated enum type refuses
//     it, and an exhaustive switch has no branch for it.
//   - A new webhook event type breaks no one, because the document says so: its Events tag promises
//     new event types without a new API version, tells receivers to acknowledge a type they do not
//     handle, and makes every event type a response reports an AnyEventType (an open string whose
//     known values are listed in x-extensible-enum), so a client of the old document decodes it. What
//     a client sends stays an EventType, the declared types: one more value there is one more the
//     service accepts. A receiver or client that refuses an unknown type breaks the document's rule,
//     which `malipo webhooks test` checks, not this change.

// effect is what a schema change does to the set of valid values.
type effect int

const (
	harmless effect = iota // the same values are valid, or the change only documents
	tightens               // some values valid before are refused: breaks producers
	loosens                // some values refused before are valid: breaks consumers
	reshapes               // both, or cannot tell: breaks both sides
)

// verdict is the outcome for one side.
type verdict struct {
	breaks bool
	why    string
}

// schemaVerdict judges a schema change on one side of a message; status says the schema is a status,
// which a consumer acts on.
func schemaVerdict(s side, c *model.Change, status bool) verdict {
	prop, kind := c.Property, c.ChangeType
	switch prop {
	case "properties":
		if kind == model.ObjectAdded || kind == model.PropertyAdded {
			return verdict{false, "a new field breaks no one: whoever sends " + s.part + " may leave it out (unless it is also made required, reported on its own), and whoever parses them ignores members it does not know"}
		}
		if s.produces {
			return verdict{true, s.who + " that send it are refused (" + s.part + " reject unknown fields) or no longer understood"}
		}
		return verdict{true, s.who + " that read it no longer get it"}
	case "required":
		if added(kind) {
			if s.produces {
				return verdict{true, s.part + " without it are refused, and " + s.who + " written for the old document do not send it"}
			}
			return verdict{false, s.who + " now always get it"}
		}
		if s.produces {
			return verdict{false, s.who + " may now leave it out"}
		}
		return verdict{true, s.who + " can no longer count on getting it"}
	case "enum":
		value := firstNonEmpty(c.New, c.Original)
		if added(kind) {
			if s.produces {
				return verdict{false, s.who + " may send one more value"}
			}
			why := fmt.Sprintf("%s meet a value they do not know: an exhaustive switch or a generated enum type has no place for %q", s.who, value)
			if status {
				why += ", and code that waits for a final status never takes it for one"
			}
			return verdict{true, why}
		}
		if s.produces {
			return verdict{true, fmt.Sprintf("%s that send %q are refused", s.who, value)}
		}
		return verdict{false, fmt.Sprintf("%q is no longer sent, which %s need not handle", value, s.who)}
	case "default":
		if s.produces {
			return verdict{true, s.who + " that leave it out get another value than before"}
		}
		return verdict{false, "a default is what the receiving side assumes; " + s.who + " parse what is sent"}
	}
	e, what := schemaEffect(c)
	switch {
	case e == harmless:
		return verdict{false, what}
	case e == reshapes:
		return verdict{true, fmt.Sprintf("%s: values valid before may be refused, and %s may meet values they did not before", what, s.who)}
	case e == tightens && s.produces:
		return verdict{true, fmt.Sprintf("%s: %s that were valid before are refused", what, s.part)}
	case e == tightens:
		return verdict{false, fmt.Sprintf("%s: it only narrows what %s get", what, s.who)}
	case s.produces: // loosens
		return verdict{false, fmt.Sprintf("%s: it only widens what %s may send", what, s.who)}
	default:
		return verdict{true, fmt.Sprintf("%s: %s may get values they were promised they would not", what, s.who)}
	}
}

// enumGoneVerdict judges a removal that takes a whole enum away: the schema now allows any value of
// its type, which widens what the receiving side may get.
func enumGoneVerdict(s side, c *model.Change) verdict {
	value := firstNonEmpty(c.New, c.Original)
	if s.produces {
		return verdict{false, fmt.Sprintf("the enum is gone (%q with it): %s may send any value of the type", value, s.who)}
	}
	return verdict{true, fmt.Sprintf("the enum is gone (%q with it): %s may now meet any value of the type, which a generated enum type or an exhaustive switch has no place for", value, s.who)}
}

// upperBounds and lowerBounds are the keywords whose number bounds a value from above or below.
var (
	upperBounds = []string{"maxLength", "maximum", "maxItems", "maxProperties", "exclusiveMaximum", "maxContains"}
	lowerBounds = []string{"minLength", "minimum", "minItems", "minProperties", "exclusiveMinimum", "minContains"}
	// documentation is what people read and generators print, not what is valid.
	documentation = []string{"description", "title", "summary", "example", "examples", "deprecated", "$comment",
		"externalDocs", "xml", "$id", "$anchor", "$schema", "x-enum-descriptions", "x-enum-varnames",
		// The known values of an open string (AnyEventType): any string of its pattern is valid whatever
		// the list says; it tells people and generators which values exist today.
		"x-extensible-enum"}
)

// schemaEffect says what a schema keyword change does to the valid values, with the change in words.
func schemaEffect(c *model.Change) (effect, string) {
	prop, kind := c.Property, c.ChangeType
	what := describeChange(c)
	switch {
	case slices.Contains(documentation, prop):
		return harmless, "documentation only (" + prop + ")"
	case slices.Contains(upperBounds, prop):
		return bound(kind, c.Original, c.New, false), what
	case slices.Contains(lowerBounds, prop):
		return bound(kind, c.Original, c.New, true), what
	case prop == "pattern" || prop == "multipleOf" || prop == "format" || prop == "not":
		return addedTightens(kind), what
	case prop == "allOf":
		return addedTightens(kind), what
	case prop == "oneOf" || prop == "anyOf":
		// An alternative added accepts more; one removed accepts less.
		switch {
		case added(kind):
			return loosens, what
		case removed(kind):
			return tightens, what
		}
		return reshapes, what
	case prop == "uniqueItems":
		return ifNew(c.New == "true", tightens, loosens), what
	case prop == "nullable":
		return ifNew(c.New == "true", loosens, tightens), what
	case prop == "additionalProperties" || prop == "unevaluatedProperties":
		switch {
		case c.New == "false" && kind != model.ObjectRemoved && kind != model.PropertyRemoved:
			return tightens, what
		case c.Original == "false" || kind == model.ObjectRemoved || kind == model.PropertyRemoved:
			return loosens, what
		}
		return reshapes, what
	case prop == "type":
		old, updated := typeList(c.OriginalObject, c.Original), typeList(c.NewObject, c.New)
		return typeEffect(old, updated), "type " + strings.Join(old, ", ") + " → " + strings.Join(updated, ", ")
	case c.Breaking:
		return reshapes, what
	default:
		return harmless, what + " (libopenapi rates it non-breaking)"
	}
}

// bound judges a change of a numeric bound; lower is true for a lower bound (minimum, minLength).
func bound(kind int, old, updated string, lower bool) effect {
	switch {
	case added(kind) && updated != "" && old == "":
		return tightens
	case removed(kind):
		return loosens
	}
	o, err1 := strconv.ParseFloat(old, 64)
	n, err2 := strconv.ParseFloat(updated, 64)
	switch {
	case err1 != nil || err2 != nil:
		return reshapes
	case o == n:
		return harmless
	case (n > o) == lower:
		return tightens
	default:
		return loosens
	}
}

// addedTightens is the effect of a constraint keyword: adding one refuses more, removing one accepts
// more, and changing one can do either.
func addedTightens(kind int) effect {
	switch {
	case added(kind):
		return tightens
	case removed(kind):
		return loosens
	}
	return reshapes
}

// typeList reads a schema's types from the schema libopenapi compared (a 3.1 type may be a list,
// which the change's text leaves empty), or from the text.
func typeList(schema any, text string) []string {
	if sch, ok := schema.(*lowbase.Schema); ok && sch != nil {
		v := sch.Type.Value
		if v.IsB() {
			var out []string
			for _, t := range v.B {
				out = append(out, t.Value)
			}
			return out
		}
		if v.A != "" {
			return []string{v.A}
		}
	}
	return typeSet(text)
}

// typeEffect compares JSON Schema type lists ("string" → "string, null" accepts more).
func typeEffect(o, n []string) effect {
	switch {
	case len(o) == 0 || len(n) == 0:
		return reshapes
	case subset(o, n):
		return loosens
	case subset(n, o):
		return tightens
	}
	return reshapes
}

func typeSet(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '[' || r == ']' }) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) && (x != "integer" || !slices.Contains(b, "number")) {
			return false
		}
	}
	return true
}

func ifNew(cond bool, yes, no effect) effect {
	if cond {
		return yes
	}
	return no
}

func added(kind int) bool   { return kind == model.PropertyAdded || kind == model.ObjectAdded }
func removed(kind int) bool { return kind == model.PropertyRemoved || kind == model.ObjectRemoved }

// kindName is a change type in words.
func kindName(kind int) string {
	switch {
	case added(kind):
		return "added"
	case removed(kind):
		return "removed"
	}
	return "modified"
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// describeChange words a change of a keyword: `maxLength 255 → 128`, `pattern added: ^[0-9]+$`.
func describeChange(c *model.Change) string {
	old, updated := show(c.Original), show(c.New)
	switch {
	case added(c.ChangeType) && updated != "":
		return c.Property + " added: " + updated
	case added(c.ChangeType):
		return c.Property + " added"
	case removed(c.ChangeType) && old != "":
		return c.Property + " removed (was " + old + ")"
	case removed(c.ChangeType):
		return c.Property + " removed"
	case old == "" && updated == "":
		return c.Property + " changed"
	}
	return c.Property + " " + old + " → " + updated
}

// show shortens a value for a one-line report.
func show(v string) string {
	v = strings.Join(strings.Fields(v), " ")
	if r := []rune(v); len(r) > 60 {
		v = string(r[:57]) + "…"
	}
	return v
}
