// Package docedit reads and edits a YAML document by JSON pointer: openapi.Spec.Resolve reads the
// document's words with it (a contract check cites them by pointer), and tests that need a variant of
// the embedded OpenAPI document edit it: an operation removed, a field added, a test value changed.
// An edit names what it changes by pointer (`/paths/~1v1~1countries/get`) rather than by the text around it, so a test
// survives reformatting of malipo.yaml and cannot silently edit the wrong place: a pointer that does
// not resolve is an error.
//
// The edited document is encoded anew, so its formatting and line numbers differ from the source even
// where nothing changed; compare it with Parse(source).Bytes() when formatting matters.
package docedit

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Doc is a parsed YAML document being edited.
type Doc struct {
	root *yaml.Node // the document's top-level value
}

// Parse parses a YAML document.
func Parse(data []byte) (*Doc, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("parse the document: %w", err)
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return nil, fmt.Errorf("parse the document: not a single YAML document")
	}
	return &Doc{root: n.Content[0]}, nil
}

// Bytes encodes the document as YAML, indented by two spaces as malipo.yaml is.
func (d *Doc) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{d.root}}); err != nil {
		return nil, fmt.Errorf("encode the document: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode the document: %w", err)
	}
	return buf.Bytes(), nil
}

// Escape escapes one pointer token (a path such as `/v1/countries` becomes `~1v1~1countries`).
func Escape(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// Unescape is Escape undone: one pointer token as the key it names (~1 is /, ~0 is ~).
func Unescape(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
}

// Get returns the node at pointer.
func (d *Doc) Get(pointer string) (*yaml.Node, error) {
	n := d.root
	for _, tok := range tokens(pointer) {
		child, _, err := step(n, tok)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pointer, err)
		}
		n = child
	}
	return n, nil
}

// Line returns the line (1-based) of the source at which the member or item at pointer is written: a
// mapping member's key (`required:`, however its value is laid out below it), a sequence item's first
// line, the document's first line for the document itself. The lines are the source's, as parsed:
// not those of Bytes, and 0 for what an edit added.
func (d *Doc) Line(pointer string) (int, error) {
	if len(tokens(pointer)) == 0 {
		return d.root.Line, nil
	}
	parent, last, err := d.parent(pointer)
	if err != nil {
		return 0, err
	}
	n, i, err := step(parent, last)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", pointer, err)
	}
	if parent.Kind == yaml.MappingNode {
		return parent.Content[i-1].Line, nil
	}
	return n.Line, nil
}

// Remove deletes the mapping member or sequence item at pointer.
func (d *Doc) Remove(pointer string) error {
	parent, last, err := d.parent(pointer)
	if err != nil {
		return err
	}
	_, i, err := step(parent, last)
	if err != nil {
		return fmt.Errorf("%s: %w", pointer, err)
	}
	if parent.Kind == yaml.MappingNode {
		parent.Content = append(parent.Content[:i-1], parent.Content[i+1:]...)
	} else {
		parent.Content = append(parent.Content[:i], parent.Content[i+1:]...)
	}
	return nil
}

// Set replaces the value at pointer with value (YAML text), or adds it as the last member of its
// mapping when the member does not exist yet.
func (d *Doc) Set(pointer, value string) error {
	v, err := parseValue(value)
	if err != nil {
		return fmt.Errorf("%s: %w", pointer, err)
	}
	parent, last, err := d.parent(pointer)
	if err != nil {
		return err
	}
	if _, i, err := step(parent, last); err == nil {
		parent.Content[i] = v
		return nil
	}
	if parent.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: no item %q to replace", pointer, last)
	}
	parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last}, v)
	return nil
}

// Append adds value (YAML text) as the last item of the sequence at pointer.
func (d *Doc) Append(pointer, value string) error {
	v, err := parseValue(value)
	if err != nil {
		return fmt.Errorf("%s: %w", pointer, err)
	}
	seq, err := d.Get(pointer)
	if err != nil {
		return err
	}
	if seq.Kind != yaml.SequenceNode {
		return fmt.Errorf("%s: not a sequence", pointer)
	}
	seq.Content = append(seq.Content, v)
	return nil
}

// Rename renames the mapping member at pointer to key, keeping its value and its place.
func (d *Doc) Rename(pointer, key string) error {
	parent, last, err := d.parent(pointer)
	if err != nil {
		return err
	}
	_, i, err := step(parent, last)
	if err != nil {
		return fmt.Errorf("%s: %w", pointer, err)
	}
	if parent.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: not a mapping member", pointer)
	}
	parent.Content[i-1].Value = key
	return nil
}

// Copy sets the value at to (as Set does) to a deep copy of the value at from.
func (d *Doc) Copy(from, to string) error {
	src, err := d.Get(from)
	if err != nil {
		return err
	}
	data, err := yaml.Marshal(src)
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	return d.Set(to, string(data))
}

// parent returns the node that holds the member or item pointer names, and the last token.
func (d *Doc) parent(pointer string) (*yaml.Node, string, error) {
	toks := tokens(pointer)
	if len(toks) == 0 {
		return nil, "", fmt.Errorf("%q: the document itself cannot be edited this way", pointer)
	}
	parent := d.root
	for _, tok := range toks[:len(toks)-1] {
		child, _, err := step(parent, tok)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", pointer, err)
		}
		parent = child
	}
	return parent, toks[len(toks)-1], nil
}

// step returns the child of n named by tok, and its index in n.Content.
func step(n *yaml.Node, tok string) (*yaml.Node, int, error) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == tok {
				return n.Content[i+1], i + 1, nil
			}
		}
		return nil, 0, fmt.Errorf("no member %q", tok)
	case yaml.SequenceNode:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil, 0, fmt.Errorf("no item %q in a sequence of %d", tok, len(n.Content))
		}
		return n.Content[i], i, nil
	default:
		return nil, 0, fmt.Errorf("%q is below a scalar", tok)
	}
}

func tokens(pointer string) []string {
	pointer = strings.TrimPrefix(pointer, "#")
	if pointer == "" || pointer == "/" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, t := range toks {
		toks[i] = Unescape(t)
	}
	return toks
}

func parseValue(value string) (*yaml.Node, error) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(value), &n); err != nil {
		return nil, fmt.Errorf("parse the new value: %w", err)
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return nil, fmt.Errorf("the new value %q is not one YAML value", value)
	}
	return n.Content[0], nil
}
