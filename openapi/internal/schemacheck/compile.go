package schemacheck

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// ErrUnsupported is wrapped by Compile errors for schemas outside the subset this package implements.
var ErrUnsupported = errors.New("outside the subset schemacheck implements")

// Checker says whether a JSON value is valid against one compiled schema. It is safe for concurrent use.
type Checker struct{ s *schema }

// Compile compiles the schema at node n of the document; location names it in errors (a JSON pointer).
func (d *Document) Compile(n *yaml.Node, location string) (*Checker, error) {
	s, err := d.compile(n, location)
	if err != nil {
		return nil, err
	}
	return &Checker{s: s}, nil
}

// annotations are keywords that do not constrain a value (for the validator as configured: `format` is
// not asserted) and extension-like keywords of OpenAPI that carry no constraint.
var annotations = map[string]bool{
	"title": true, "description": true, "example": true, "examples": true, "default": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "format": true, "$comment": true,
	"externalDocs": true, "xml": true,
	// Definitions constrain nothing where they stand; a $ref to one is compiled where it is used.
	"$defs": true,
}

func (d *Document) compile(n *yaml.Node, at string) (*schema, error) {
	n = deAlias(n)
	if n == nil {
		return nil, fmt.Errorf("%s: no schema", at)
	}
	if s, ok := d.compiled[n]; ok {
		return s, nil
	}
	if d.busy[n] {
		return nil, fmt.Errorf("%s: recursive schema: %w", at, ErrUnsupported)
	}
	d.busy[n] = true
	defer delete(d.busy, n)

	s := &schema{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProperties: -1, maxProperties: -1}
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		s.never = n.Value != "true"
	case n.Kind == yaml.MappingNode:
		keys, values := Pairs(n)
		for i, key := range keys {
			if err := d.keyword(s, key, values[i], at+"/"+escape(key)); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean", at)
	}
	d.compiled[n] = s
	return s, nil
}

// keyword compiles one keyword of a schema object into s. Keywords are taken by the vocabulary they
// belong to, as JSON Schema 2020-12 splits them: applicators compile subschemas, assertions read a value;
// annotations and extensions constrain nothing, and any other keyword is outside the subset.
func (d *Document) keyword(s *schema, key string, v *yaml.Node, at string) error {
	if handled, err := d.applicator(s, key, v, at); handled {
		return err
	}
	if handled, err := assertion(s, key, v, at); handled {
		return err
	}
	if annotations[key] || strings.HasPrefix(key, "x-") {
		return nil
	}
	return fmt.Errorf("%s: keyword %q: %w", at, key, ErrUnsupported)
}

// applicator compiles a keyword that applies subschemas ($ref, properties, items, the combinators);
// handled is false for any other keyword.
func (d *Document) applicator(s *schema, key string, v *yaml.Node, at string) (handled bool, err error) {
	switch key {
	case "$ref":
		s.ref, err = d.compileRef(v, at)
	case "properties":
		err = d.compileProperties(s, v, at)
	case "additionalProperties":
		s.additional, err = d.compile(v, at)
	case "items":
		if v.Kind == yaml.SequenceNode {
			return true, fmt.Errorf("%s: items as a list (prefixItems before 2020-12): %w", at, ErrUnsupported)
		}
		s.items, err = d.compile(v, at)
	case "not":
		s.not, err = d.compile(v, at)
	case "allOf":
		s.allOf, err = d.compileList(v, at)
	case "anyOf":
		s.anyOf, err = d.compileList(v, at)
	case "oneOf":
		s.oneOf, err = d.compileList(v, at)
	default:
		return false, nil
	}
	return true, err
}

// assertion compiles a keyword that constrains the value itself (type, enum, bounds, lengths, counts,
// pattern, required, and OpenAPI's discriminator); handled is false for any other keyword.
func assertion(s *schema, key string, v *yaml.Node, at string) (handled bool, err error) {
	switch key {
	case "type":
		s.types, err = typeSet(v, at)
	case "enum":
		s.enum, err = enumValues(v, at)
	case "const":
		s.hasConst = true
		s.constant, err = jsonValue(v, at)
	case "minLength":
		s.minLength, err = count(v, at)
	case "maxLength":
		s.maxLength, err = count(v, at)
	case "minItems":
		s.minItems, err = count(v, at)
	case "maxItems":
		s.maxItems, err = count(v, at)
	case "minProperties":
		s.minProperties, err = count(v, at)
	case "maxProperties":
		s.maxProperties, err = count(v, at)
	case "pattern":
		if s.pattern, err = regexp.Compile(v.Value); err != nil {
			err = fmt.Errorf("%s: %w", at, err)
		}
	case "minimum":
		s.minimum, err = bound(v, at)
	case "maximum":
		s.maximum, err = bound(v, at)
	case "exclusiveMinimum":
		s.exclusiveMinimum, err = bound(v, at)
	case "exclusiveMaximum":
		s.exclusiveMaximum, err = bound(v, at)
	case "multipleOf":
		s.multipleOf, err = divisor(v, at)
	case "uniqueItems":
		s.uniqueItems = Bool(v)
	case "required":
		s.required, err = requiredNames(v, at)
	case "discriminator":
		s.discriminator, err = discriminatorProperty(v, at)
	default:
		return false, nil
	}
	return true, err
}

// compileRef compiles the schema a $ref points to. Errors inside it are located by the reference (where
// that schema is written), not by the $ref that uses it.
func (d *Document) compileRef(v *yaml.Node, at string) (*schema, error) {
	target, err := d.Node(v.Value)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at, err)
	}
	return d.compile(target, v.Value)
}

// compileProperties compiles each declared property's schema, in the document's order, and records the
// declared names for additionalProperties.
func (d *Document) compileProperties(s *schema, v *yaml.Node, at string) error {
	keys, values := Pairs(v)
	s.declared = make(map[string]bool, len(keys))
	for i, name := range keys {
		sub, err := d.compile(values[i], at+"/"+escape(name))
		if err != nil {
			return err
		}
		s.properties = append(s.properties, property{name: name, schema: sub})
		s.declared[name] = true
	}
	return nil
}

// enumValues reads an enum's values as encoding/json would decode them, so that equality is the engine's.
func enumValues(v *yaml.Node, at string) ([]any, error) {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return nil, fmt.Errorf("%s: enum must be a non-empty list", at)
	}
	var values []any
	for i, item := range v.Content {
		value, err := jsonValue(item, at+"/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		values = append(values, value)
	}
	return values, nil
}

// divisor reads multipleOf, which JSON Schema requires to be greater than 0.
func divisor(v *yaml.Node, at string) (*big.Rat, error) {
	b, err := bound(v, at)
	if err != nil {
		return nil, err
	}
	if b.rat.Sign() <= 0 {
		return nil, fmt.Errorf("%s: multipleOf must be greater than 0", at)
	}
	return b.rat, nil
}

// requiredNames reads the list of required property names.
func requiredNames(v *yaml.Node, at string) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: required must be a list", at)
	}
	var names []string
	for _, item := range v.Content {
		names = append(names, item.Value)
	}
	return names, nil
}

// discriminatorProperty reads a discriminator's propertyName. libopenapi-validator's OpenAPI vocabulary
// asserts only that the property is present (the choice of branch is left to oneOf/anyOf).
func discriminatorProperty(v *yaml.Node, at string) (string, error) {
	name := Field(v, "propertyName")
	if name == nil || name.Value == "" {
		return "", fmt.Errorf("%s: discriminator needs a propertyName", at)
	}
	return name.Value, nil
}

func (d *Document) compileList(v *yaml.Node, at string) ([]*schema, error) {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return nil, fmt.Errorf("%s: must be a non-empty list of schemas", at)
	}
	list := make([]*schema, 0, len(v.Content))
	for i, item := range v.Content {
		sub, err := d.compile(item, at+"/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		list = append(list, sub)
	}
	return list, nil
}

func typeSet(v *yaml.Node, at string) (kinds, error) {
	names := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		names = v.Content
	}
	var set kinds
	for _, n := range names {
		k, ok := map[string]kinds{
			"null": kindNull, "boolean": kindBool, "integer": kindInteger, "number": kindNumber,
			"string": kindString, "array": kindArray, "object": kindObject,
		}[n.Value]
		if !ok || n.Kind != yaml.ScalarNode {
			return 0, fmt.Errorf("%s: unknown type %q", at, n.Value)
		}
		set |= k
	}
	if set == 0 {
		return 0, fmt.Errorf("%s: type lists no type", at)
	}
	return set, nil
}

func count(v *yaml.Node, at string) (int, error) {
	n, err := strconv.Atoi(v.Value)
	if err != nil || n < 0 || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" {
		return 0, fmt.Errorf("%s: must be a non-negative integer, got %q", at, v.Value)
	}
	return n, nil
}

// bound parses a numeric keyword value exactly, as the reference engine does.
func bound(v *yaml.Node, at string) (*number, error) {
	if v.Kind != yaml.ScalarNode || (v.ShortTag() != "!!int" && v.ShortTag() != "!!float") {
		return nil, fmt.Errorf("%s: must be a number, got %q", at, v.Value)
	}
	r, ok := new(big.Rat).SetString(v.Value)
	if !ok {
		return nil, fmt.Errorf("%s: number %q: %w", at, v.Value, ErrUnsupported)
	}
	return newNumber(r), nil
}

// jsonValue converts a node to the value encoding/json would decode from its JSON form. A number must be
// one a float64 carries exactly (in the shortest-decimal sense), so float equality is the engine's.
func jsonValue(n *yaml.Node, at string) (any, error) {
	n = deAlias(n)
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			return n.Value == "true", nil
		case "!!str":
			return n.Value, nil
		case "!!int", "!!float":
			b, err := bound(n, at)
			if err != nil {
				return nil, err
			}
			if !b.exact {
				return nil, fmt.Errorf("%s: %s is not exactly a float64: %w", at, n.Value, ErrUnsupported)
			}
			return b.f, nil
		}
		return nil, fmt.Errorf("%s: scalar tag %s: %w", at, n.ShortTag(), ErrUnsupported)
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			v, err := jsonValue(item, at+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.MappingNode:
		keys, values := Pairs(n)
		obj := make(map[string]any, len(keys))
		for i, k := range keys {
			v, err := jsonValue(values[i], at+"/"+escape(k))
			if err != nil {
				return nil, err
			}
			obj[k] = v
		}
		return obj, nil
	}
	return nil, fmt.Errorf("%s: %w", at, ErrUnsupported)
}

// newNumber keeps a bound both exactly and as a float64, and records whether comparing float64 values
// with f gives the same answer as comparing their shortest decimal forms with r (the engine's way). That
// holds when f's shortest decimal form is r: distinct floats have disjoint rounding intervals.
func newNumber(r *big.Rat) *number {
	f, _ := r.Float64()
	exact := !math.IsInf(f, 0) && shortest(f).Cmp(r) == 0
	return &number{f: f, rat: r, exact: exact}
}

// shortest is the value the engine compares: the shortest decimal that reads back as f.
func shortest(f float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return r
}

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
