package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

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

// goreleaserConfig is the part of a GoReleaser configuration the release of the CLI depends on:
// .goreleaser.yml builds the provider for the Terraform Registry, .goreleaser.cli.yml the CLI.
type goreleaserConfig struct {
	Builds []struct {
		ID      string              `yaml:"id"`
		Main    string              `yaml:"main"`
		Binary  string              `yaml:"binary"`
		Env     []string            `yaml:"env"`
		Ldflags []string            `yaml:"ldflags"`
		Goos    []string            `yaml:"goos"`
		Goarch  []string            `yaml:"goarch"`
		Ignore  []map[string]string `yaml:"ignore"`
	} `yaml:"builds"`
	Archives []struct {
		ID              string   `yaml:"id"`
		IDs             []string `yaml:"ids"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		NameTemplate string `yaml:"name_template"`
	} `yaml:"archives"`
	Checksum struct {
		IDs          []string `yaml:"ids"`
		NameTemplate string   `yaml:"name_template"`
	} `yaml:"checksum"`
}

// The GoReleaser configurations of a release: the provider's, run first, and the CLI's, run second.
const (
	providerGoreleaser = ".goreleaser.yml"
	cliGoreleaser      = ".goreleaser.cli.yml"
)

func readGoreleaser(t *testing.T, rel string) goreleaserConfig {
	t.Helper()
	var cfg goreleaserConfig
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, rel), &cfg), rel)
	return cfg
}

// renderGoreleaser renders a GoReleaser name template with the fields the release names use. Any
// other field is an error, as it is for install.sh, which renders only these three.
func renderGoreleaser(t *testing.T, tmpl, version, goos, goarch string) string {
	t.Helper()
	parsed, err := template.New("name").Option("missingkey=error").Parse(tmpl)
	require.NoError(t, err, tmpl)
	var b strings.Builder
	require.NoError(t, parsed.Execute(&b, struct{ Version, Os, Arch string }{version, goos, goarch}), tmpl)
	return b.String()
}

// cliReleaseNames returns the names GoReleaser gives, with .goreleaser.cli.yml, to the CLI's archive
// for goos/goarch and to the checksums file of the release whose .Version is version (the tag
// without its v): the archive's name_template, its format (the override for goos, else the first),
// the checksum name_template.
func cliReleaseNames(t *testing.T, cfg goreleaserConfig, version, goos, goarch string) (archive, sums string) {
	t.Helper()
	require.NotEmpty(t, cfg.Archives, cliGoreleaser)
	a := cfg.Archives[0]
	require.NotEmpty(t, a.Formats, "%s: archives[0].formats", cliGoreleaser)
	format := a.Formats[0]
	for _, o := range a.FormatOverrides {
		if o.Goos == goos {
			require.NotEmpty(t, o.Formats)
			format = o.Formats[0]
		}
	}
	return renderGoreleaser(t, a.NameTemplate, version, goos, goarch) + "." + format,
		renderGoreleaser(t, cfg.Checksum.NameTemplate, version, goos, goarch)
}

// The release builds the malipo CLI for Linux, macOS and Windows on amd64 and arm64, static, with its
// version set through the variable cliVersion reads, in a configuration of its own, next to the
// provider's, whose archives and checksum file stay as the Terraform Registry wants them: the CLI's
// archives have a checksums file of their own, named apart from SHA256SUMS. goreleaser is not run
// here (it is not available offline); this checks what the release depends on.
func TestReleaseBuildsTheCLI(t *testing.T) {
	providerCfg, cliCfg := readGoreleaser(t, providerGoreleaser), readGoreleaser(t, cliGoreleaser)
	builds := map[string]int{}
	for i, b := range cliCfg.Builds {
		builds[b.ID] = i
	}
	require.Contains(t, builds, "malipo", "a build with id malipo in %s", cliGoreleaser)
	require.Len(t, cliCfg.Builds, 1, "%s builds the CLI only: install.sh reads its first build", cliGoreleaser)
	cli := cliCfg.Builds[builds["malipo"]]
	require.Len(t, providerCfg.Builds, 1, "%s builds the provider only", providerGoreleaser)
	provider := providerCfg.Builds[0]
	assert.Equal(t, "terraform-provider-malipo", provider.ID, "the provider's build")

	assert.Equal(t, "./cmd/malipo", cli.Main)
	assert.Equal(t, "malipo", cli.Binary)
	assert.Contains(t, cli.Env, "CGO_ENABLED=0")
	for _, goos := range []string{"linux", "darwin", "windows"} {
		assert.Contains(t, cli.Goos, goos)
	}
	for _, goarch := range []string{"amd64", "arm64"} {
		assert.Contains(t, cli.Goarch, goarch)
	}
	assert.Empty(t, cli.Ignore, "install.sh takes every goos × goarch of the CLI's build for a release archive")
	// -X sets a package-level string variable: the one cliVersion returns first. The value has the
	// leading v that go install reports for the same tag (goreleaser's .Version has none).
	ldflags := strings.Join(cli.Ldflags, " ")
	m := regexp.MustCompile(`-X main\.(\w+)=(\S+(?: \.Version \}\})?)`).FindStringSubmatch(ldflags)
	require.NotNil(t, m, "the CLI's ldflags set its version: %q", ldflags)
	assert.Equal(t, "v{{ .Version }}", m[2])
	assert.True(t, isPackageStringVar(t, "version.go", m[1]), "main.%s is a package-level string variable of cmd/malipo", m[1])
	assert.Equal(t, ".", provider.Main, "the provider is still built")

	archives := map[string][]string{}
	for _, a := range providerCfg.Archives {
		archives[a.ID] = a.IDs
	}
	assert.Equal(t, map[string][]string{"terraform-provider-malipo": {"terraform-provider-malipo"}}, archives,
		"the registry's zips hold the provider only")
	require.Len(t, cliCfg.Archives, 1, "%s makes one kind of archive: install.sh reads the first", cliGoreleaser)
	assert.Equal(t, []string{"malipo"}, cliCfg.Archives[0].IDs, "the CLI has archives of its own")
	assert.Equal(t, []string{"terraform-provider-malipo"}, providerCfg.Checksum.IDs, "SHA256SUMS lists the provider's archives only, as the registry requires")

	// Both runs upload their checksums file to the same release: the names must differ, and the
	// CLI's must not be SHA256SUMS, the one file of that kind the registry reads.
	require.NotEmpty(t, cliCfg.Checksum.NameTemplate, "%s names its checksums file", cliGoreleaser)
	cliSums := renderGoreleaser(t, cliCfg.Checksum.NameTemplate, "1.2.3", "linux", "amd64")
	assert.NotEqual(t, providerCfg.Checksum.NameTemplate, cliCfg.Checksum.NameTemplate)
	assert.NotContains(t, cliSums, "SHA256SUMS")
	archive, _ := cliReleaseNames(t, cliCfg, "1.2.3", "linux", "amd64")
	assert.Equal(t, "malipo_1.2.3_linux_amd64.tar.gz", archive, "the archive names docs/cli.md gives")
	archive, _ = cliReleaseNames(t, cliCfg, "1.2.3", "windows", "arm64")
	assert.Equal(t, "malipo_1.2.3_windows_arm64.zip", archive, "the archive names docs/cli.md gives")
	assert.Contains(t, string(readRepoFile(t, "docs/cli.md")), "`"+renderGoreleaser(t, cliCfg.Checksum.NameTemplate, "<version>", "", "")+"`",
		"docs/cli.md names the checksums file")
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

// conformAction is the part of the GitHub Action (.github/actions/conform/action.yml) its tests read.
type conformAction struct {
	Inputs map[string]struct {
		Required bool   `yaml:"required"`
		Default  string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	If   string            `yaml:"if"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
}

const actionFile = ".github/actions/conform/action.yml"

func readAction(t *testing.T) conformAction {
	t.Helper()
	var action conformAction
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, actionFile), &action))
	return action
}

// The GitHub Action passes malipo conform only flags it has, installs malipo from the release by default and with go install as users
// do when asked, reads keys from the variables the CLI reads, and uploads the reports even when the
// run fails; the example workflow uses it with inputs it declares, the release install and the
// example config file.
func TestGitHubActionMatchesTheCLI(t *testing.T) {
	action := readAction(t)
	actionYAML := readRepoFile(t, actionFile)
	assert.Equal(t, "composite", action.Runs.Using)

	known := conformFlagNames(t)
	var conformRun, install, releaseIf, goIf, setupGoIf string
	uploads := false
	for _, s := range action.Runs.Steps {
		switch {
		case strings.Contains(s.Run, "malipo conform"):
			conformRun = s.Run
		case strings.Contains(s.Run, "go install"):
			install, goIf = s.Run, s.If
		case strings.Contains(s.Run, "install.sh"):
			releaseIf = s.If
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
			setupGoIf = s.If
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			uploads = true
			assert.Equal(t, "always()", s.If, "the reports are uploaded when checks fail too")
		}
	}
	require.NotEmpty(t, conformRun, "a step runs malipo conform")
	assert.True(t, uploads, "a step uploads the reports")
	assert.Contains(t, install, `go install "`+cliPackage+`@${VERSION}"`)
	// The release is the default install; go install, and Go itself, only when asked for.
	assert.Equal(t, "release", action.Inputs["install"].Default)
	assert.Equal(t, "inputs.install == 'release'", releaseIf, "a step runs install.sh for install: release")
	assert.Equal(t, "inputs.install == 'go'", goIf, "go install runs for install: go only")
	assert.Equal(t, "inputs.install == 'go'", setupGoIf, "Go is set up for install: go only")

	passed := flagsIn(conformRun)
	require.Contains(t, passed, "junit")
	require.Contains(t, passed, "json")
	require.Contains(t, passed, "config", "the action's config input reaches malipo")
	for _, name := range passed {
		assert.Contains(t, known, name, "the action passes --%s, which malipo conform does not have", name)
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
			actionPath, version, _ := strings.Cut(ref, "@")
			assert.Equal(t, path.Dir(actionFile), actionPath)
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
			assert.NotContains(t, s.With, "install", "the example installs the release, the default")
			assert.Equal(t, path.Base(ciConfigExample), s.With["config"], "the example passes the example config file")
		}
	}
	assert.Equal(t, 1, used, "the example workflow uses the action once")
}

// The action's require-extensions input has three states: empty passes no flag, so that the config
// file's setting (else malipo's default) applies; "true" and "false" pass --require-extensions=true and
// =false, which win over the file's; anything else fails the step before malipo runs. The step's script
// runs in bash as GitHub runs it, with a malipo that records its arguments, which the CLI then reads.
func TestGitHubActionRequireExtensionsIsTriState(t *testing.T) {
	action := readAction(t)
	assert.Empty(t, action.Inputs["require-extensions"].Default, "empty by default: the config file decides")
	var step actionStep
	for _, s := range action.Runs.Steps {
		if strings.Contains(s.Run, "malipo conform") {
			step = s
		}
	}
	require.NotEmpty(t, step.Run)
	assert.Equal(t, "${{ inputs.require-extensions }}", step.Env["REQUIRE_EXTENSIONS"])

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "malipo"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$ARGS_FILE\"\n"), 0o700)) //nolint:gosec // a script the test runs
	config := writeConfig(t, "conform:\n  require-extensions: true\n")
	for _, c := range []struct{ input, want string }{
		{"", `--require-extensions\s+true\s+` + regexp.QuoteMeta(config) + `:2 conform.require-extensions`},
		{"true", `--require-extensions\s+true\s+command line`},
		{"false", `--require-extensions\s+false\s+command line`},
		{"yes", ""},
	} {
		t.Run("input "+c.input, func(t *testing.T) {
			argsFile := filepath.Join(t.TempDir(), "args")
			env := []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), "ARGS_FILE=" + argsFile,
				"GITHUB_OUTPUT=" + filepath.Join(t.TempDir(), "output"), "REPORTS=" + filepath.Join(t.TempDir(), "reports"),
				"CONFIG=" + config, "REQUIRE_EXTENSIONS=" + c.input}
			for name, value := range step.Env {
				if !strings.Contains(value, "inputs.") {
					continue
				}
				if name == "TARGET" {
					env = append(env, name+"=http://127.0.0.1:9")
				} else if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") }) {
					env = append(env, name+"=")
				}
			}
			sh := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step.Run)
			sh.Env = env
			out, err := sh.CombinedOutput()
			if c.want == "" {
				require.Error(t, err, "%s", out)
				assert.Contains(t, string(out), "::error title=malipo require-extensions::require-extensions is 'yes'")
				assert.NoFileExists(t, argsFile, "malipo does not run")
				return
			}
			require.NoError(t, err, "%s", out)
			data, err := os.ReadFile(argsFile)
			require.NoError(t, err)
			args := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			require.Equal(t, "conform", args[0])
			code, stdout, stderr := runCLI(t, append(args, "--config-check")...)
			require.Equal(t, exitOK, code, "malipo %v: %s", args, stderr)
			assert.Regexp(t, `(?m)^`+c.want+`$`, stdout)
		})
	}
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
