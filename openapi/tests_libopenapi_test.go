package openapi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A test file names libopenapi's model (imports a github.com/pb33f package, or calls one of openapi's
// functions whose signature names a libopenapi type, such as openapi.Model) only in a package whose own
// code already does. Anywhere else it makes the package's test variant compile libopenapi's generic
// types again: 7 to 11 s of CPU per package on make test's budget, for a fact the test can read from
// the document as written (openapitest.Doc).
// TestUsingASpecCompilesNoLibopenapi holds this package's own API to the same.
func TestTestsNameLibopenapiOnlyWhereTheirPackageDoes(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	parse := func(file string) *ast.File {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", file, err)
		}
		return f
	}
	libImports := func(f *ast.File) map[string]bool { // the names under which f imports libopenapi
		names := map[string]bool{}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/pb33f/") {
				name := path.Base(p)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = true
			}
		}
		return names
	}
	// selects reports whether n holds a qualified name pkg.Name that wanted accepts.
	selects := func(n ast.Node, wanted func(pkg, name string) bool) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && wanted(pkg.Name, sel.Sel.Name) {
					found = true
				}
			}
			return !found
		})
		return found
	}
	// openapi's functions whose signature names a libopenapi type (Model, OperationModel, ...).
	modelFuncs := map[string]bool{}
	code, _ := filepath.Glob(filepath.Join(root, "openapi", "*.go"))
	for _, file := range code {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f := parse(file)
		lib := libImports(f)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.IsExported() &&
				selects(fn.Type, func(pkg, _ string) bool { return lib[pkg] }) {
				modelFuncs[fn.Name.Name] = true
			}
		}
	}
	if !modelFuncs["Model"] || !modelFuncs["OperationModel"] {
		t.Fatalf("found %v among openapi's functions that name libopenapi's types, without Model and OperationModel", modelFuncs)
	}
	namesModel := func(file string) bool {
		f := parse(file)
		if len(libImports(f)) > 0 {
			return true
		}
		return selects(f, func(pkg, name string) bool { return pkg == "openapi" && modelFuncs[name] })
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
