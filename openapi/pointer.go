package openapi

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/internal/docedit"
)

// The document's words, by JSON pointer: a contract check names the rule it enforces as a pointer
// into the document and, for a rule written in prose, the sentence itself. Says proves that the
// sentence is there, so that a check cannot cite a rule the document does not state; Text gives
// reports the words to show next to a failure.

// treeOnce parses the document's YAML once, on first use: most runs never resolve a pointer.
type treeOnce struct {
	once sync.Once
	doc  *docedit.Doc
	err  error
}

// Resolve returns the YAML node at a JSON pointer ("#/components/schemas/Payout/required"), or an error
// naming the first token that does not resolve. It reads the document as given to Load, through
// docedit's pointer walk.
func (s *Spec) Resolve(pointer string) (*yaml.Node, error) {
	s.tree.once.Do(func() { s.tree.doc, s.tree.err = docedit.Parse(s.source) })
	if s.tree.err != nil {
		return nil, s.tree.err
	}
	if !strings.HasPrefix(pointer, "#/") {
		return nil, fmt.Errorf("%q: a pointer into the document starts with #/", pointer)
	}
	return s.tree.doc.Get(pointer)
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

// Bound returns the non-negative integer the document gives at pointer (a maxItems, a maxLength), so
// that code enforcing a bound the document states reads it there instead of restating it.
func (s *Spec) Bound(pointer string) (int, error) {
	text, err := s.Text(pointer)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s is %q, not a non-negative integer", pointer, text)
	}
	return n, nil
}
