package openapi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"
)

// The document's words, by JSON pointer: a contract check names the rule it enforces as a pointer
// into the document and, for a rule written in prose, the sentence itself. Says proves that the
// sentence is there, so that a check cannot cite a rule the document does not state; Text gives
// reports the words to show next to a failure.

// treeOnce parses the document's YAML once, on first use: most runs never resolve a pointer.
type treeOnce struct {
	once sync.Once
	root *yaml.Node
	err  error
}

func (s *Spec) treeRoot() (*yaml.Node, error) {
	s.tree.once.Do(func() {
		var doc yaml.Node
		if err := yaml.Unmarshal(s.source, &doc); err != nil {
			s.tree.err = fmt.Errorf("parse the document: %w", err)
			return
		}
		if len(doc.Content) == 0 {
			s.tree.err = errors.New("the document is empty")
			return
		}
		s.tree.root = doc.Content[0]
	})
	return s.tree.root, s.tree.err
}

// Resolve returns the YAML node at a JSON pointer ("#/components/schemas/Payout/required"), or an error
// naming the first token that does not resolve.
func (s *Spec) Resolve(pointer string) (*yaml.Node, error) {
	n, err := s.treeRoot()
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(pointer, "#/") {
		return nil, fmt.Errorf("%q: a pointer into the document starts with #/", pointer)
	}
	for _, raw := range strings.Split(pointer[2:], "/") {
		tok := strings.ReplaceAll(strings.ReplaceAll(raw, "~1", "/"), "~0", "~")
		next, err := child(n, tok)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pointer, err)
		}
		n = next
	}
	return n, nil
}

func child(n *yaml.Node, tok string) (*yaml.Node, error) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == tok {
				return n.Content[i+1], nil
			}
		}
		return nil, fmt.Errorf("no member %q", tok)
	case yaml.SequenceNode:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil, fmt.Errorf("no item %q in a sequence of %d", tok, len(n.Content))
		}
		return n.Content[i], nil
	default:
		return nil, fmt.Errorf("%q is below a scalar", tok)
	}
}

// Text returns what the document says at pointer: a scalar's text, or a mapping or sequence as YAML.
func (s *Spec) Text(pointer string) (string, error) {
	n, err := s.Resolve(pointer)
	if err != nil {
		return "", err
	}
	if n.Kind == yaml.ScalarNode {
		return n.Value, nil
	}
	out, err := yaml.Marshal(n)
	if err != nil {
		return "", fmt.Errorf("%s: %w", pointer, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Says reports whether the text at pointer contains quote, comparing words: line breaks and runs of
// white space in either are one space, so a sentence wrapped across lines of a description matches.
func (s *Spec) Says(pointer, quote string) error {
	text, err := s.Text(pointer)
	if err != nil {
		return err
	}
	if !strings.Contains(words(text), words(quote)) {
		return fmt.Errorf("%s does not say %q", pointer, quote)
	}
	return nil
}

func words(s string) string { return strings.Join(strings.Fields(s), " ") }
