package openapi

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

// The document's words, by JSON pointer: a contract check names the rule it enforces as a pointer
// into the document and, for a rule written in prose, the sentence itself. Says proves that the
// sentence is there, so that a check cannot cite a rule the document does not state; Text and Words
// give reports the words to show next to a failure, and Line the line to point at.

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

// Line returns the line (1-based) of the document at which the rule at pointer is written, for a
// report to cite with Path: the line of the member's key (`required:` of
// #/components/schemas/Error/required, wherever its value is laid out), or of the sequence item; 0 when
// the pointer does not resolve. A nil Spec has no lines.
func (s *Spec) Line(pointer string) int {
	if s == nil || !strings.HasPrefix(pointer, "#/") {
		return 0
	}
	if _, err := s.Resolve(pointer); err != nil {
		return 0
	}
	line, err := s.tree.doc.Line(pointer)
	if err != nil {
		return 0
	}
	return line
}

// QuoteLine is the line where quote, a sentence of the text at pointer, begins in the document: the
// line a CI annotation of a rule written in prose points at, rather than the line of its key (a
// description can run for dozens of lines). It is Line(pointer) when the quote is not found word for
// word in the lines the text spans (a double-quoted scalar whose escapes differ from its words).
func (s *Spec) QuoteLine(pointer, quote string) int {
	line := s.Line(pointer)
	words := strings.Fields(quote)
	if line == 0 || len(words) == 0 {
		return line
	}
	n, err := s.Resolve(pointer)
	if err != nil {
		return line
	}
	type word struct {
		text string
		line int
	}
	lines := strings.Split(string(s.source), "\n")
	var text []word
	for i := line - 1; i < min(len(lines), line+strings.Count(n.Value, "\n")+1); i++ {
		for _, w := range strings.Fields(lines[i]) {
			text = append(text, word{w, i + 1})
		}
	}
	for i := 0; i+len(words) <= len(text); i++ {
		match := true
		for j, w := range words {
			// The quote's last word may be cut short ("…") or end the sentence where the text goes on.
			if got := text[i+j].text; got != w && (j < len(words)-1 || !strings.HasPrefix(got, strings.TrimRight(w, ".…"))) {
				match = false
				break
			}
		}
		if match {
			return text[i].line
		}
	}
	return line
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

// maxWords is how long the document's words shown for a rule may be: a line of a report.
const maxWords = 160

// Words is what the document says at pointer, short, for a report's line: `keyword: value` for a
// schema keyword (a list or object inline: `required: [status, message]`), the opening of a
// description, or "" when the pointer does not resolve or the text is too long to be a line (a whole
// operation). A nil Spec has no words.
func (s *Spec) Words(pointer string) string {
	if s == nil || !strings.HasPrefix(pointer, "#/") {
		return ""
	}
	n, err := s.Resolve(pointer)
	if err != nil {
		return ""
	}
	key := pointer[strings.LastIndex(pointer, "/")+1:]
	key = docedit.Unescape(key)
	if n.Kind == yaml.ScalarNode {
		text := strings.Join(strings.Fields(n.Value), " ")
		if key != "description" && key != "summary" {
			text = key + ": " + text
		}
		if r := []rune(text); len(r) > maxWords {
			text = string(r[:maxWords-1]) + "…"
		}
		return text
	}
	out, err := yaml.Marshal(flow(n))
	if err != nil {
		return ""
	}
	text := key + ": " + strings.Join(strings.Fields(string(out)), " ")
	if len([]rune(text)) > maxWords {
		return ""
	}
	return text
}

// flow returns a copy of n with every mapping and sequence in flow style, to print on one line.
func flow(n *yaml.Node) *yaml.Node {
	c := *n
	if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
		c.Style |= yaml.FlowStyle
	}
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = flow(k)
	}
	return &c
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

// WebhookParameter is the pointer of the parameter named name of eventType's webhook
// (`#/webhooks/payout.success/post/parameters/2` for webhook-signature), "" when it declares none.
func (s *Spec) WebhookParameter(eventType, name string) string {
	for i := 0; ; i++ {
		p := fmt.Sprintf("#/webhooks/%s/post/parameters/%d", eventType, i)
		got, err := s.Text(p + "/name")
		if err != nil {
			return ""
		}
		if got == name {
			return p
		}
	}
}
