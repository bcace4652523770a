package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/internal/faults"
	"github.com/malipo/terraform-provider-malipo/internal/mdrender"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/report"
)

// annotation is an `::error` workflow command as GitHub's runner reads it: its properties and message
// decoded.
type annotation struct {
	props   map[string]string
	message string
}

// annotations are the `::error` workflow commands among the lines of out.
func annotations(t *testing.T, out string) []annotation {
	t.Helper()
	decode := strings.NewReplacer("%25", "%", "%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",").Replace
	var found []annotation
	stopped := "" // as GitHub's runner reads the output: no command between ::stop-commands::T and ::T::
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if stopped != "" {
			if line == "::"+stopped+"::" {
				stopped = ""
			}
			continue
		}
		if token, ok := strings.CutPrefix(line, "::stop-commands::"); ok {
			stopped = token
			continue
		}
		rest, ok := strings.CutPrefix(line, "::error ")
		if !ok {
			continue
		}
		props, message, ok := strings.Cut(rest, "::")
		require.True(t, ok, "a workflow command is `::error properties::message`: %q", line)
		a := annotation{props: map[string]string{}, message: decode(message)}
		for _, p := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(p, "=")
			require.True(t, ok, "a property is name=value: %q in %q", p, line)
			a.props[k] = decode(v)
		}
		found = append(found, a)
	}
	return found
}

// keyLine walks a JSON pointer through the YAML document root and returns the line of its last
// token (a mapping member's key, or a sequence item) and that token.
func keyLine(t *testing.T, root *yaml.Node, pointer string) (int, string) {
	t.Helper()
	line, token, ok := walkPointer(root, pointer)
	require.True(t, ok, "%s does not resolve in openapi/malipo.yaml", pointer)
	return line, token
}

// walkPointer is keyLine for a pointer that may not resolve: ok is false then.
func walkPointer(root *yaml.Node, pointer string) (line int, token string, ok bool) {
	n := root
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "#/"), "/") {
		token = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n.Kind {
		case yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == token {
					next, line = n.Content[i+1], n.Content[i].Line
				}
			}
			if next == nil {
				return 0, "", false
			}
			n = next
		case yaml.SequenceNode:
			i, err := strconv.Atoi(token)
			if err != nil || i < 0 || i >= len(n.Content) {
				return 0, "", false
			}
			n, line = n.Content[i], n.Content[i].Line
		default:
			return 0, "", false
		}
	}
	return line, token, true
}

// theDocument is openapi/malipo.yaml as the test reads it itself, independently of the code under
// test: its YAML root and its lines.
func theDocument(t *testing.T) (*yaml.Node, []string) {
	t.Helper()
	source, err := os.ReadFile(filepath.Join("..", "..", "openapi", "malipo.yaml"))
	require.NoError(t, err)
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(source, &doc))
	return doc.Content[0], strings.Split(string(source), "\n")
}

// ruleLine is the line a finding's annotation must point at: its rule's key line (keyLine) or, for a
// rule that quotes a sentence of the text there, the line where the sentence's first words begin,
// found by reading the lines that follow the key.
func ruleLine(t *testing.T, root *yaml.Node, lines []string, rule report.Rule) int {
	t.Helper()
	line, _ := keyLine(t, root, rule.Pointer)
	if rule.Quote == "" {
		return line
	}
	quote := strings.Fields(rule.Quote)
	want := strings.Join(quote[:min(5, len(quote))], " ")
	for l := line; l <= len(lines); l++ {
		words := strings.Fields(lines[l-1])
		following := strings.Fields(strings.Join(lines[l:min(len(lines), l+3)], " "))
		for k := range words {
			if strings.HasPrefix(strings.Join(append(words[k:len(words):len(words)], following...), " "), want) {
				return l
			}
		}
	}
	t.Fatalf("%s: the quote %q is not in the lines after its key's, line %d", rule.Pointer, rule.Quote, line)
	return 0
}

// Under GitHub Actions a failing `malipo conform` leaves, besides its log, what GitHub shows: an error
// annotation per finding on the line of openapi/malipo.yaml that states the broken rule (the line the
// rule's pointer resolves to, found here by walking the file's YAML, and the line of the rule's key),
// and a job summary appended to the step's file, after what was there, with the findings, the
// command that reruns the failed checks with the run's seed, and every failed check; it renders to
// its tables and code block.
func TestConformOnGitHubAnnotatesTheRulesLines(t *testing.T) {
	// Errors that are not the document's envelope fail hundreds of checks on a few rules, some quoted,
	// some schema keywords (the tests below use this sandbox for the same reason).
	ts := faultySandbox(t, faults.ErrorNotEnvelope)
	dir := t.TempDir()
	summaryPath, jsonPath := filepath.Join(dir, "step_summary"), filepath.Join(dir, "r.json")
	const earlier = "## An earlier command of the step\n"
	require.NoError(t, os.WriteFile(summaryPath, []byte(earlier), 0o644))
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summaryPath)
	code, stdout, stderr := runCLI(t, "conform", "--target", ts.URL, "--public-key", sandbox.DefaultPublicKey, "--secret-key", sandbox.DefaultSecretKey,
		"--run", `^(negative\.unknown-path|auth\.getPayout\.|negative\.initializePayment\.amount\.|reference\.countries)`, "--quiet", "--seed", "5", "--json", jsonPath)
	require.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	t.Log("\n" + stdout)

	var run struct {
		Results  []report.Result  `json:"results"`
		Findings []report.Finding `json:"findings"`
	}
	data, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &run))
	require.NotEmpty(t, run.Findings)

	doc, lines := theDocument(t)

	got := annotations(t, stdout)
	require.Len(t, got, len(run.Findings), "one annotation per finding")
	// Commands are stopped while the report quotes the target, and resume only after its last line:
	// what follows the resuming line is the annotations alone.
	out := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	stop := slices.IndexFunc(out, func(l string) bool { return strings.HasPrefix(l, "::stop-commands::") })
	require.True(t, stop >= 0 && stop < 3, "commands are stopped before the report prints: %q", out[:3])
	resume := slices.Index(out, "::"+strings.TrimPrefix(out[stop], "::stop-commands::")+"::")
	require.Positive(t, resume, "commands resume")
	assert.Len(t, out[resume+1:], len(got), "after commands resume, the annotations and nothing else: %q", out[resume+1:])
	quoted := 0 // findings whose rule quotes a sentence: annotated where it begins
	for i, a := range got {
		f := run.Findings[i]
		require.True(t, strings.HasPrefix(f.Rule.Pointer, "#/"), "finding %d has a rule in the document: %+v", i, f)
		line := ruleLine(t, doc, lines, f.Rule)
		assert.Equal(t, "openapi/malipo.yaml", a.props["file"], "annotation %d", i)
		assert.Equal(t, strconv.Itoa(line), a.props["line"], "annotation %d: the line of %s", i, f.Rule.Pointer)
		if f.Rule.Quote == "" {
			_, key := keyLine(t, doc, f.Rule.Pointer)
			text := strings.TrimSpace(lines[line-1])
			assert.True(t, strings.HasPrefix(text, key+":") || strings.HasPrefix(text, "'"+key+"':") || strings.HasPrefix(text, `"`+key+`":`),
				"annotation %d: line %d is %s's key %q: %q", i, line, f.Rule.Pointer, key, text)
		} else {
			quoted++
		}
		assert.True(t, strings.HasPrefix(a.props["title"], "malipo conform: "), a.props["title"])
		assert.Contains(t, a.message, f.Violation)
	}
	assert.Positive(t, quoted, "the run has a finding whose rule quotes the document (negative.unknown-path's)")

	var failed []string
	for _, r := range run.Results {
		if r.Outcome == report.Failed {
			failed = append(failed, r.ID)
		}
	}
	data, err = os.ReadFile(summaryPath)
	require.NoError(t, err)
	summary := string(data)
	t.Log("\n" + summary)
	require.True(t, strings.HasPrefix(summary, earlier+"\n### \u274c malipo conform: "+strconv.Itoa(len(failed))+" of "+strconv.Itoa(len(run.Results))+" checks failed\n"),
		"appended after what the step wrote:\n%s", summary)
	rerun := "malipo conform --target " + ts.URL + " --seed 5 --run '^(" + strings.ReplaceAll(strings.Join(failed, "|"), ".", `\.`) + ")$'"
	assert.Contains(t, summary, "```sh\n"+rerun+"\n```\n")

	page := mdrender.Render(t, summary[len(earlier):])
	tags := mdrender.Tags(page)
	assert.Equal(t, 3, count(tags, "table"), "the counts, the findings, the failed checks")
	assert.Equal(t, (1+3)+(1+len(run.Findings))+(1+len(failed)), count(tags, "tr"), "in each table a header row, and a row per outcome, per finding, per failed check")
	text := mdrender.Text(page)
	assert.Contains(t, text, rerun)
	for _, f := range run.Findings {
		assert.Contains(t, text, f.Rule.At.String()+" "+f.Rule.Pointer)
	}
	for _, syntax := range []string{"| ---", "```", "\\[", "\\:", "\\*", "\\<", "\\_"} {
		assert.NotContains(t, text, syntax, "no Markdown syntax shows")
	}
}

// Under GitHub Actions `malipo webhooks test` against a flawed receiver annotates its findings too:
// the rules it cites are Standard Webhooks' text, with no line of the document, so the annotations
// have no file; the summary has the command that reruns the failed checks with the run's seed.
func TestWebhooksTestOnGitHubAnnotatesItsFindings(t *testing.T) {
	secret, srv := flawedReceiver(t, "accepts-any-signature")
	summaryPath := filepath.Join(t.TempDir(), "step_summary")
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summaryPath)
	code, stdout, stderr := runCLI(t, "webhooks", "test", "--url", srv.URL, "--secret", secret.Reveal(), "--quiet", "--seed", "7",
		"--run", `^receiver\.rejects\.(forged|malformed)-signature/`)
	require.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	doc, lines := theDocument(t)
	got := annotations(t, stdout)
	placed, inWords := 0, 0
	for _, a := range got {
		assert.True(t, strings.HasPrefix(a.props["title"], "malipo webhooks test: "), a.props["title"])
		if strings.Contains(a.message, "malformed-signature/") {
			// The version prefix is Standard Webhooks' rule alone: no line of the document states it.
			inWords++
			assert.NotContains(t, a.props, "file")
			assert.NotContains(t, a.props, "line")
			continue
		}
		// A forged signature breaks what the document says of the webhook-signature parameter: the
		// annotation is on that parameter, in the webhook of an event type the finding's checks sent.
		placed++
		assert.Contains(t, a.message, "receiver.rejects.forged-signature/")
		assert.Equal(t, "openapi/malipo.yaml", a.props["file"])
		line, err := strconv.Atoi(a.props["line"])
		require.NoError(t, err)
		assert.Equal(t, "- name: webhook-signature", strings.TrimSpace(lines[line-1]), "line %d", line)
		found := false
		spec, err := openapi.Default()
		require.NoError(t, err)
		for _, et := range spec.EventTypes() {
			for i := range 5 {
				if l, _, _ := walkPointer(doc, fmt.Sprintf("#/webhooks/%s/post/parameters/%d", et, i)); l == line {
					found = true
				}
			}
		}
		assert.True(t, found, "line %d is a webhook's parameter", line)
	}
	assert.Equal(t, 1, placed, "the forged signatures of every type are one finding, placed in the document")
	assert.Equal(t, 1, inWords, "the unversioned signatures are one finding, in words")
	data, err := os.ReadFile(summaryPath)
	require.NoError(t, err)
	summary := string(data)
	assert.True(t, strings.HasPrefix(summary, "### \u274c malipo webhooks test: "), summary)
	assert.Contains(t, summary, "```sh\nmalipo webhooks test --url "+srv.URL+" --seed 7 --run '^(receiver\\.rejects\\.forged-signature/")
	assert.NotContains(t, summary, secret.Reveal())
	assert.NotContains(t, stdout, secret.Reveal())
}

// In a GitLab CI job the JUnit report names, on each failed testcase, the document that states its rule
// (the file attribute GitLab's test report shows), and the failure's text (what GitLab shows of it)
// starts with the rule's words, file and line; elsewhere the file attribute, which the JUnit schemas
// do not have, is left out.
func TestConformOnGitLabNamesTheDocumentInJUnit(t *testing.T) {
	ts := faultySandbox(t, faults.ErrorNotEnvelope)
	doc, lines := theDocument(t)
	dir := t.TempDir()
	for _, gitlab := range []string{"true", ""} {
		t.Setenv("GITLAB_CI", gitlab)
		junit := filepath.Join(dir, "junit"+gitlab+".xml")
		code, stdout, stderr := runCLI(t, "conform", "--target", ts.URL, "--public-key", sandbox.DefaultPublicKey, "--secret-key", sandbox.DefaultSecretKey,
			"--run", `^negative\.unknown-path$`, "--quiet", "--junit", junit)
		require.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		data, err := os.ReadFile(junit)
		require.NoError(t, err)
		var suites struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				File    string `xml:"file,attr"`
				Failure string `xml:"failure"`
			} `xml:"testsuite>testcase"`
		}
		require.NoError(t, xml.Unmarshal(data, &suites))
		require.Len(t, suites.Cases, 1)
		c := suites.Cases[0]
		const pointer = "#/info/description"
		first, _, _ := strings.Cut(c.Failure, "\n")
		require.True(t, strings.HasPrefix(first, "the document says: \u201c"), first)
		quote, _, _ := strings.Cut(strings.TrimPrefix(first, "the document says: \u201c"), "\u201d")
		quoteLine := ruleLine(t, doc, lines, report.Rule{Pointer: pointer, Quote: quote})
		assert.True(t, strings.HasSuffix(first, "\u201d ("+pointer+", openapi/malipo.yaml:"+strconv.Itoa(quoteLine)+")"), first)
		if gitlab == "true" {
			assert.Equal(t, "openapi/malipo.yaml", c.File)
		} else {
			assert.Empty(t, c.File)
		}
	}
}

// Outside GitHub Actions nothing of it is written.
func TestConformOutsideGitHubWritesNoAnnotation(t *testing.T) {
	ts := faultySandbox(t, faults.ErrorNotEnvelope)
	summaryPath := filepath.Join(t.TempDir(), "step_summary")
	t.Setenv("GITHUB_ACTIONS", "")
	t.Setenv("GITHUB_STEP_SUMMARY", summaryPath)
	code, stdout, _ := runCLI(t, "conform", "--target", ts.URL, "--public-key", sandbox.DefaultPublicKey, "--secret-key", sandbox.DefaultSecretKey,
		"--run", `^negative\.unknown-path$`, "--quiet")
	require.Equal(t, exitFail, code)
	assert.NotContains(t, stdout, "::error")
	assert.NoFileExists(t, summaryPath)
}

func count(items []string, item string) int {
	n := 0
	for _, i := range items {
		if i == item {
			n++
		}
	}
	return n
}

// A credential in the target's URL (https://ci:TOKEN@host, as a staging service behind basic auth is
// often given) shows nowhere a run leaves: not in the log, the rerun line, the job summary, the
// annotations, nor any report file.
func TestTargetCredentialsShowInNoReport(t *testing.T) {
	ts := faultySandbox(t, faults.ErrorNotEnvelope)
	const token = "SUPERSECRET_TOKEN_4711"
	target := strings.Replace(ts.URL, "http://", "http://ci:"+token+"@", 1)
	dir := t.TempDir()
	summary := filepath.Join(dir, "step_summary")
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	files := map[string]string{"--json": "r.json", "--junit": "r.xml", "--html": "r.html", "--record": "r.har"}
	args := []string{"conform", "--target", target, "--public-key", sandbox.DefaultPublicKey, "--secret-key", sandbox.DefaultSecretKey,
		"--run", `^(negative\.unknown-path|auth\.getPayout\.)`, "--seed", "5"}
	for flag, name := range files {
		args = append(args, flag, filepath.Join(dir, name))
	}
	code, stdout, stderr := runCLI(t, args...)
	require.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	require.Contains(t, stdout, "ci:…(redacted)@", "the target is named, its password masked")
	assert.NotContains(t, stdout, token)
	assert.NotContains(t, stderr, token)
	for _, name := range append(slices.Collect(maps.Values(files)), "step_summary") {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, name)
		assert.NotContains(t, string(data), token, name)
	}
}
