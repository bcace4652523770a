package api_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// moduleRoot is the repository root, seen from this package's directory.
const moduleRoot = "../.."

// TestNoCodeRestatesTheDocument fails on an API path, an error-code number or an
// x-malipo-test-values input written anywhere but in the generated code and in the tests of the
// document itself (package openapi and its internal packages, and this package's tests). Everything
// else takes them from package api, from the loaded document, or from harness.Inputs (contracttests/harness).
func TestNoCodeRestatesTheDocument(t *testing.T) {
	rules := restatementRules(t)
	found := map[string][]string{} // directory -> findings
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "tools" || strings.HasPrefix(rel, ".") && rel != "." || rel == "bin" || rel == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, ".gen.go") || documentsOwnTest(rel) {
			return nil
		}
		for _, f := range rules.scan(t, path) {
			found[filepath.ToSlash(filepath.Dir(rel))] = append(found[filepath.ToSlash(filepath.Dir(rel))], rel+":"+f)
		}
		return nil
	})
	require.NoError(t, err)

	dirs := make([]string, 0, len(found))
	for dir := range found {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		for _, f := range found[dir] {
			t.Errorf("%s restates the document; take it from package api (operations, codes, headers), the loaded document, or harness.Inputs (contracttests/harness)", f)
		}
	}
}

// documentsOwnTest reports whether a file tests the document itself, where literals are the point.
func documentsOwnTest(rel string) bool {
	if !strings.HasSuffix(rel, "_test.go") {
		return false
	}
	dir := filepath.ToSlash(filepath.Dir(rel))
	return dir == "openapi" || dir == "openapi/api" || strings.HasPrefix(dir, "openapi/internal/")
}

// restatement is what the guard looks for, all of it read from the document.
type restatement struct {
	pathPrefixes []string        // each operation's path up to its first parameter
	codes        map[string]bool // error codes, as Go integer literals
	testValues   []string        // x-malipo-test-values inputs
}

func restatementRules(t *testing.T) restatement {
	t.Helper()
	r := restatement{codes: map[string]bool{}}
	seen := map[string]bool{}
	for _, op := range api.Operations() {
		prefix := op.Path
		if i := strings.IndexByte(prefix, '{'); i >= 0 {
			prefix = prefix[:i]
		}
		if !seen[prefix] {
			seen[prefix] = true
			r.pathPrefixes = append(r.pathPrefixes, prefix)
		}
	}
	for _, c := range api.ErrorCodes() {
		r.codes[strconv.Itoa(int(c))] = true
	}
	spec, err := openapi.Default()
	require.NoError(t, err)
	tv, err := spec.TestValues()
	require.NoError(t, err)
	for _, v := range tv.Payments {
		r.testValues = append(r.testValues, v.PhoneNumber)
	}
	for _, v := range tv.Payouts.MobileNumber {
		r.testValues = append(r.testValues, v.MomoPhoneNumber)
	}
	for _, v := range tv.Payouts.Bank {
		r.testValues = append(r.testValues, v.AccountNumber)
	}
	require.NotEmpty(t, r.pathPrefixes)
	require.NotEmpty(t, r.codes)
	require.NotEmpty(t, r.testValues)
	return r
}

// scan returns "line: literal" for every restated literal of a Go file.
func (r restatement) scan(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok {
			return true
		}
		if what := r.match(lit); what != "" {
			out = append(out, fmt.Sprintf("%d: %s %s", fset.Position(lit.Pos()).Line, what, shorten(lit.Value)))
		}
		return true
	})
	return out
}

func (r restatement) match(lit *ast.BasicLit) string {
	switch lit.Kind {
	case token.INT:
		if r.codes[lit.Value] {
			return "error code"
		}
	case token.STRING:
		v, err := strconv.Unquote(lit.Value)
		if err != nil {
			return ""
		}
		for _, p := range r.pathPrefixes {
			if strings.Contains(v, p) {
				return "API path"
			}
		}
		for _, m := range jsonCode.FindAllStringSubmatch(v, -1) {
			if r.codes[m[1]] {
				return "error code"
			}
		}
		for _, tv := range r.testValues {
			if strings.Contains(v, tv) {
				return "test value"
			}
		}
	}
	return ""
}

// jsonCode finds an envelope code written inside a JSON text (`"code":3000`).
var jsonCode = regexp.MustCompile(`"code"\s*:\s*(\d+)`)

func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// TestGuardCatchesPlantedLiterals shows that each rule can fail: a planted path, code and test value are
// each found.
func TestGuardCatchesPlantedLiterals(t *testing.T) {
	rules := restatementRules(t)
	src := "package p\nvar a = \"" + api.OpGetPayout().URL("po_1") + "\"\nvar b = " +
		strconv.Itoa(int(api.CodeDuplicateReference)) + "\nvar c = \"" + rules.testValues[0] + "\"\nvar d = \"fine\"\nvar e = 42\n" +
		"var f = `{\"code\": " + strconv.Itoa(int(api.CodeNotFound)) + "}`\nvar g = `{\"code\": 0}`\n"
	path := filepath.Join(t.TempDir(), "planted.go")
	require.NoError(t, writeFile(path, src))
	found := rules.scan(t, path)
	require.Len(t, found, 4, "%q", found)
	assert.Contains(t, found[0], "API path")
	assert.Contains(t, found[1], "error code")
	assert.Contains(t, found[2], "test value")
	assert.Contains(t, found[3], "error code", "a code inside a JSON text counts too")
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }
