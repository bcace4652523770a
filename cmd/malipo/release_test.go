package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"
	"golang.org/x/mod/modfile"
)

// cliPackage is what users go install; the action, the README and the release build name it.
const cliPackage = "github.com/malipo/terraform-provider-malipo/cmd/malipo"

// repoRoot is the repository, two levels up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return root
}

func readRepoFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(rel)))
	require.NoError(t, err)
	return data
}

// `go install cliPackage@vX.Y.Z` refuses a module whose go.mod has replace or exclude directives, and
// needs the module path to be the one users type. (make install-check proves the whole install.)
func TestGoModAllowsGoInstallAtAVersion(t *testing.T) {
	f, err := modfile.Parse("go.mod", readRepoFile(t, "go.mod"), nil)
	require.NoError(t, err)
	assert.Empty(t, f.Replace, "go install ...@version refuses a module with replace directives")
	assert.Empty(t, f.Exclude, "go install ...@version refuses a module with exclude directives")
	assert.Equal(t, cliPackage, f.Module.Mod.Path+"/cmd/malipo")
	assert.Contains(t, string(readRepoFile(t, "README.md")), "go install "+cliPackage+"@")
}

// goreleaserConfig is the part of .goreleaser.yml the release of the CLI depends on.
type goreleaserConfig struct {
	Builds []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		ID           string   `yaml:"id"`
		IDs          []string `yaml:"ids"`
		NameTemplate string   `yaml:"name_template"`
	} `yaml:"archives"`
	Checksum struct {
		IDs []string `yaml:"ids"`
	} `yaml:"checksum"`
}

// The release builds the malipo CLI for Linux, macOS and Windows on amd64 and arm64, static, with its
// version set through the variable cliVersion reads, next to the provider, whose archives and
// checksum file stay as the Terraform Registry wants them. goreleaser is not run here (it is not
// available offline); this checks what the release depends on.
func TestReleaseBuildsTheCLI(t *testing.T) {
	var cfg goreleaserConfig
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, ".goreleaser.yml"), &cfg))
	builds := map[string]int{}
	for i, b := range cfg.Builds {
		builds[b.ID] = i
	}
	require.Contains(t, builds, "malipo", "a build with id malipo")
	require.Contains(t, builds, "terraform-provider-malipo", "the provider's build")
	cli, provider := cfg.Builds[builds["malipo"]], cfg.Builds[builds["terraform-provider-malipo"]]

	assert.Equal(t, "./cmd/malipo", cli.Main)
	assert.Equal(t, "malipo", cli.Binary)
	assert.Contains(t, cli.Env, "CGO_ENABLED=0")
	for _, goos := range []string{"linux", "darwin", "windows"} {
		assert.Contains(t, cli.Goos, goos)
	}
	for _, goarch := range []string{"amd64", "arm64"} {
		assert.Contains(t, cli.Goarch, goarch)
	}
	// -X sets a package-level string variable: the one cliVersion returns first. The value has the
	// leading v that go install reports for the same tag (goreleaser's .Version has none).
	ldflags := strings.Join(cli.Ldflags, " ")
	m := regexp.MustCompile(`-X main\.(\w+)=(\S+(?: \.Version \}\})?)`).FindStringSubmatch(ldflags)
	require.NotNil(t, m, "the CLI's ldflags set its version: %q", ldflags)
	assert.Equal(t, "v{{ .Version }}", m[2])
	assert.True(t, isPackageStringVar(t, "version.go", m[1]), "main.%s is a package-level string variable of cmd/malipo", m[1])
	assert.Equal(t, ".", provider.Main, "the provider is still built")

	archives := map[string][]string{}
	for _, a := range cfg.Archives {
		archives[a.ID] = a.IDs
	}
	assert.Equal(t, []string{"terraform-provider-malipo"}, archives["terraform-provider-malipo"], "the registry's zips hold the provider only")
	assert.Equal(t, []string{"malipo"}, archives["malipo"], "the CLI has archives of its own")
	assert.Equal(t, []string{"terraform-provider-malipo"}, cfg.Checksum.IDs, "SHA256SUMS lists the provider's archives only, as the registry requires")
}

// isPackageStringVar reports whether file of this package declares a package-level variable name of
// type string, which is what -ldflags -X can set.
func isPackageStringVar(t *testing.T, file, name string) bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	require.NoError(t, err)
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			ident, ok := vs.Type.(*ast.Ident)
			if !ok || ident.Name != "string" {
				continue
			}
			for _, n := range vs.Names {
				if n.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// pendingConformFlags are flags the action passes that other work adds to malipo conform. Each must
// not exist yet: when it lands, this test fails until it is removed from here, so that it is checked
// like the others.
var pendingConformFlags = map[string]string{
	"html": "the HTML report (contracttests HTML reporter)",
}

// conformFlagNames returns the long flags `malipo conform --help` lists.
func conformFlagNames(t *testing.T) []string {
	t.Helper()
	code, help, stderr := runCLI(t, "conform", "--help")
	require.Equal(t, exitOK, code, stderr)
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z][a-z0-9-]*)`).FindAllStringSubmatch(help, -1) {
		names = append(names, m[1])
	}
	require.Contains(t, names, "target", "the flags were read from the help:\n%s", help)
	return names
}

// flagsIn returns the long flags (--name) written in script: the action builds malipo's arguments in
// an array over several lines, so every flag of the script counts.
func flagsIn(script string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?:^|[\s("])--([a-z][a-z0-9-]*)`).FindAllStringSubmatch(script, -1) {
		names = append(names, m[1])
	}
	return names
}

// The GitHub Action passes malipo conform only flags it has (or flags another change is adding, listed
// in pendingConformFlags), installs the package users install, reads keys from the variables the CLI
// reads, and uploads the reports even when the run fails; the example workflow uses it with inputs it
// declares.
func TestGitHubActionMatchesTheCLI(t *testing.T) {
	var action struct {
		Inputs map[string]struct {
			Required bool `yaml:"required"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				Name string            `yaml:"name"`
				Uses string            `yaml:"uses"`
				If   string            `yaml:"if"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	actionYAML := readRepoFile(t, ".github/actions/conform/action.yml")
	require.NoError(t, yaml.Unmarshal(actionYAML, &action))
	assert.Equal(t, "composite", action.Runs.Using)

	known := conformFlagNames(t)
	var conformRun, install string
	uploads := false
	for _, s := range action.Runs.Steps {
		switch {
		case strings.Contains(s.Run, "malipo conform"):
			conformRun = s.Run
		case strings.Contains(s.Run, "go install"):
			install = s.Run
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			uploads = true
			assert.Equal(t, "always()", s.If, "the reports are uploaded when checks fail too")
		}
	}
	require.NotEmpty(t, conformRun, "a step runs malipo conform")
	assert.True(t, uploads, "a step uploads the reports")
	assert.Contains(t, install, `go install "`+cliPackage+`@${VERSION}"`)

	passed := flagsIn(conformRun)
	require.Contains(t, passed, "junit")
	require.Contains(t, passed, "json")
	for _, name := range passed {
		if why, pending := pendingConformFlags[name]; pending {
			assert.NotContains(t, known, name, "--%s (%s) exists now: remove it from pendingConformFlags", name, why)
			continue
		}
		assert.Contains(t, known, name, "the action passes --%s, which malipo conform does not have", name)
	}
	for name := range pendingConformFlags {
		assert.Contains(t, passed, name, "pendingConformFlags lists --%s, which the action does not pass", name)
	}

	// Keys travel in the environment the caller sets, under the names conform reads.
	_, help, _ := runCLI(t, "conform", "--help")
	for _, env := range []string{"MALIPO_PUBLIC_KEY", "MALIPO_SECRET_KEY", "MALIPO_OTHER_PUBLIC_KEY", "MALIPO_OTHER_SECRET_KEY"} {
		assert.Contains(t, string(actionYAML), env, "the action tells callers to set %s", env)
		assert.Contains(t, help, "$"+env, "conform reads %s", env)
	}
	assert.NotContains(t, conformRun, "-key", "no key is passed on the command line")

	// The example workflow uses this action, with inputs it declares, every required one given.
	var workflow struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, "examples/ci/github-actions.yml"), &workflow))
	used := 0
	for _, job := range workflow.Jobs {
		for _, s := range job.Steps {
			ref, ok := strings.CutPrefix(s.Uses, "malipo/terraform-provider-malipo/")
			if !ok {
				continue
			}
			used++
			path, version, _ := strings.Cut(ref, "@")
			assert.Equal(t, ".github/actions/conform", path)
			assert.Equal(t, version, s.With["version"], "the action and malipo are pinned to the same release")
			for input := range s.With {
				assert.Contains(t, action.Inputs, input, "the example passes input %q, which the action does not declare", input)
			}
			for input, decl := range action.Inputs {
				if decl.Required {
					assert.Contains(t, s.With, input, "the example gives the required input %q", input)
				}
			}
			assert.Contains(t, s.Env, "MALIPO_SECRET_KEY")
		}
	}
	assert.Equal(t, 1, used, "the example workflow uses the action once")
}

// The local CI example calls malipo sandbox and malipo conform with flags they have.
func TestLocalCIExampleFlagsExist(t *testing.T) {
	script := string(readRepoFile(t, "examples/ci/conform-local.sh"))
	script = strings.ReplaceAll(script, "\\\n", " ")
	calls := 0
	for _, line := range strings.Split(script, "\n") {
		for _, cmd := range []string{"sandbox", "conform"} {
			_, args, ok := strings.Cut(line, `malipo" `+cmd+" ")
			if !ok {
				continue
			}
			calls++
			code, help, stderr := runCLI(t, cmd, "--help")
			require.Equal(t, exitOK, code, stderr)
			for _, name := range flagsIn(args) {
				assert.True(t, slices.ContainsFunc(strings.Split(help, "\n"), func(l string) bool {
					return regexp.MustCompile(`^\s+(?:-\w, )?--` + name + `\b`).MatchString(l)
				}), "conform-local.sh passes --%s to malipo %s, which does not have it", name, cmd)
			}
		}
	}
	assert.Equal(t, 2, calls, "the script starts malipo sandbox and runs malipo conform")
}
