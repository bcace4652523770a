package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// documentPatterns returns every `pattern` keyword of the document with where it stands.
func documentPatterns(t *testing.T) map[string]string {
	t.Helper()
	var root yaml.Node
	require.NoError(t, yaml.Unmarshal(openapi.YAML(), &root))
	out := map[string]string{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, path+"/"+strconv.Itoa(i))
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "pattern" && v.Kind == yaml.ScalarNode {
					out[path+"/pattern"] = v.Value
					continue
				}
				walk(v, path+"/"+k.Value)
			}
		}
	}
	walk(&root, "#")
	require.NotEmpty(t, out)
	return out
}

// dialectCorpus is every input both engines judge: strings some pattern accepts, each with every
// troublesome character put at the front, in the middle and at the end, and those characters alone.
func dialectCorpus() []string {
	bases := []string{
		"", "a", "ZM", "ZMW", "1795263300", "260970000001", "po_5d1e7b3c2a9f8e40", "order-1042", "ABC123",
		"v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=", "v1,abc= v1,def=",
		"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "https://merchant.example.org/hooks/malipo",
		"http://[::1]:8080/h?x=1#f", "https://user:p%24@xn--bcher-kva.example/a(b)*c;d=e,f!g$h&i'j~k",
	}
	var special []rune
	for r := rune(0); r <= 0x20; r++ { // C0 controls and space
		special = append(special, r)
	}
	special = append(special, 0x7f, 0x80, 0x85, 0x9f, 0xa0, 0x1680, 0x180e)
	for r := rune(0x2000); r <= 0x200f; r++ { // every Unicode space of that block, and zero-width marks
		special = append(special, r)
	}
	special = append(special, 0x2028, 0x2029, 0x202f, 0x205f, 0x2060, 0x3000, 0xfeff, 0xfffd,
		'é', 'ß', 'Ж', '中', 'İ', 'ı', 'ſ', 0x212a /* KELVIN SIGN */, 0x1d538 /* 𝔸, outside the BMP */, '٣' /* Arabic-Indic 3 */, '１',
		'"', '<', '>', '\\', '^', '`', '{', '|', '}', '\'', '[', ']', '%', '$', '.', '_', '-', '~', ':', '/', '?', '#', '@', '+', '=', ',')
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, b := range bases {
		add(b)
		for _, r := range special {
			c := string(r)
			add(c)
			add(c + b)
			add(b + c)
			add(b[:len(b)/2] + c + b[len(b)/2:])
		}
	}
	return out
}

// TestPatternsMeanTheSameInEveryDialect: JSON Schema's `pattern` is ECMA-262, but Go validators (ours,
// libopenapi-validator) evaluate it with RE2, and the dialects differ (`\s`, `\d`, `\w`, `.`, `$` and
// case folding among others). Every pattern of the document must give the same verdict in both on a
// corpus of every Unicode space and line separator, control characters and non-ASCII letters, or a
// value the sandbox accepts is one a JavaScript or Java client refuses. Node is required: make test
// installs the Node tools and this test must not pass by skipping.
func TestPatternsMeanTheSameInEveryDialect(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is needed to evaluate the patterns as ECMA-262 does; install Node.js 20+")
	patterns := documentPatterns(t)
	corpus := dialectCorpus()
	var where, sources []string
	for w, p := range patterns {
		where = append(where, w)
		sources = append(sources, p)
	}
	in, err := json.Marshal(map[string]any{"patterns": sources, "inputs": corpus})
	require.NoError(t, err)
	// JSON.stringify escapes lone surrogates, and Go decodes them; none are in the corpus.
	const script = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const {patterns,inputs}=JSON.parse(s);
process.stdout.write(JSON.stringify(patterns.map(p=>{const re=new RegExp(p,'u');return inputs.map(i=>re.test(i)?'1':'0').join('')})))})`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node: %s", stderr.String())
	var ecma []string
	require.NoError(t, json.Unmarshal(out, &ecma))
	require.Len(t, ecma, len(sources))

	checked := 0
	for i, src := range sources {
		re, err := regexp.Compile(src)
		require.NoError(t, err, "%s: RE2 cannot compile %q", where[i], src)
		var disagree []string
		for j, input := range corpus {
			goSays := re.MatchString(input)
			if goSays != (ecma[i][j] == '1') {
				disagree = append(disagree, fmt.Sprintf("%s (RE2 %v, ECMA-262 %v)", strconv.QuoteToASCII(input), goSays, !goSays))
			}
			checked++
		}
		if len(disagree) > 0 {
			t.Errorf("%s: pattern %q gives different verdicts in Go and JavaScript on %d inputs, e.g. %s",
				where[i], src, len(disagree), strings.Join(disagree[:min(5, len(disagree))], ", "))
		}
	}
	t.Logf("%d patterns × %d inputs = %d verdicts compared", len(sources), len(corpus), checked)
}

// TestDialectTestCatchesRE2Differences proves the comparison can fail: the pattern the document had
// before (`[^\s]`) disagrees on NO-BREAK SPACE.
func TestDialectTestCatchesRE2Differences(t *testing.T) {
	re := regexp.MustCompile(`^https?://[^\s]+$`)
	require.True(t, re.MatchString("https://a.example.org/\u00a0"), "RE2's \\s is ASCII only")
	node, err := exec.LookPath("node")
	require.NoError(t, err, "install Node.js 20+")
	out, err := exec.Command(node, "-e", `process.stdout.write(String(new RegExp('^https?://[^\\s]+$','u').test('https://a.example.org/\u00a0')))`).Output()
	require.NoError(t, err)
	require.Equal(t, "false", string(out), "ECMA-262's \\s includes NO-BREAK SPACE")
}

// Plain scalars that YAML 1.1 parsers (Dredd's, PyYAML, SnakeYAML in 1.1 mode, older js-yaml) read as
// something other than what YAML 1.2 reads: booleans such as `on` and `no`, sexagesimal and octal
// numbers, underscores in numbers, exponents without a dot, and timestamps.
var (
	yaml11Bool      = regexp.MustCompile(`^(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$`)
	yaml11Number    = regexp.MustCompile(`^[-+]?([0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?|0b[01_]+|0o?[0-7_]+|[-+]?[0-9][0-9_]*_[0-9_]*(\.[0-9_]*)?|[0-9]+[eE][-+]?[0-9]+)$`)
	yaml11Timestamp = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ]|$)`)
)

// yaml11Problem says why a plain scalar is read differently by a YAML 1.1 parser, or "".
func yaml11Problem(n *yaml.Node, inFlow bool) string {
	v := n.Value
	switch {
	case yaml11Bool.MatchString(v):
		return "a YAML 1.1 boolean"
	case v != "0" && yaml11Number.MatchString(v):
		return "a different number (or a string) in YAML 1.1"
	case yaml11Timestamp.MatchString(v):
		return "a timestamp in YAML 1.1"
	case inFlow && strings.Contains(v, ":"):
		return "a ':' in a plain scalar inside a flow collection is a syntax error in YAML 1.1"
	}
	return ""
}

// TestDocumentReadsTheSameInYAML11: a scalar that YAML 1.1 reads differently must be quoted, so the
// document means the same to every tool (Dredd refused it over an unquoted URL in a flow list). No
// anchors or aliases either: Specmatic does not resolve them.
func TestDocumentReadsTheSameInYAML11(t *testing.T) {
	problems := yaml11Problems(t, openapi.YAML())
	for _, p := range problems {
		t.Error(p)
	}
	require.Empty(t, yaml11Problems(t, []byte("a: [b]\nc: 'on'\nd: \"2026-11-21\"\n")), "quoted scalars are fine")
	require.Len(t, yaml11Problems(t, []byte("a: [https://x.example]\nb: on\nc: 2026-11-21\nd: 0755\ne: 1_000\nf: 1e3\ng: &x 1\nh: *x\n")), 8,
		"the check finds each kind of problem")
}

func yaml11Problems(t *testing.T, doc []byte) []string {
	t.Helper()
	var root yaml.Node
	require.NoError(t, yaml.Unmarshal(doc, &root))
	var out []string
	var walk func(n *yaml.Node, inFlow bool)
	walk = func(n *yaml.Node, inFlow bool) {
		if n.Anchor != "" || n.Kind == yaml.AliasNode {
			out = append(out, fmt.Sprintf("line %d: YAML anchor or alias; write the content out (Specmatic does not resolve them)", n.Line))
			if n.Kind == yaml.AliasNode {
				return
			}
		}
		inFlow = inFlow || n.Style&yaml.FlowStyle != 0
		if n.Kind == yaml.ScalarNode && n.Style == 0 {
			if why := yaml11Problem(n, inFlow); why != "" {
				out = append(out, fmt.Sprintf("line %d: %q is %s; quote it", n.Line, n.Value, why))
			}
		}
		for _, c := range n.Content {
			walk(c, inFlow)
		}
	}
	walk(&root, false)
	return out
}
