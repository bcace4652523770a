// Package schemacheck compiles the subset of JSON Schema 2020-12 that an OpenAPI 3.1 document uses into
// checkers that answer one question, fast: is this value valid?
//
// It exists for speed. libopenapi-validator explains a failure precisely (pointer, keyword, reason), but
// it costs tens of microseconds per message even when the message is valid, which is nearly always. The
// openapi package asks a Checker first and runs the full validator only when the Checker says no, so valid
// traffic is cheap and invalid traffic is still explained in full.
//
// That arrangement is only safe if a Checker never says yes where the full validator says no. Two rules
// keep it so:
//   - Compile refuses any keyword outside the subset it implements (and any remote or recursive $ref);
//     the caller then validates that schema with the full validator alone.
//   - Each keyword follows github.com/santhosh-tekuri/jsonschema/v6 (the engine behind libopenapi-validator)
//     on values decoded by encoding/json into any: numbers are float64 and are compared, as that engine
//     does, through their shortest decimal form. `format` is an annotation, as it is for the validator
//     with format assertions off.
//
// The tests compare every keyword with that engine, and the openapi package's tests compare whole messages
// with libopenapi-validator.
package schemacheck

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

// Document is a parsed OpenAPI document from which schemas are compiled. Compiling is not safe for
// concurrent use; the Checkers it returns are read-only and are.
type Document struct {
	root     *yaml.Node
	compiled map[*yaml.Node]*schema
	busy     map[*yaml.Node]bool
}

// Parse parses an OpenAPI document (YAML or JSON).
func Parse(spec []byte) (*Document, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(spec, &root); err != nil {
		return nil, fmt.Errorf("parse document: %w", err)
	}
	n := &root
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) != 1 {
			return nil, errors.New("parse document: the document is empty")
		}
		n = n.Content[0]
	}
	return &Document{root: n, compiled: map[*yaml.Node]*schema{}, busy: map[*yaml.Node]bool{}}, nil
}

// Node returns the node a local reference (`#/components/schemas/Payout`) points to.
func (d *Document) Node(ref string) (*yaml.Node, error) {
	fragment, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("reference %q is not local to the document: %w", ref, ErrUnsupported)
	}
	fragment, err := url.PathUnescape(fragment)
	if err != nil {
		return nil, fmt.Errorf("reference %q: %w", ref, err)
	}
	n := d.root
	if fragment == "" {
		return n, nil
	}
	if !strings.HasPrefix(fragment, "/") {
		return nil, fmt.Errorf("reference %q is not a JSON pointer", ref)
	}
	for _, token := range strings.Split(fragment[1:], "/") {
		token = docedit.Unescape(token)
		n = deAlias(n)
		switch n.Kind {
		case yaml.MappingNode:
			n = Field(n, token)
		case yaml.SequenceNode:
			i, err := strconv.Atoi(token)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil, fmt.Errorf("reference %q: no item %q", ref, token)
			}
			n = n.Content[i]
		default:
			n = nil
		}
		if n == nil {
			return nil, fmt.Errorf("reference %q: no member %q", ref, token)
		}
	}
	return deAlias(n), nil
}

// Resolve follows `$ref`s from n (a parameter, response, header or request body) to the object itself.
func (d *Document) Resolve(n *yaml.Node) (*yaml.Node, error) {
	for range 32 {
		n = deAlias(n)
		ref := Field(n, "$ref")
		if ref == nil {
			return n, nil
		}
		target, err := d.Node(ref.Value)
		if err != nil {
			return nil, err
		}
		n = target
	}
	return nil, errors.New("more than 32 chained $refs")
}

// Field returns the value of key in a mapping node, or nil when n is not a mapping or has no such key.
func Field(n *yaml.Node, key string) *yaml.Node {
	n = deAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return deAlias(n.Content[i+1])
		}
	}
	return nil
}

// Scalar returns the value of key in a mapping node, or "" when there is none.
func Scalar(n *yaml.Node, key string) string {
	if v := Field(n, key); v != nil {
		return v.Value
	}
	return ""
}

// Pairs returns the keys and values of a mapping node, in document order.
func Pairs(n *yaml.Node) (keys []string, values []*yaml.Node) {
	n = deAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
		values = append(values, deAlias(n.Content[i+1]))
	}
	return keys, values
}

// Bool reports whether n is the boolean scalar true.
func Bool(n *yaml.Node) bool {
	n = deAlias(n)
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && n.Value == "true"
}

func deAlias(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}
