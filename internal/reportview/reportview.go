// Package reportview opens an HTML report (package report) in a real headless browser, Debian's
// Chromium driven by playwright-core, and says what a person would see: the text, the order of the
// checks, what a click opens and copies, the coverage matrix, and every request and script error the
// page made. The tests of the runs that write one (packages contracttests and receivertests) use it.
package reportview

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Page is what render-report.js saw of a report in headless Chromium.
type Page struct {
	Requests      []string `json:"requests"`
	ConsoleErrors []string `json:"consoleErrors"`
	Title         string   `json:"title"`
	Text          string   `json:"text"`
	CheckOrder    []struct {
		ID  string `json:"id"`
		Tag string `json:"tag"`
	} `json:"checkOrder"`
	FirstFailure struct {
		ID   string `json:"id"`
		Text string `json:"text"`
		Curl string `json:"curl"`
	} `json:"firstFailure"`
	ExchangeVisibleBefore bool   `json:"exchangeVisibleBefore"`
	ExchangeVisibleAfter  bool   `json:"exchangeVisibleAfter"`
	ExchangeText          string `json:"exchangeText"`
	CopyLabel             string `json:"copyLabel"`
	Clipboard             string `json:"clipboard"`
	Columns               []struct {
		Code         string `json:"code"`
		Undocumented bool   `json:"undocumented"`
	} `json:"columns"`
	Matrix   map[string]map[string]struct{ State, Text, Title string } `json:"matrix"`
	Webhooks map[string]string                                         `json:"webhooks"`
}

// Render opens the report at path in Debian's headless Chromium through playwright-core
// (tools/node_modules) and returns what the page shows.
func Render(t testing.TB, path string) Page {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the HTML report test drives Chromium from Node.js: install Node.js 20+")
	chromium, err := exec.LookPath("chromium")
	require.NoError(t, err, "the HTML report test opens the report in Debian's chromium: run `make debian-tools` (as root) or apt-get install chromium")
	_, self, _, _ := runtime.Caller(0)
	here := filepath.Dir(self)
	nodeModules := filepath.Join(here, "..", "..", "tools", "node_modules")
	_, err = os.Stat(filepath.Join(nodeModules, "playwright-core"))
	require.NoError(t, err, "playwright-core comes with the Node tools: run `make deps` (cd tools && npm ci)")
	script := filepath.Join(here, "render-report.js")
	abs, err := filepath.Abs(path)
	require.NoError(t, err)

	cmd := exec.Command(node, script, abs, chromium)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "render-report.js: %s", stderr.String())
	var page Page
	require.NoError(t, json.Unmarshal(out, &page), "%s", out)
	return page
}
