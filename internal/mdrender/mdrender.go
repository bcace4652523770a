// Package mdrender renders Markdown to HTML the way GitHub reads a job summary (CommonMark with GFM's
// tables), for the tests of the summary `malipo conform` and `malipo webhooks test` write under GitHub
// Actions (report.GitHubReporter): that it renders to the tables and lists it means to, with no stray
// Markdown syntax and no markup made of the text it quotes.
package mdrender

import (
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Render renders markdown with markdown-it (pinned in tools/package-lock.json, installed by `make deps`
// and by every make target that runs the tests) on node, and returns the HTML. A missing node or
// markdown-it fails the test rather than skipping it: make test installs both.
func Render(t testing.TB, markdown string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "rendering the job summary needs node on PATH (make test runs where it is)")
	_, self, _, _ := runtime.Caller(0)
	here := filepath.Dir(self)
	modules := filepath.Join(here, "..", "..", "tools", "node_modules")
	_, err = os.Stat(filepath.Join(modules, "markdown-it"))
	require.NoError(t, err, "markdown-it comes with the Node tools: run `make deps` (cd tools && npm ci)")
	cmd := exec.Command(node, filepath.Join(here, "render-markdown.cjs"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = strings.NewReader(markdown)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "render-markdown.cjs: %s", stderr.String())
	return string(out)
}

var tag = regexp.MustCompile(`<(/?)([a-zA-Z0-9]+)[^>]*>`)

// Tags are the names of the elements the HTML opens, in order, each once per element.
func Tags(h string) []string {
	var names []string
	for _, m := range tag.FindAllStringSubmatch(h, -1) {
		if m[1] == "" {
			names = append(names, strings.ToLower(m[2]))
		}
	}
	return names
}

// Text is what the HTML shows as text: the tags removed, the entities decoded.
func Text(h string) string { return html.UnescapeString(tag.ReplaceAllString(h, "")) }
