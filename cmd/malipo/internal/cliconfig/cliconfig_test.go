package cliconfig

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"
)

// testTree is a small command tree: tool, whose flag --file is not the file's; a and b, which read
// the file, a with a subcommand sub that inherits a's persistent --shared, and secrets --key and
// --token that exclude each other; other, which does not.
type testTree struct {
	root, a, sub, b, other *cobra.Command
	aWait, bWait           time.Duration
	aKey, aName, shared    string
	aToken                 string
	only                   string
	tags                   []string
	n                      int
}

func newTestTree() *testTree {
	t := &testTree{}
	noop := func(*cobra.Command, []string) error { return nil }
	t.root = &cobra.Command{Use: "tool"}
	t.root.PersistentFlags().String("file", "", "the settings `file`")
	t.a = &cobra.Command{Use: "a", Short: "command a", RunE: noop}
	fs := t.a.Flags()
	fs.DurationVar(&t.aWait, "wait", 20*time.Second, "how long to `wait`")
	fs.StringVar(&t.aKey, "key", "", "the secret `key`")
	MarkSecret(fs.Lookup("key"))
	MarkEnv(fs.Lookup("key"), "A_KEY")
	fs.StringVar(&t.aToken, "token", "", "another secret, instead of --key")
	MarkSecret(fs.Lookup("token"))
	MarkExclusive(fs.Lookup("key"), fs.Lookup("token"))
	fs.StringSliceVar(&t.tags, "tags", nil, "tags to keep")
	MarkEnum(fs.Lookup("tags"), "x", "y")
	fs.IntVar(&t.n, "n", 3, "how many")
	fs.StringVar(&t.aName, "name", "", "a name")
	t.a.PersistentFlags().StringVar(&t.shared, "shared", "", "shared with sub")
	t.sub = &cobra.Command{Use: "sub", Short: "command a sub", RunE: noop}
	t.sub.Flags().StringVar(&t.only, "only", "", "sub's own")
	t.a.AddCommand(t.sub)
	t.b = &cobra.Command{Use: "b", Short: "command b", RunE: noop}
	t.b.Flags().DurationVar(&t.bWait, "wait", time.Second, "how long b waits")
	t.other = &cobra.Command{Use: "other", RunE: noop}
	t.other.Flags().String("zzz", "", "not in the file")
	t.root.AddCommand(t.a, t.b, t.other)
	Configure(t.a)
	Configure(t.b)
	for _, c := range []*cobra.Command{t.root, t.a, t.sub, t.b, t.other} {
		c.InitDefaultHelpFlag()
	}
	return t
}

// parse parses args for cmd as cobra does before running it.
func parse(t *testing.T, cmd *cobra.Command, args ...string) {
	t.Helper()
	require.NoError(t, cmd.ParseFlags(args))
}

// applyToA checks f against a new test tree, parses args for its command a and applies f to a with
// env, as the CLI does before a command runs; any error fails the test.
func applyToA(t *testing.T, f *File, env Lookup, args ...string) (*testTree, []Setting) {
	t.Helper()
	tt := newTestTree()
	require.NoError(t, f.Check(tt.root))
	parse(t, tt.a, args...)
	settings, err := Apply(tt.a, f, env)
	require.NoError(t, err)
	return tt, settings
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "settings.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

func load(t *testing.T, text string) *File {
	t.Helper()
	f, err := Load(writeFile(t, text), Options{})
	require.NoError(t, err)
	return f
}

func envOf(vars map[string]string) Lookup {
	return func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
}

func settingOf(settings []Setting, name string) Setting {
	for _, s := range settings {
		if s.Flag.Name == name {
			return s
		}
	}
	return Setting{Source: Source{Kind: -1}}
}

func sourceOf(settings []Setting, name string) Source {
	for _, s := range settings {
		if s.Flag.Name == name {
			return s.Source
		}
	}
	return Source{Kind: -1}
}

// A setting reaches every command below its section that has the flag, the nearest section wins, the
// command line wins over all, and each flag says where its value came from.
func TestApplyNearestSectionWins(t *testing.T) {
	f := load(t, `
wait: 5s
shared: top
a:
  wait: 7s
  tags: [x, y]
  sub:
    shared: from-sub
  # a comment
b: {}
`)
	tt, settings := applyToA(t, f, envOf(nil), "--n", "9")
	assert.Equal(t, 7*time.Second, tt.aWait, "a's section over the top level")
	assert.Equal(t, []string{"x", "y"}, tt.tags)
	assert.Equal(t, 9, tt.n, "the command line over the file")
	assert.Equal(t, "top", tt.shared)
	assert.Equal(t, Source{Kind: FromFile, File: f.Path, Line: 5, Key: "a.wait"}, sourceOf(settings, "wait"))
	assert.Equal(t, CommandLine, sourceOf(settings, "n").Kind)
	assert.Equal(t, Default, sourceOf(settings, "name").Kind)
	assert.True(t, tt.a.Flags().Changed("wait"), "a setting from the file counts as given")
	assert.Equal(t, Source{Kind: -1}, sourceOf(settings, "file"), "the root's flags are not the file's")
	assert.Equal(t, Source{Kind: -1}, sourceOf(settings, "help"))

	tt = newTestTree()
	parse(t, tt.sub)
	settings, err := Apply(tt.sub, f, envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, "from-sub", tt.shared, "a persistent flag, set in the section of the command under its owner")
	assert.Equal(t, "a.sub.shared", sourceOf(settings, "shared").Key)

	tt = newTestTree()
	parse(t, tt.b)
	_, err = Apply(tt.b, f, envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, tt.bWait, "b has no wait of its own in the file: the top level's")
}

func TestApplyEnvironment(t *testing.T) {
	f := load(t, `
name: pre-${X}-$${LITERAL}
a:
  key: ${SECRET}
  tags: [x, "${TAG}"]
`)
	tt, settings := applyToA(t, f, envOf(map[string]string{"X": "ex", "SECRET": "s3cr3t", "TAG": "y"}))
	assert.Equal(t, "pre-ex-${LITERAL}", tt.aName)
	assert.Equal(t, "s3cr3t", tt.aKey)
	assert.Equal(t, []string{"x", "y"}, tt.tags)
	key := settings[0]
	for _, s := range settings {
		if s.Flag.Name == "key" {
			key = s
		}
	}
	assert.Equal(t, "${SECRET}", key.Source.Written)
	var out bytes.Buffer
	require.NoError(t, WriteSettings(&out, settings, envOf(nil)))
	assert.NotContains(t, out.String(), "s3cr3t")
	assert.Contains(t, out.String(), Redacted)
	assert.Regexp(t, `(?m)^--name\s+pre-\$\{X\}-\$\$\{LITERAL\}\s+\S+:2 name$`, out.String(),
		"a value that names variables is shown as written: it may hold a secret too")
	assert.NotContains(t, out.String(), "pre-ex")

	// Without the file, the variable a flag defaults to is where it comes from, and is redacted too.
	tt = newTestTree()
	parse(t, tt.a)
	settings, err := Apply(tt.a, nil, envOf(map[string]string{"A_KEY": "from-env"}))
	require.NoError(t, err)
	assert.Equal(t, Source{Kind: Environment, Env: "A_KEY"}, sourceOf(settings, "key"))
	out.Reset()
	require.NoError(t, WriteSettings(&out, settings, envOf(map[string]string{"A_KEY": "from-env"})))
	assert.NotContains(t, out.String(), "from-env")
	assert.Regexp(t, `--key\s+<redacted>\s+environment A_KEY`, out.String())
}

// Of two flags that exclude each other, the value given nearest wins (the command line, the command's
// section, the sections above, the environment) and the other is dropped, without an error, saying
// so; a section's null unsets a key of a section above.
func TestApplyExclusiveNearestWins(t *testing.T) {
	env := envOf(map[string]string{"K": "from-k", "T": "from-t", "A_KEY": "from-a-key"})
	cases := []struct {
		name, file string
		args       []string
		key, token string
		kept       string // the flag that keeps a value
		ignored    string // a regular expression: why the other has none; FILE is the file's path
	}{
		{"the command line over the top level", "key: ${K}\n", []string{"--token", "cli"}, "", "cli", "token",
			`^FILE:1 key: --token, which excludes it, is given on the command line$`},
		{"the command's section over the top level", "key: ${K}\na:\n  token: ${T}\n", nil, "", "from-t", "token",
			`^FILE:1 key: --token, which excludes it, is given by FILE:3 a.token$`},
		{"the top level over the environment", "token: ${T}\n", nil, "", "from-t", "token",
			`^\$A_KEY: --token, which excludes it, is given by FILE:1 token$`},
		{"a section unsets the top level's", "token: ${T}\na:\n  token: ~\n", nil, "", "", "key",
			`^unset by FILE:3 a.token$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := load(t, c.file)
			tt, settings := applyToA(t, f, env, c.args...)
			assert.Equal(t, c.key, tt.aKey)
			assert.Equal(t, c.token, tt.aToken)
			other := map[string]string{"key": "token", "token": "key"}[c.kept]
			s := settingOf(settings, other)
			assert.Equal(t, Default, s.Source.Kind)
			assert.Regexp(t, strings.ReplaceAll(c.ignored, "FILE", regexpQuote(f.Path)), s.Ignored)
			assert.Equal(t, !strings.HasPrefix(c.ignored, "^unset"), s.Dropped, "a value dropped for the other flag is said when the command runs")
			var out bytes.Buffer
			require.NoError(t, WriteSettings(&out, settings, env))
			assert.Contains(t, out.String(), "default; ignored ")
			assert.NotContains(t, out.String(), "from-")
		})
	}
	// Unset, the flag falls back to its variable.
	f := load(t, "key: ${K}\na:\n  key: null\n")
	tt := newTestTree()
	parse(t, tt.a)
	settings, err := Apply(tt.a, f, env)
	require.NoError(t, err)
	assert.Equal(t, Source{Kind: Environment, Env: "A_KEY"}, settingOf(settings, "key").Source)
	assert.Empty(t, tt.aKey, "the command reads the variable itself")
}

// A secret of the top level whose variable is not set is left out for the command, which goes on as
// without the key (its variable, its default); in a command's section, or for a value that is not a
// secret, it is an error (TestErrors).
func TestApplyTopLevelSecretWithUnsetVariable(t *testing.T) {
	f := load(t, "key: ${NOPE}\nwait: 3s\n")
	tt, settings := applyToA(t, f, envOf(nil))
	assert.Empty(t, tt.aKey)
	assert.Equal(t, 3*time.Second, tt.aWait, "the rest of the file applies")
	key := settingOf(settings, "key")
	assert.Equal(t, Default, key.Source.Kind)
	assert.Equal(t, f.Path+":1 key: NOPE is not set", key.Ignored)
	assert.False(t, key.Dropped)

	tt = newTestTree()
	parse(t, tt.a)
	settings, err := Apply(tt.a, f, envOf(map[string]string{"A_KEY": "k"}))
	require.NoError(t, err)
	assert.Equal(t, Source{Kind: Environment, Env: "A_KEY"}, settingOf(settings, "key").Source)
}

// A section with nothing in it (null, or its keys all commented out) is empty; a flag's key with
// nothing is an error only at the top level, where there is nothing to unset.
func TestEmptySectionsAndNulls(t *testing.T) {
	for _, text := range []string{"a:\n", "a: ~\n", "a:\n  # wait: 1s\nb: null\n", "a:\n  sub:\n  name:\n  wait: ~\n"} {
		f := load(t, text)
		tt := newTestTree()
		require.NoError(t, f.Check(tt.root), "%q", text)
		for _, cmd := range []*cobra.Command{tt.a, tt.sub, tt.b} {
			parse(t, cmd)
			_, err := Apply(cmd, f, envOf(nil))
			require.NoError(t, err, "%q", text)
		}
		assert.Equal(t, 20*time.Second, tt.aWait, "%q", text)
	}
	err := load(t, "wait:\n").Check(newTestTree().root)
	require.Error(t, err)
	assert.Contains(t, err.Error(), ":1: wait: has no value")
}

// YAML's merge keys (<<: *anchor, or a list of them) merge mappings into a section: the section's own
// keys first, then the first merged mapping's; each setting says the line it is written on.
func TestMergeKeys(t *testing.T) {
	f := load(t, `a:
  <<: [&w {wait: 5s, name: from-w}, {n: 4, name: from-second}]
  name: own
  sub:
    <<: {shared: merged}
b:
  <<: *w
`)
	tt := newTestTree()
	require.Error(t, f.Check(tt.root), "b has no --name, merged or not")

	f = load(t, `a:
  <<: [&w {wait: 5s}, {n: 4, wait: 1s, name: merged}]
  name: own
  sub:
    <<: {shared: merged}
b:
  <<: *w
`)
	require.NoError(t, f.Check(tt.root))
	parse(t, tt.a)
	settings, err := Apply(tt.a, f, envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, tt.aWait, "the first merged mapping wins")
	assert.Equal(t, 4, tt.n)
	assert.Equal(t, "own", tt.aName, "a key of the section wins over a merged one")
	assert.Equal(t, Source{Kind: FromFile, File: f.Path, Line: 2, Key: "a.wait"}, sourceOf(settings, "wait"))
	parse(t, tt.sub)
	_, err = Apply(tt.sub, f, envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, "merged", tt.shared)
	parse(t, tt.b)
	_, err = Apply(tt.b, f, envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, tt.bWait, "a merged anchor")
}

// Join reports a mistake once: one that a later error list finds again at the same line and key,
// worded otherwise, is left out; distinct mistakes on one line are kept.
func TestJoinReportsAPlaceOnce(t *testing.T) {
	check := Errors{{File: "f", Line: 1, Key: "key", Msg: "write key: ${A_KEY}"}, {File: "f", Line: 2, Key: "tags", Msg: "z: use one of x, y"}, {File: "f", Line: 2, Key: "tags", Msg: "w: use one of x, y"}}
	apply := Errors{{File: "f", Line: 1, Key: "key", Msg: "write key: ${NAME}"}, {File: "f", Line: 3, Key: "n", Msg: "not a whole number"}}
	err := Join(check, apply)
	var es Errors
	require.ErrorAs(t, err, &es)
	assert.Equal(t, Errors{check[0], check[1], check[2], apply[1]}, es)
}

// Every mistake is an error naming the file, the line and the key, and a secret's value is never in
// one.
func TestErrors(t *testing.T) {
	cases := []struct {
		name, file string
		env        map[string]string
		cmd        func(*testTree) *cobra.Command
		want       string // a regular expression; the file's path is FILE
	}{
		{name: "unknown top-level key", file: "a: {}\nwiat: 1s\n", want: `^FILE:2: wiat: unknown key: no command has --wiat$`},
		{name: "a flag of a command that does not read the file", file: "zzz: 1\n", want: `^FILE:1: zzz: unknown key`},
		{name: "the root's own flag", file: "file: x\n", want: `^FILE:1: file: unknown key`},
		{name: "a flag of another command", file: "b:\n  name: x\n", want: `^FILE:2: b.name: tool b has no --name; tool a has it: put it in the section a \(or at the top level\)$`},
		{name: "a key under a command without it", file: "a:\n  sub:\n    tags: [x]\n", want: `^FILE:3: a.sub.tags: tool a sub has no --tags; tool a has it`},
		{name: "twice", file: "name: x\nwait: 1s\nname: y\n", want: `^FILE:3: name: given twice \(first at line 1\): keep one$`},
		{name: "a list for one value", file: "name: [x, y]\n", want: `^FILE:1: name: takes one value, not a list$`},
		{name: "one value for a list", file: "tags: x\n", want: `^FILE:1: tags: takes a list`},
		{name: "a mapping for a value", file: "name:\n  x: 1\n", want: `^FILE:2: name: takes a value, not a mapping`},
		{name: "nothing", file: "name:\n", want: `^FILE:1: name: has no value`},
		{name: "a command's section as a value", file: "sub: x\n", want: `^FILE:1: sub: unknown key`},
		{name: "a.sub as a value", file: "a:\n  sub: x\n", want: `^FILE:2: a.sub: holds the settings of tool a sub`},
		{name: "literal secret", file: "a:\n  key: hunter2\n", want: `^FILE:2: a.key: is a secret, which the file never holds \(its value is not repeated here\): put it in an environment variable and write key: \$\{A_KEY\}$`},
		{name: "secret inside a string", file: "key: pre${A}\n", want: `^FILE:1: key: is a secret`},
		{name: "unset variable", file: "name: x-${NOPE}\n", want: `^FILE:1: name: \$\{NOPE\}: the environment variable NOPE is not set: set it, or remove the key$`},
		{name: "a ${ naming nothing", file: "name: x-${1}\n", want: `^FILE:1: name: a \$\{ that names no variable`},
		{name: "wrong type", file: "a:\n  wait: 5\n", want: `^FILE:2: a.wait: 5: time: missing unit in duration "5"$`},
		{name: "wrong type from a variable", file: "n: ${N}\n", env: map[string]string{"N": "hunter2"}, want: `^FILE:1: n: \$\{N\}: strconv.ParseInt: parsing "\$\{N\}": invalid syntax$`},
		{name: "a number in quotes", file: "a:\n  n: \"4\"\n", want: `^FILE:2: a.n: "4" is in quotes, which makes it text: --n takes a whole number, written without quotes$`},
		{name: "a number in a tagged string", file: "n: !!str 4\n", want: `^FILE:1: n: "4" is in quotes`},
		{name: "a merge of a value", file: "a:\n  <<: 5\n", want: `^FILE:2: a.<<: a merge key takes a mapping \(<<: \*anchor\) or a list of them, not a single value$`},
		{name: "exclusive flags in one section", file: "a:\n  key: ${K}\n  token: ${T}\n", env: map[string]string{"K": "k", "T": "t"},
			want: `^FILE:3: a.token: excludes --key, which line 2 gives at the same level for tool a: keep one$`},
		{name: "exclusive flags at the top level", file: "token: ${T}\nkey: ${K}\n", env: map[string]string{"K": "k", "T": "t"},
			want: `^FILE:2: key: excludes --token, which line 1 gives at the same level for tool a: keep one, or unset one in the section a \(token: null\)$`},
		{name: "a secret of a section whose variable is not set", file: "a:\n  key: ${NOPE}\n", want: `^FILE:2: a.key: \$\{NOPE\}: the environment variable NOPE is not set`},
		{name: "not one of the values", file: "tags: [x, z]\n", want: `^FILE:1: tags: z: use one of x, y$`},
		{name: "not a mapping", file: "- a\n", want: `^FILE:1: the file holds settings as key: value lines \(a mapping\), not a list$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.file)
			tt := newTestTree()
			cmd := tt.a
			f, err := Load(path, Options{})
			if err == nil {
				err = f.Check(tt.root)
			}
			if err == nil {
				parse(t, cmd)
				_, err = Apply(cmd, f, envOf(c.env))
			}
			require.Error(t, err)
			assert.Regexp(t, strings.ReplaceAll(c.want, "FILE", regexpQuote(path)), err.Error())
			assert.NotContains(t, err.Error(), "hunter2")
		})
	}
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestSuggest(t *testing.T) {
	f, err := Load(writeFile(t, "a:\n  wiat: 1s\n"), Options{Suggest: func(typed string, known []string) string {
		assert.Equal(t, "wiat", typed)
		assert.Contains(t, known, "wait")
		assert.Contains(t, known, "sub", "a command under the section is a key too")
		return "wait"
	}})
	require.NoError(t, err)
	err = f.Check(newTestTree().root)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a.wiat: unknown key: neither tool a nor a command under it has --wiat; did you mean wait?")
}

func TestAliasesAndEmptyFiles(t *testing.T) {
	tt, _ := applyToA(t, load(t, "name: &n shared-name\na:\n  shared: *n\n"), envOf(nil))
	assert.Equal(t, "shared-name", tt.shared)

	for _, text := range []string{"", "# nothing yet\n", "~\n"} {
		f := load(t, text)
		tt := newTestTree()
		require.NoError(t, f.Check(tt.root))
		parse(t, tt.a)
		settings, err := Apply(tt.a, f, envOf(nil))
		require.NoError(t, err, "%q", text)
		assert.NotEmpty(t, settings)
	}
}

// The schema describes the test tree: it accepts what Check and Apply accept, and refuses the mistakes
// of TestErrors that a schema can see.
func TestSchemaAgreesWithTheLoader(t *testing.T) {
	tt := newTestTree()
	data, err := Schema(tt.root, "https://example.org/tool.schema.json")
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("https://example.org/tool.schema.json", doc))
	schema, err := c.Compile("https://example.org/tool.schema.json")
	require.NoError(t, err)

	valid := []string{
		"wait: 5s\nshared: top\na:\n  wait: 0\n  tags: [x, y]\n  n: 4\n  key: ${A_KEY}\n  sub:\n    shared: s\n    only: o\nb:\n  wait: 1h30m\n",
		"n: ${N}\nname: pre-${X}\n",
		"",
		"a:\n  name:\n  wait: ~\n  sub:\nb: null\n",
	}
	invalid := []string{
		"wiat: 1s\n", "zzz: 1\n", "file: x\n", "b:\n  name: x\n", "name: [x]\n", "tags: x\n", "tags: [z]\n",
		"key: hunter2\n", "key: pre${A}\n", "a:\n  wait: 5\n", "a:\n  wait: 5 s\n", "n: many\n", "name:\n",
		"a:\n  n: \"4\"\n", "tags: [x, null]\n", "a: {sub: {only: null, shared: [x]}}\n",
	}
	for _, text := range valid {
		assert.NoError(t, schema.Validate(yamlAsJSON(t, text)), "%q", text)
		f := load(t, text)
		tt := newTestTree()
		require.NoError(t, f.Check(tt.root), "%q", text)
		for _, cmd := range []*cobra.Command{tt.a, tt.sub, tt.b} {
			parse(t, cmd)
			_, err := Apply(cmd, f, envOf(map[string]string{"A_KEY": "k", "N": "2", "X": "x"}))
			assert.NoError(t, err, "%s: %q", cmd.Name(), text)
		}
	}
	for _, text := range invalid {
		assert.Error(t, schema.Validate(yamlAsJSON(t, text)), "%q", text)
	}
	var parsed map[string]any
	require.NoError(t, json.Unmarshal(data, &parsed))
	props := parsed["properties"].(map[string]any)
	for _, key := range []string{"wait", "key", "tags", "n", "name", "shared", "only", "a", "b"} {
		assert.Contains(t, props, key, "the top level takes every flag of every command under it")
	}
	assert.NotContains(t, props, "help")
	assert.NotContains(t, props, "file")
	assert.NotContains(t, props, "zzz")
}

// yamlAsJSON is a YAML document as a JSON Schema validator takes it.
func yamlAsJSON(t *testing.T, text string) any {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal([]byte(text), &v))
	if v == nil {
		v = map[string]any{}
	}
	data, err := json.Marshal(v)
	require.NoError(t, err)
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	return out
}

func TestFlagsAreTheConfiguredOnes(t *testing.T) {
	tt := newTestTree()
	names := func(fls []*pflag.Flag) []string {
		var out []string
		for _, fl := range fls {
			out = append(out, fl.Name)
		}
		return out
	}
	assert.Equal(t, []string{"key", "n", "name", "shared", "tags", "token", "wait"}, names(Flags(tt.a)))
	assert.Equal(t, []string{"only", "shared"}, names(Flags(tt.sub)))
	assert.Empty(t, Flags(tt.other))
	assert.Empty(t, Flags(tt.root))
}
