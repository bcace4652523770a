package cliconfig

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v4"
)

// File is a parsed settings file.
type File struct {
	// Path is the file as it was named, for messages.
	Path string
	root *yaml.Node // the top-level mapping; nil for an empty file
	opts Options
}

// Options are what the program adds to the file's messages.
type Options struct {
	// Suggest returns the known key nearest to a mistyped one, or "".
	Suggest func(typed string, known []string) string
	// Cause rewords the error a flag's Set returned for a value, as the program words it for the same
	// value on the command line. Nil keeps the error as it is.
	Cause func(fl *pflag.Flag, err error) error
}

// Load reads and parses the file at path. A file that is not YAML, or whose top level is not a
// mapping, is an error naming the file.
func Load(path string, opts Options) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		var le *yaml.LoadError
		if errors.As(err, &le) && le.Mark.Line > 0 {
			line, msg := le.Mark.Line, "not YAML: "+le.Message
			if le.ContextMsg != "" && le.ContextMark.Line > 0 {
				line, msg = le.ContextMark.Line, msg+" ("+le.ContextMsg+")" // where the construct began
			}
			return nil, &Error{File: path, Line: line, Msg: msg}
		}
		return nil, fmt.Errorf("%s: not YAML: %w", path, err)
	}
	f := &File{Path: path, opts: opts}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return f, nil // empty, or comments only
	}
	top := resolve(doc.Content[0])
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return f, nil
	}
	if top.Kind != yaml.MappingNode {
		return nil, &Error{File: path, Line: top.Line, Msg: "the file holds settings as key: value lines (a mapping), not " + kindName(top)}
	}
	f.root = top
	return f, nil
}

// Has reports whether the file's top level has key (whatever it holds).
func (f *File) Has(key string) bool {
	if f == nil || f.root == nil {
		return false
	}
	for i := 0; i < len(f.root.Content); i += 2 {
		if f.root.Content[i].Value == key {
			return true
		}
	}
	return false
}

// Error is one thing wrong in the file: where, which key, and what to do.
type Error struct {
	File string
	Line int
	Key  string // the key path, e.g. conform.wait; "" for the file as a whole
	Msg  string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
}

// Errors are all that is wrong in the file, in the order of its lines.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Join is the errors of Check and Apply as one, each mistake once, in the order of the lines.
func Join(errs ...error) error {
	var all Errors
	seen := map[Error]bool{}
	for _, err := range errs {
		var es Errors
		if !errors.As(err, &es) {
			if err != nil {
				return err
			}
			continue
		}
		for _, e := range es {
			if !seen[*e] {
				seen[*e] = true
				all = append(all, e)
			}
		}
	}
	return all.err()
}

func (es Errors) err() error {
	if len(es) == 0 {
		return nil
	}
	slices.SortStableFunc(es, func(a, b *Error) int { return a.Line - b.Line })
	return es
}

// Check checks the whole file against the commands under root, without setting anything: every key is
// a flag of a command of its section or below, or the section of a command that reads the file; a
// flag given several times takes a list and any other one value; a secret is only ${NAME}; no key is
// given twice. The values themselves are checked when they are applied (Apply), by the command that
// runs, since only its environment variables need to be set.
func (f *File) Check(root *cobra.Command) error {
	if f == nil || f.root == nil {
		return nil
	}
	var errs Errors
	f.checkSection(f.root, root, &errs)
	return errs.err()
}

func (f *File) checkSection(m *yaml.Node, cmd *cobra.Command, errs *Errors) {
	prefix := sectionPath(cmd)
	flags := flagsUnder(cmd)
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		key := joinKey(prefix, k.Value)
		fail := func(line int, format string, args ...any) {
			*errs = append(*errs, &Error{File: f.Path, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
		}
		if k.Kind != yaml.ScalarNode {
			fail(k.Line, "a key is a flag's or a command's name, not %s", kindName(k))
			continue
		}
		if first, twice := seen[k.Value]; twice {
			fail(k.Line, "given twice (first at line %d): keep one", first)
			continue
		}
		seen[k.Value] = k.Line
		sub := subcommand(cmd, k.Value)
		if sub != nil && v.Kind == yaml.MappingNode {
			f.checkSection(v, sub, errs)
			continue
		}
		candidates, ok := flags[k.Value]
		if !ok {
			if sub != nil {
				fail(k.Line, "holds the settings of %s: write them under it, one key: value a line", sub.CommandPath())
				continue
			}
			fail(k.Line, "%s", f.unknown(k.Value, cmd, flags))
			continue
		}
		f.checkValue(v, candidates, key, fail)
	}
}

// checkValue checks the shape of a flag's value: one value or a list as the flag takes, and a secret
// written only as ${NAME}. It never repeats a secret's value.
func (f *File) checkValue(v *yaml.Node, candidates []*owned, key string, fail func(line int, format string, args ...any)) {
	takesList, takesOne, secret := false, false, (*pflag.Flag)(nil)
	for _, o := range candidates {
		if list(o.flag) {
			takesList = true
		} else {
			takesOne = true
		}
		if Secret(o.flag) {
			secret = o.flag
		}
	}
	var items []*yaml.Node
	switch {
	case v.Kind == yaml.SequenceNode && !takesList:
		fail(v.Line, "takes one value, not a list")
		return
	case v.Kind == yaml.SequenceNode:
		for _, item := range v.Content {
			item = resolve(item)
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
				fail(item.Line, "each item of the list is one value, not %s", kindName(item))
				return
			}
			items = append(items, item)
		}
	case v.Kind == yaml.MappingNode:
		fail(v.Line, "takes a value, not a mapping (only a command's name holds settings)")
		return
	case v.Tag == "!!null":
		fail(v.Line, "has no value: give one, or remove the key")
		return
	case !takesOne:
		fail(v.Line, "takes a list: write [a, b], or one \"- item\" a line under the key")
		return
	default:
		items = []*yaml.Node{v}
	}
	if secret == nil {
		return
	}
	for _, item := range items {
		if !envReference.MatchString(item.Value) {
			fail(item.Line, "is a secret, which the file never holds (its value is not repeated here): put it in an environment variable and write %s: %s",
				secret.Name, envSuggestion(secret))
			return
		}
	}
}

// unknown says why key is not a setting of cmd's section: the commands that have the flag and where
// their sections are, or the nearest known key.
func (f *File) unknown(key string, cmd *cobra.Command, flags map[string][]*owned) string {
	nobody := "no command has --" + key
	switch {
	case len(tree(cmd)) == 1:
		nobody = cmd.CommandPath() + " has no --" + key
	case cmd.HasParent():
		nobody = fmt.Sprintf("neither %s nor a command under it has --%s", cmd.CommandPath(), key)
	}
	if elsewhere := flagsUnder(cmd.Root())[key]; len(elsewhere) > 0 {
		var cmds []*cobra.Command
		var sections []string
		for _, o := range elsewhere {
			cmds = append(cmds, o.cmds...)
			for _, c := range o.cmds {
				sections = append(sections, sectionPath(c))
			}
		}
		has := "has"
		if len(cmds) > 1 {
			has = "have"
		}
		return fmt.Sprintf("%s; %s %s it: put it in the section %s (or at the top level)", nobody, commandPaths(cmds), has, strings.Join(sections, " or "))
	}
	known := make([]string, 0, len(flags))
	for name := range flags {
		known = append(known, name)
	}
	for _, sub := range subcommands(cmd) {
		known = append(known, sub.Name())
	}
	msg := "unknown key: " + nobody
	if f.opts.Suggest != nil {
		if s := f.opts.Suggest(key, known); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
	}
	return msg
}

// Lookup finds an environment variable, as os.LookupEnv does.
type Lookup func(name string) (string, bool)

// Apply sets the flags of cmd that the command line left unset from the file's sections for cmd, the
// nearest first, marking them changed as if given, and returns where every flag of cmd (Flags) took its
// value from. Each value names its environment variables as ${NAME}, and is then parsed by the flag's
// own Set (each item, for a list) and checked against its fixed values (MarkEnum). f may be nil: no
// file. A value of the wrong shape (checkValue) is an error and sets nothing, so that Apply may run on
// a file Check refused, to report every mistake at once (Join).
func Apply(cmd *cobra.Command, f *File, env Lookup) ([]Setting, error) {
	var chain []section
	if f != nil && f.root != nil {
		chain = f.sections(cmd)
	}
	var errs Errors
	var out []Setting
	for _, fl := range Flags(cmd) {
		s := Setting{Flag: fl}
		switch key, k, v := lookup(chain, fl.Name); {
		case fl.Changed:
			s.Source = Source{Kind: CommandLine}
		case v != nil:
			s.Source = Source{Kind: FromFile, File: f.Path, Line: k.Line, Key: key}
			if err := f.set(fl, v, key, env, &s.Source); err != nil {
				errs = append(errs, err...)
				continue
			}
			fl.Changed = true
		case Env(fl) != "" && envSet(env, Env(fl)):
			s.Source = Source{Kind: Environment, Env: Env(fl)}
		default:
			s.Source = Source{Kind: Default}
		}
		out = append(out, s)
	}
	return out, errs.err()
}

func envSet(env Lookup, name string) bool {
	v, ok := env(name)
	return ok && strings.TrimSpace(v) != ""
}

// section is a mapping of the file that holds settings of a command, with its key path.
type section struct {
	node   *yaml.Node
	prefix string
	cmd    *cobra.Command
}

// sections returns the sections whose settings apply to cmd, the nearest last: the top level, then
// each command's on the way to cmd that the file has.
func (f *File) sections(cmd *cobra.Command) []section {
	var path []*cobra.Command
	for c := cmd; c.HasParent(); c = c.Parent() {
		path = append([]*cobra.Command{c}, path...)
	}
	out := []section{{node: f.root, cmd: cmd.Root()}}
	for _, c := range path {
		last := out[len(out)-1]
		next := value(last.node, c.Name())
		if next == nil || next.Kind != yaml.MappingNode {
			break
		}
		out = append(out, section{node: next, prefix: joinKey(last.prefix, c.Name()), cmd: c})
	}
	return out
}

// lookup finds the setting of the flag called name in the nearest section that has one: its key path,
// key and value, or a nil value. A mapping under a key is a command's section, never a flag's value
// (Check refused any other).
func lookup(chain []section, name string) (path string, k, v *yaml.Node) {
	for i := len(chain) - 1; i >= 0; i-- {
		if k, v := entry(chain[i].node, name); v != nil && v.Kind != yaml.MappingNode {
			return joinKey(chain[i].prefix, name), k, v
		}
	}
	return "", nil, nil
}

// value returns the value of key in mapping m, or nil.
func value(m *yaml.Node, key string) *yaml.Node {
	_, v := entry(m, key)
	return v
}

// entry returns the key node and the value of key in mapping m, or nils.
func entry(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == key {
			return m.Content[i], resolve(m.Content[i+1])
		}
	}
	return nil, nil
}

// set gives fl the value v, its environment variables replaced, and records the value as written in
// src when it names any.
func (f *File) set(fl *pflag.Flag, v *yaml.Node, key string, env Lookup, src *Source) Errors {
	var errs Errors
	fail := func(line int, msg string) { errs = append(errs, &Error{File: f.Path, Line: line, Key: key, Msg: msg}) }
	// The shape again, for this command's flag: nothing that Check refuses is ever set, a literal
	// secret least of all.
	f.checkValue(v, []*owned{{flag: fl}}, key, func(line int, format string, args ...any) { fail(line, fmt.Sprintf(format, args...)) })
	if len(errs) > 0 {
		return errs
	}
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = nil
		for _, item := range v.Content {
			items = append(items, resolve(item))
		}
	}
	values := make([]string, 0, len(items))
	var written []string
	for _, item := range items {
		text, named, err := expand(item.Value, env)
		if err != nil {
			fail(item.Line, err.Error())
			continue
		}
		if named {
			written = append(written, item.Value)
		}
		values = append(values, text)
	}
	if len(errs) > 0 {
		return errs
	}
	// The flag's own parser first, whose message knows the flag best; then the fixed values.
	if sv, ok := fl.Value.(pflag.SliceValue); ok && v.Kind == yaml.SequenceNode {
		if err := sv.Replace(values); err != nil {
			fail(v.Line, f.refused(fl, err, strings.Join(values, ", ")))
			return errs
		}
	} else {
		for i, text := range values {
			if err := fl.Value.Set(text); err != nil {
				fail(items[i].Line, fmt.Sprintf("%s: %s", f.shown(fl, items[i].Value, text), f.refused(fl, err, text)))
				return errs
			}
		}
	}
	if enum := Enum(fl); enum != nil {
		for i, text := range values {
			if !slices.Contains(enum, text) {
				fail(items[i].Line, fmt.Sprintf("%s: use one of %s", f.shown(fl, items[i].Value, text), strings.Join(enum, ", ")))
			}
		}
	}
	if len(written) > 0 {
		src.Written = strings.Join(written, ", ")
	}
	return errs
}

// shown is a value as a message may show it: as written, and what it became when it names variables;
// nothing of a secret's.
func (f *File) shown(fl *pflag.Flag, written, text string) string {
	switch {
	case Secret(fl):
		return "the value of " + written
	case written != text:
		return fmt.Sprintf("%s (%q)", written, text)
	}
	return written
}

// refused words the error fl's Set returned for text, never repeating a secret.
func (f *File) refused(fl *pflag.Flag, err error, text string) string {
	if f.opts.Cause != nil {
		err = f.opts.Cause(fl, err)
	}
	msg := err.Error()
	if Secret(fl) && text != "" && strings.Contains(msg, text) {
		return "refused by --" + fl.Name
	}
	return msg
}

// envReference is a secret's value in the file: one environment variable, whole.
var envReference = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`)

// reference finds ${NAME}, or the $${ that writes a literal ${.
var reference = regexp.MustCompile(`\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\{`)

// expand replaces each ${NAME} in s by the variable's value; $${ is a literal ${. A variable that is
// not set, or a ${ that does not name one, is an error naming it. named reports whether s named any.
func expand(s string, env Lookup) (out string, named bool, err error) {
	var b strings.Builder
	last := 0
	for _, m := range reference.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		last = m[1]
		switch {
		case s[m[0]:m[1]] == "$${":
			b.WriteString("${")
		case m[2] < 0:
			return "", false, errors.New("a ${ that names no variable: write ${NAME} (letters, digits, _), or $${ for a literal ${")
		default:
			name := s[m[2]:m[3]]
			v, ok := env(name)
			if !ok {
				return "", false, fmt.Errorf("${%s}: the environment variable %s is not set: set it, or remove the key", name, name)
			}
			named = true
			b.WriteString(v)
		}
	}
	b.WriteString(s[last:])
	return b.String(), named, nil
}

// resolve follows an alias (*anchor) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return "a single value"
}
