package openapi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A test file names libopenapi's model (imports a github.com/pb33f package, or calls openapi.Model or
// openapi.OperationModel) only in a package whose own code already does. Anywhere else it makes the
// package's test variant compile libopenapi's generic types again: 7 to 11 s of CPU per package on
// make test's budget, for a fact the test can read from the document as written (openapitest.Doc).
// TestUsingASpecCompilesNoLibopenapi holds this package's own API to the same.
func TestTestsNameLibopenapiOnlyWhereTheirPackageDoes(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	namesModel := func(path string) bool {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", path, err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/pb33f/") {
				return true
			}
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "openapi" && (sel.Sel.Name == "Model" || sel.Sel.Name == "OperationModel") {
					found = true
				}
			}
			return !found
		})
		return found
	}
	checkedDirs, testFiles := 0, 0
	err = filepath.WalkDir(root, func(dir string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); dir != root && (name == "tools" || name == "bin" || name == "node_modules" || strings.HasPrefix(name, ".")) {
			return filepath.SkipDir
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		var code, tests []string
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				tests = append(tests, f)
			} else {
				code = append(code, f)
			}
		}
		if len(tests) == 0 || slices.ContainsFunc(code, namesModel) {
			return nil
		}
		checkedDirs++
		for _, f := range tests {
			testFiles++
			if namesModel(f) {
				rel, _ := filepath.Rel(root, f)
				t.Errorf("%s names libopenapi's model, which its package does not: read the fact from the document as written (openapitest.Embedded)", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checkedDirs < 10 || testFiles < 50 {
		t.Fatalf("checked %d test files in %d packages: the walk did not find the repository's tests (run from openapi)", testFiles, checkedDirs)
	}
}
