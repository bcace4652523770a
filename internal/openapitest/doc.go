package openapitest

import (
	"encoding/json"
	"iter"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

// Doc is the embedded document as written, for a test that takes a fact from it (a pattern, a limit, an
// example, the names of a schema's properties) to compare with what the code under test does. It reads
// the YAML itself, as a person reading malipo.yaml would, rather than libopenapi's model: a package that
// names libopenapi's generic types compiles them again (seconds of CPU for each package and each test
// variant), and a second reader of the document checks the code more independently than the model the
// code itself is built on.
type Doc struct {
	doc *docedit.Doc
}

// Embedded returns the embedded document, parsed once for the test binary; a document that does not
// parse fails the test. Its nodes are shared: read them, never change them.
func Embedded(t testing.TB) *Doc {
	t.Helper()
	d, err := embedded()
	if err != nil {
		t.Fatalf("parse the embedded document: %v", err)
	}
	return d
}

var embedded = sync.OnceValues(func() (*Doc, error) {
	d, err := docedit.Parse(openapi.YAML())
	return &Doc{doc: d}, err
})

// At returns the node at pointer, following every local $ref on the way and at the end: At(t,
// "/components/schemas/BankPayoutRequest/properties/account_number") is the account number's schema
// even where the property is a reference to a component. A pointer that names nothing fails the test.
func (d *Doc) At(t testing.TB, pointer string) *yaml.Node {
	t.Helper()
	n, ok := d.Lookup(t, pointer)
	if !ok {
		t.Fatalf("the document has nothing at %s", pointer)
	}
	return n
}

// Lookup is At for what may be absent: false when pointer names nothing. A pointer may be written as a
// URI fragment ("#/components/...") too.
func (d *Doc) Lookup(t testing.TB, pointer string) (*yaml.Node, bool) {
	t.Helper()
	pointer = strings.TrimPrefix(pointer, "#")
	at := ""
	if pointer != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
			at = d.target(t, at) + "/" + tok
			if _, err := d.doc.Get(at); err != nil {
				return nil, false
			}
		}
	}
	n, err := d.doc.Get(d.target(t, at))
	if err != nil {
		t.Fatalf("%s: %v", pointer, err)
	}
	return n, true
}

// Operation returns op's declaration in the document (a path item's method, or a webhook's).
func (d *Doc) Operation(t testing.TB, op *openapi.Operation) *yaml.Node {
	t.Helper()
	return d.At(t, op.Pointer())
}

// NamedExamples returns the named `examples` of a media type, each value as JSON (an example that is a
// reference followed); an example without a `value` fails the test.
func (d *Doc) NamedExamples(t testing.TB, mediaType *yaml.Node) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	for name, ex := range Members(Member(mediaType, "examples")) {
		value := Member(d.Resolve(t, ex), "value")
		if value == nil {
			t.Fatalf("the example %s at line %d has no value", name, ex.Line)
		}
		out[name] = JSON(t, value)
	}
	return out
}

// TagDescription returns the description of the document's tag name, "" when it has no such tag.
func (d *Doc) TagDescription(t testing.TB, name string) string {
	t.Helper()
	var tags []struct{ Name, Description string }
	Decode(t, d.At(t, "/tags"), &tags)
	for _, tag := range tags {
		if tag.Name == name {
			return tag.Description
		}
	}
	return ""
}

// Resolve returns n itself, or what it refers to when it is a local reference ({$ref: "#/..."}).
func (d *Doc) Resolve(t testing.TB, n *yaml.Node) *yaml.Node {
	t.Helper()
	ref := refOf(n)
	if ref == "" {
		return n
	}
	return d.At(t, ref)
}

// target follows the reference at pointer, if it is one, to the pointer of what it refers to.
func (d *Doc) target(t testing.TB, pointer string) string {
	t.Helper()
	for range 32 {
		n, err := d.doc.Get(pointer)
		if err != nil {
			return pointer
		}
		ref := refOf(n)
		if ref == "" {
			return pointer
		}
		pointer = ref
	}
	t.Fatalf("%s: a cycle of $refs", pointer)
	return ""
}

// refOf returns the JSON pointer of a local reference node ("#/components/..." as "/components/..."),
// "" for any other node.
func refOf(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "$ref" {
			return strings.TrimPrefix(n.Content[i+1].Value, "#")
		}
	}
	return ""
}

// Members yields a mapping's keys and values in the document's order (nothing for any other node).
// Values are as written: a member that is a reference stays one (Resolve follows it).
func Members(n *yaml.Node) iter.Seq2[string, *yaml.Node] {
	return func(yield func(string, *yaml.Node) bool) {
		if n == nil || n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !yield(n.Content[i].Value, n.Content[i+1]) {
				return
			}
		}
	}
}

// Member returns the value of a mapping's member key, nil when it has none.
func Member(n *yaml.Node, key string) *yaml.Node {
	for k, v := range Members(n) {
		if k == key {
			return v
		}
	}
	return nil
}

// Items returns a sequence's items (nothing for any other node, or none).
func Items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// Keys returns a mapping's keys in the document's order.
func Keys(n *yaml.Node) []string {
	var out []string
	for k := range Members(n) {
		out = append(out, k)
	}
	return out
}

// Decode decodes n into v (as yaml.Node.Decode does); an error fails the test.
func Decode(t testing.TB, n *yaml.Node, v any) {
	t.Helper()
	if err := n.Decode(v); err != nil {
		t.Fatalf("decode the document's value at line %d: %v", n.Line, err)
	}
}

// JSON returns n's value encoded as JSON, as a client sends an example.
func JSON(t testing.TB, n *yaml.Node) json.RawMessage {
	t.Helper()
	var v any
	Decode(t, n, &v)
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode the document's value at line %d as JSON: %v", n.Line, err)
	}
	return data
}
