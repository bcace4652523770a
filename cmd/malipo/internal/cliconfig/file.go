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
	_, v := entry(f.root, key)
	return v != nil
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

// Join is the errors of Check and Apply as one, each mistake once, in the order of the lines: an
// error at a line and key that an earlier argument has an error at is the same mistake found again
// (Apply words a shape's mistake for the command's own flag, Check for every command's), and is left
// out.
func Join(errs ...error) error {
	type place struct {
		file, key string
		line      int
	}
	var all Errors
	seen := map[Error]bool{}
	reported := map[place]bool{}
	for _, err := range errs {
		var es Errors
		if !errors.As(err, &es) {
			if err != nil {
				return err
			}
			continue
		}
		var these []place
		for _, e := range es {
			at := place{e.File, e.Key, e.Line}
			if !seen[*e] && !reported[at] {
				seen[*e] = true
				all = append(all, e)
				these = append(these, at)
			}
		}
		for _, at := range these {
			reported[at] = true
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
// a flag of a command of its section or below, or the section of a command that reads the file (empty
// when it holds nothing); a flag given several times takes a list and any other one value, or nothing
// (null) in a command's section, which unsets it there; a secret is only ${NAME}; no key is given
// twice; a merge key (<<) merges mappings. The values themselves are checked when they are applied (Apply), by the command that
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
	badMerge := func(n *yaml.Node) {
		*errs = append(*errs, &Error{File: f.Path, Line: n.Line, Key: joinKey(prefix, "<<"),
			Msg: "a merge key takes a mapping (<<: *anchor) or a list of them, not " + kindName(n)})
	}
	for _, p := range pairs(m, badMerge) {
		k, v := p.k, p.v
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
		switch {
		case sub != nil && v.Kind == yaml.MappingNode:
			f.checkSection(v, sub, errs)
			continue
		case sub != nil && isNull(v):
			continue // a section with nothing in it yet, e.g. every key commented out
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
		f.checkValue(v, candidates, key, cmd.HasParent(), fail)
	}
}

// checkValue checks the shape of a flag's value: one value or a list as the flag takes, nothing (null)
// only in a command's section (nested), and a secret written only as ${NAME}. It never repeats a
// secret's value.
func (f *File) checkValue(v *yaml.Node, candidates []*owned, key string, nested bool, fail func(line int, format string, args ...any)) {
	takesList, takesOne, secret := false, false, (*pflag.Flag)(nil)
	for _, o := range candidates {
		if list(o.flag) {
			takesList = true
		} else {
			takesOne = true
		}
		// The suggestion names the variable a flag falls back to, when one does.
		if Secret(o.flag) && (secret == nil || Env(secret) == "") {
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
	case isNull(v) && nested:
		return // unsets what a section above gives
	case isNull(v):
		fail(v.Line, "has no value: give one, or remove the key (nothing, in a command's section, unsets what the top level gives)")
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
// own Set (each item, for a list) and checked against its fixed values (MarkEnum) and, for a flag of
// true or false or of numbers, against quotes that make it text. f may be nil: no file. A value of the
// wrong shape (checkValue) is an error and sets nothing, so that Apply may run on a file Check refused,
// to report every mistake at once (Join).
//
// A value the file gives is not used when the section nearest to cmd that has the key says nothing
// (null), when it is a secret of the top level whose variable is not set (the command goes on as
// without it: a file shared by commands that need a key and commands that do not), or when a flag it
// excludes has a value from nearer (MarkExclusive): Setting.Ignored says so.
func Apply(cmd *cobra.Command, f *File, env Lookup) ([]Setting, error) {
	var chain []section
	if f != nil && f.root != nil {
		chain = f.sections(cmd)
	}
	flags := Flags(cmd)
	origins := make([]origin, len(flags))
	byName := map[string]int{}
	for i, fl := range flags {
		origins[i] = f.origin(fl, chain, env)
		byName[fl.Name] = i
	}
	var errs Errors
	// Of flags that exclude each other, the nearest value wins; the ranks are the ones found above,
	// before any is dropped.
	dropped := map[int]string{}
	for i, o := range origins {
		for _, name := range Exclusive(o.s.Flag) {
			j, ok := byName[name]
			if !ok || o.rank < 0 || origins[j].rank < 0 {
				continue
			}
			q := origins[j]
			// Two at one level of the file are one mistake, reported at the later of their lines.
			later := q.s.Source.Line < o.s.Source.Line || q.s.Source.Line == o.s.Source.Line && name < o.s.Flag.Name
			switch {
			case q.rank < o.rank:
				dropped[i] = fmt.Sprintf("%s: --%s, which excludes it, is given %s", o.what(), name, q.where())
			case q.rank == o.rank && o.s.Source.Kind == FromFile && later:
				msg := fmt.Sprintf("excludes --%s, which line %d gives at the same level for %s: keep one", name, q.s.Source.Line, cmd.CommandPath())
				if o.s.Source.Key != joinKey(sectionPath(cmd), o.s.Flag.Name) { // not the command's own section
					msg += fmt.Sprintf(", or unset one in the section %s (%s: null)", sectionPath(cmd), name)
				}
				errs = append(errs, &Error{File: f.Path, Line: o.s.Source.Line, Key: o.s.Source.Key, Msg: msg})
			}
		}
	}
	out := make([]Setting, 0, len(flags))
	for i, o := range origins {
		s := o.s
		switch why, drop := dropped[i]; {
		case drop:
			s = Setting{Flag: s.Flag, Source: Source{Kind: Default}, Ignored: why, Dropped: true}
		case s.Source.Kind == FromFile:
			if err := f.set(s.Flag, o.v, s.Source.Key, env, &s.Source); err != nil {
				errs = append(errs, err...)
				continue
			}
			s.Flag.Changed = true
		}
		out = append(out, s)
	}
	return out, errs.err()
}

// origin is where a flag would take its value from, before the flags that exclude each other are
// weighed.
type origin struct {
	s Setting
	// rank is how near the value is given: 0 on the command line, then the file's sections that apply
	// (1 the nearest to the command, on out to the top level), then the environment; -1 for none (the
	// default).
	rank int
	v    *yaml.Node // the file's value, FromFile
}

// origin finds where fl takes its value from: the command line, the nearest section of chain that has
// it, the environment variable it falls back to, or its default.
func (f *File) origin(fl *pflag.Flag, chain []section, env Lookup) origin {
	s := Setting{Flag: fl}
	if fl.Changed {
		s.Source = Source{Kind: CommandLine}
		return origin{s: s, rank: 0}
	}
	i, key, k, v := lookup(chain, fl.Name)
	switch {
	case v == nil:
	case isNull(v):
		s.Ignored = fmt.Sprintf("unset by %s:%d %s", f.Path, k.Line, key)
	case i == 0 && Secret(fl) && unsetVariable(v, env) != "":
		s.Ignored = fmt.Sprintf("%s:%d %s: %s is not set", f.Path, k.Line, key, unsetVariable(v, env))
	default:
		s.Source = Source{Kind: FromFile, File: f.Path, Line: k.Line, Key: key}
		return origin{s: s, rank: len(chain) - i, v: v}
	}
	if Env(fl) != "" && envSet(env, Env(fl)) {
		s.Source = Source{Kind: Environment, Env: Env(fl)}
		return origin{s: s, rank: len(chain) + 1}
	}
	s.Source = Source{Kind: Default}
	return origin{s: s, rank: -1}
}

// what names the value of o, for a message: its line of the file, or its variable.
func (o origin) what() string {
	if o.s.Source.Kind == Environment {
		return "$" + o.s.Source.Env
	}
	return fmt.Sprintf("%s:%d %s", o.s.Source.File, o.s.Source.Line, o.s.Source.Key)
}

// where says where o's value is given, for a message.
func (o origin) where() string {
	if o.s.Source.Kind == CommandLine {
		return "on the command line"
	}
	return "by " + o.what()
}

// unsetVariable returns the first variable that v names and env lacks, or "".
func unsetVariable(v *yaml.Node, env Lookup) string {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	for _, item := range items {
		for _, m := range reference.FindAllStringSubmatch(resolve(item).Value, -1) {
			if _, ok := env(m[1]); m[1] != "" && !ok {
				return m[1]
			}
		}
	}
	return ""
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

// lookup finds the setting of the flag called name in the nearest section that has one: the section's
// index in chain, the key path, the key and the value (null when the section unsets it), or a nil
// value. A mapping under a key is a command's section, never a flag's value (Check refused any other).
func lookup(chain []section, name string) (i int, path string, k, v *yaml.Node) {
	for i := len(chain) - 1; i >= 0; i-- {
		if k, v := entry(chain[i].node, name); v != nil && v.Kind != yaml.MappingNode {
			return i, joinKey(chain[i].prefix, name), k, v
		}
	}
	return -1, "", nil, nil
}

// value returns the value of key in mapping m, or nil.
func value(m *yaml.Node, key string) *yaml.Node {
	_, v := entry(m, key)
	return v
}

// entry returns the key node and the value of key in mapping m, merge keys resolved, or nils.
func entry(m *yaml.Node, key string) (k, v *yaml.Node) {
	for _, p := range pairs(m, nil) {
		if p.k.Kind == yaml.ScalarNode && p.k.Value == key {
			return p.k, p.v
		}
	}
	return nil, nil
}

// pair is a key of a mapping and its value, aliases followed.
type pair struct{ k, v *yaml.Node }

// pairs returns the keys of mapping m with their values, YAML's merge keys resolved: m's own keys in
// their order (a key written twice, twice: Check refuses it), then the keys of each mapping merged in
// (<<: *anchor, or a list of them) that m and the mappings merged before it lack. A merge of anything
// else is passed to bad, when not nil, and left out.
func pairs(m *yaml.Node, bad func(*yaml.Node)) []pair {
	var own, merged []pair
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Tag != "!!merge" {
			own = append(own, pair{k, v})
			continue
		}
		from := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			from = v.Content
		}
		for _, src := range from {
			if src = resolve(src); src.Kind == yaml.MappingNode {
				merged = append(merged, pairs(src, bad)...)
			} else if bad != nil {
				bad(src)
			}
		}
	}
	has := map[string]bool{}
	for _, p := range own {
		has[p.k.Value] = true
	}
	for _, p := range merged {
		if !has[p.k.Value] {
			has[p.k.Value] = true
			own = append(own, p)
		}
	}
	return own
}

// set gives fl the value v, its environment variables replaced, and records the value as written in
// src when it names any.
func (f *File) set(fl *pflag.Flag, v *yaml.Node, key string, env Lookup, src *Source) Errors {
	var errs Errors
	fail := func(line int, msg string) { errs = append(errs, &Error{File: f.Path, Line: line, Key: key, Msg: msg}) }
	// The shape again, for this command's flag: nothing that Check refuses is ever set, a literal
	// secret least of all.
	f.checkValue(v, []*owned{{flag: fl}}, key, true, func(line int, format string, args ...any) { fail(line, fmt.Sprintf(format, args...)) })
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
	written := make([]string, 0, len(items))
	named := make([]bool, 0, len(items))
	for _, item := range items {
		text, names, err := expand(item.Value, env)
		if err != nil {
			fail(item.Line, err.Error())
			continue
		}
		values, written, named = append(values, text), append(written, item.Value), append(named, names)
	}
	if len(errs) > 0 {
		return errs
	}
	// The flag's own parser first, whose message knows the flag best; then the fixed values.
	if sv, ok := fl.Value.(pflag.SliceValue); ok && v.Kind == yaml.SequenceNode {
		if err := sv.Replace(values); err != nil {
			fail(v.Line, f.refused(fl, err, strings.Join(values, ","), strings.Join(written, ",")))
			return errs
		}
	} else {
		for i, text := range values {
			if err := fl.Value.Set(text); err != nil {
				fail(items[i].Line, fmt.Sprintf("%s: %s", f.shown(fl, written[i]), f.refused(fl, err, text, written[i])))
				return errs
			}
		}
	}
	t := fl.Value.Type()
	if list(fl) {
		t = elemType(fl)
	}
	for i, item := range items {
		if want := jsonType(fl, t); want != "" && item.Tag == "!!str" && !named[i] {
			fail(item.Line, fmt.Sprintf("%q is in quotes, which makes it text: --%s takes %s, written without quotes", item.Value, fl.Name, typeWords[want]))
		}
	}
	if enum := Enum(fl); enum != nil {
		for i, text := range values {
			if !slices.Contains(enum, text) {
				fail(items[i].Line, fmt.Sprintf("%s: use one of %s", f.shown(fl, written[i]), strings.Join(enum, ", ")))
			}
		}
	}
	if slices.Contains(named, true) {
		src.Written = strings.Join(written, ",")
	}
	return errs
}

// typeWords says what a value of a JSON type (jsonType) is, for a message.
var typeWords = map[string]string{"boolean": "true or false", "integer": "a whole number", "number": "a number"}

// shown is a value as a message may show it: as written, its variables not replaced, since a value
// that is not a secret may still hold one (a password in a URL); nothing of a secret's.
func (f *File) shown(fl *pflag.Flag, written string) string {
	if Secret(fl) {
		return "the value of " + written
	}
	return written
}

// refused words the error fl's Set returned for text, the value written as written, never repeating a
// secret or what a variable holds.
func (f *File) refused(fl *pflag.Flag, err error, text, written string) string {
	if f.opts.Cause != nil {
		err = f.opts.Cause(fl, err)
	}
	msg := err.Error()
	switch {
	case text == "" || !strings.Contains(msg, text):
	case Secret(fl):
		return "refused by --" + fl.Name
	case text != written:
		msg = strings.ReplaceAll(msg, text, written)
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

// isNull reports whether n says nothing: null, ~, or no value after the key.
func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }
