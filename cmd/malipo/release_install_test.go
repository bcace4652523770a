package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"
	"golang.org/x/mod/modfile"
)

// The CI examples and the config file they share.
const (
	ciConfigExample = "examples/ci/malipo.yaml"
	gitlabExample   = "examples/ci/gitlab-ci.yml"
)

// standInMalipo is what the test releases' archives hold for malipo: a script that answers `malipo
// version` as a release build of that tag does. install.sh unpacks, runs and puts on PATH whatever
// the archive holds, so a real build would prove nothing more here, and linking one takes longer than
// every install of this test (the real binary's version is checked by TestReleaseBuildsTheCLI's
// ldflags and by make install-check).
func standInMalipo(tag string) []byte {
	return []byte("#!/bin/sh\necho 'malipo " + tag + "'\necho 'go: stand-in'\n")
}

// testRelease is a release as GoReleaser publishes it with .goreleaser.cli.yml: the CLI's archive for
// every goos/goarch of its build, each holding the binary next to a README, and the checksums file,
// one `<sha256>  <name>` line per archive.
type testRelease struct {
	tag    string
	files  map[string][]byte
	sums   string            // the checksums file's name
	digest map[string]string // archive name → SHA-256 listed
}

func newTestRelease(t *testing.T, cfg goreleaserConfig, tag string) *testRelease {
	t.Helper()
	r := &testRelease{tag: tag, files: map[string][]byte{}, digest: map[string]string{}}
	build := cfg.Builds[0]
	var lines []string
	for _, goos := range build.Goos {
		for _, goarch := range build.Goarch {
			archive, sums := cliReleaseNames(t, cfg, strings.TrimPrefix(tag, "v"), goos, goarch)
			r.sums = sums
			binary := build.Binary
			if goos == "windows" {
				binary += ".exe"
			}
			members := map[string][]byte{binary: standInMalipo(tag), "README.md": []byte("# malipo\n")}
			var data []byte
			switch {
			case strings.HasSuffix(archive, ".tar.gz"):
				data = tarGz(t, members)
			case strings.HasSuffix(archive, ".zip"):
				data = zipArchive(t, members)
			default:
				t.Fatalf("%s: a format this test cannot pack", archive)
			}
			r.files[archive] = data
			sum := sha256.Sum256(data)
			r.digest[archive] = hex.EncodeToString(sum[:])
			lines = append(lines, r.digest[archive]+"  "+archive)
		}
	}
	slices.Sort(lines)
	r.files[r.sums] = []byte(strings.Join(lines, "\n") + "\n")
	return r
}

// archive returns the name of the archive for goos/goarch.
func (r *testRelease) archive(t *testing.T, cfg goreleaserConfig, goos, goarch string) string {
	t.Helper()
	archive, _ := cliReleaseNames(t, cfg, strings.TrimPrefix(r.tag, "v"), goos, goarch)
	require.Contains(t, r.files, archive)
	return archive
}

func tarGz(t *testing.T, members map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range sortedKeys(members) {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(members[name])), Typeflag: tar.TypeReg}))
		_, err := tw.Write(members[name])
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

func zipArchive(t *testing.T, members map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(members) {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(0o755)
		w, err := zw.CreateHeader(h)
		require.NoError(t, err)
		_, err = w.Write(members[name])
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// releaseServer serves releases as GitHub does under <base>/releases: files at
// download/<tag>/<name>, and latest redirecting to tag/<the latest tag>. It records the paths asked.
type releaseServer struct {
	*httptest.Server
	mu    sync.Mutex
	asked []string
}

func newReleaseServer(t *testing.T, latest string, releases ...*testRelease) *releaseServer {
	t.Helper()
	s := &releaseServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked = append(s.asked, r.URL.Path)
		s.mu.Unlock()
		if r.URL.Path == "/releases/latest" {
			http.Redirect(w, r, s.URL+"/releases/tag/"+latest, http.StatusFound)
			return
		}
		for _, rel := range releases {
			if name, ok := strings.CutPrefix(r.URL.Path, "/releases/download/"+rel.tag+"/"); ok {
				if data, ok := rel.files[name]; ok {
					_, _ = w.Write(data)
					return
				}
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// takeAsked returns the paths asked since the last call.
func (s *releaseServer) takeAsked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	asked := s.asked
	s.asked = nil
	return asked
}

// installRun is one run of the action's install step.
type installRun struct {
	code              int
	output            string
	runnerTemp, ghDir string // RUNNER_TEMP, and the directory of the GITHUB_PATH file
	tmp               string // TMPDIR
	took              time.Duration
}

// pathFile returns the lines the step appended to GITHUB_PATH (none if it wrote no file).
func (r installRun) pathFile(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.ghDir, "github_path"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Fields(string(data))
}

// runInstallStep runs the action's install step as GitHub runs a `shell: bash` step (bash --noprofile
// --norc -eo pipefail on a file holding run), in the environment the step declares, each
// ${{ inputs.NAME }} replaced with inputs[NAME], and the variables GitHub sets for a composite
// action's step on a runner of runnerOS/runnerArch.
func runInstallStep(t *testing.T, step actionStep, inputs map[string]string, runnerOS, runnerArch string) installRun {
	t.Helper()
	dir := t.TempDir()
	run := installRun{runnerTemp: filepath.Join(dir, "runner_temp"), ghDir: filepath.Join(dir, "github"), tmp: filepath.Join(dir, "tmp")}
	for _, d := range []string{run.runnerTemp, run.ghDir, run.tmp} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	script := filepath.Join(dir, "step.sh")
	require.NoError(t, os.WriteFile(script, []byte(step.Run), 0o644))
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"TMPDIR=" + run.tmp,
		"GITHUB_ACTION_PATH=" + filepath.Join(repoRoot(t), filepath.Dir(actionFile)),
		"GITHUB_PATH=" + filepath.Join(run.ghDir, "github_path"),
		"RUNNER_OS=" + runnerOS,
		"RUNNER_ARCH=" + runnerArch,
		"RUNNER_TEMP=" + run.runnerTemp,
	}
	input := regexp.MustCompile(`^\$\{\{ inputs\.([a-z-]+) \}\}$`)
	for name, value := range step.Env {
		m := input.FindStringSubmatch(value)
		require.NotNil(t, m, "the install step's %s is an input: %q", name, value)
		v, ok := inputs[m[1]]
		require.True(t, ok, "the test gives input %s", m[1])
		env = append(env, name+"="+v)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	run.took = time.Since(start)
	run.output = string(out)
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s", out)
		run.code = exit.ExitCode()
	}
	return run
}

// runnerNames are GitHub's RUNNER_OS and RUNNER_ARCH for Go's GOOS and GOARCH.
var runnerNames = map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows", "amd64": "X64", "arm64": "ARM64"}

// The action's install step installs the release archive for the runner's OS and architecture, named
// as .goreleaser.cli.yml names it, after checking its SHA-256 against the release's checksums file,
// and puts malipo on the PATH of the job's next steps; "latest" is the tag GitHub's
// releases/latest redirects to. An archive whose digest differs from its line, an archive without a
// line and a tag without a release are each refused with a message that says so, and install nothing.
func TestInstallScriptInstallsARelease(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "tar", "unzip"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "install.sh needs %s", tool)
	}
	cfg := readGoreleaser(t, cliGoreleaser)
	action := readAction(t)
	var step actionStep
	for _, s := range action.Runs.Steps {
		if strings.Contains(s.Run, "install.sh") {
			step = s
		}
	}
	require.NotEmpty(t, step.Run, "a step of %s runs install.sh", actionFile)

	good := newTestRelease(t, cfg, "v1.2.3")
	tampered := newTestRelease(t, cfg, "v1.2.4-rc.1")
	tamperedArchive := tampered.archive(t, cfg, "linux", "amd64")
	tampered.files[tamperedArchive] = append(slices.Clone(tampered.files[tamperedArchive]), 0)
	tamperedSum := sha256.Sum256(tampered.files[tamperedArchive])
	unlisted := newTestRelease(t, cfg, "v1.2.5")
	unlistedArchive := unlisted.archive(t, cfg, "linux", "amd64")
	var kept []string
	for _, line := range strings.SplitAfter(string(unlisted.files[unlisted.sums]), "\n") {
		if !strings.HasSuffix(line, "  "+unlistedArchive+"\n") {
			kept = append(kept, line)
		}
	}
	unlisted.files[unlisted.sums] = []byte(strings.Join(kept, ""))
	require.NotContains(t, string(unlisted.files[unlisted.sums]), unlistedArchive)
	server := newReleaseServer(t, good.tag, good, tampered, unlisted)
	inputs := func(version string) map[string]string {
		return map[string]string{"version": version, "releases-url": server.URL + "/releases"}
	}

	// installed checks that run put the stand-in of tag on the PATH file, in RUNNER_TEMP, and that it
	// runs from there by its name.
	installed := func(t *testing.T, run installRun, tag, goos string) {
		t.Helper()
		require.Equal(t, 0, run.code, run.output)
		dirs := run.pathFile(t)
		require.Len(t, dirs, 1, "one directory added to GITHUB_PATH")
		assert.Equal(t, filepath.Join(run.runnerTemp, "malipo-"+tag), dirs[0])
		binary := "malipo"
		if goos == "windows" {
			binary = "malipo.exe"
		}
		entries, err := os.ReadDir(dirs[0])
		require.NoError(t, err)
		require.Len(t, entries, 1, "the directory on PATH holds malipo alone")
		assert.Equal(t, binary, entries[0].Name())
		cmd := exec.Command("bash", "-c", binary+" version")
		cmd.Env = []string{"PATH=" + dirs[0] + string(os.PathListSeparator) + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Equal(t, "malipo "+tag, strings.SplitN(string(out), "\n", 2)[0])
		tmp, err := os.ReadDir(run.tmp)
		require.NoError(t, err)
		assert.Empty(t, tmp, "the downloads are removed")
	}
	// refused checks that run failed with a message holding each of want, and installed nothing.
	refused := func(t *testing.T, run installRun, want ...string) {
		t.Helper()
		assert.Equal(t, 1, run.code, run.output)
		for _, w := range want {
			assert.Contains(t, run.output, w)
		}
		assert.Empty(t, run.pathFile(t), "nothing added to GITHUB_PATH")
		for _, dir := range []string{run.runnerTemp, run.tmp} {
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, entries, "nothing left in %s", dir)
		}
	}

	build := cfg.Builds[0]
	for _, goos := range build.Goos {
		for _, goarch := range build.Goarch {
			t.Run(goos+"/"+goarch, func(t *testing.T) {
				archive, sums := cliReleaseNames(t, cfg, "1.2.3", goos, goarch)
				run := runInstallStep(t, step, inputs(good.tag), runnerNames[goos], runnerNames[goarch])
				t.Logf("installed %s in %s", archive, run.took.Round(time.Millisecond))
				installed(t, run, good.tag, goos)
				assert.Contains(t, run.output, good.digest[archive], "the step logs the digest it checked")
				assert.ElementsMatch(t, []string{"/releases/download/v1.2.3/" + archive, "/releases/download/v1.2.3/" + sums},
					server.takeAsked(), "the step asks for GoReleaser's names and nothing else")
			})
		}
	}
	t.Run("latest", func(t *testing.T) {
		run := runInstallStep(t, step, inputs("latest"), "Linux", "X64")
		installed(t, run, good.tag, "linux")
		assert.Contains(t, run.output, "latest is "+good.tag)
		assert.Equal(t, "/releases/latest", server.takeAsked()[0])
	})
	t.Run("not a release tag", func(t *testing.T) {
		// A tag names the files asked for and the directory made: nothing but a version's characters.
		for _, tag := range []string{"1.2.3", "v1.2.3/../../x", "v1.2.3?x=1", "v1.2.3 x", "vx"} {
			run := runInstallStep(t, step, inputs(tag), "Linux", "X64")
			refused(t, run, "version '"+tag+"' is not a release tag")
			assert.Empty(t, server.takeAsked(), "%q: nothing downloaded", tag)
		}
	})
	t.Run("tampered archive", func(t *testing.T) {
		run := runInstallStep(t, step, inputs(tampered.tag), "Linux", "X64")
		refused(t, run, "refusing "+tamperedArchive, "its SHA-256 is "+hex.EncodeToString(tamperedSum[:]),
			tampered.sums+" says "+tampered.digest[tamperedArchive], "nothing was installed")
		server.takeAsked()
	})
	t.Run("no checksum line", func(t *testing.T) {
		run := runInstallStep(t, step, inputs(unlisted.tag), "Linux", "X64")
		refused(t, run, "refusing "+unlistedArchive, unlisted.sums+" has no line for it", "nothing was installed")
		server.takeAsked()
	})
	t.Run("no such release", func(t *testing.T) {
		archive, _ := cliReleaseNames(t, cfg, "9.9.9", "linux", "arm64")
		run := runInstallStep(t, step, inputs("v9.9.9"), "Linux", "ARM64")
		refused(t, run, "cannot download "+archive, "HTTP 404", "install: go")
		server.takeAsked()
	})
	t.Run("platform the release lacks", func(t *testing.T) {
		run := runInstallStep(t, step, inputs(good.tag), "Linux", "ARM")
		refused(t, run, "no malipo for linux/arm", "install: go")
		assert.Empty(t, server.takeAsked(), "nothing is downloaded")
	})
}

// examples/ci/malipo.yaml, the config file of both CI examples, uses only flags malipo conform has,
// names its keys as environment variables, and writes the reports where the action puts them.
func TestCIConfigExampleUsesConformFlags(t *testing.T) {
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, ciConfigExample), &cfg))
	known := conformFlagNames(t)
	conform, ok := cfg["conform"].(map[string]any)
	require.True(t, ok, "%s has a conform section", ciConfigExample)
	settings := map[string]any{}
	for key, v := range cfg {
		if key != "conform" {
			settings[key] = v
		}
	}
	for key, v := range conform {
		settings[key] = v
	}
	for key, v := range settings {
		assert.Contains(t, known, key, "%s sets %s, which malipo conform does not have", ciConfigExample, key)
		if strings.HasSuffix(key, "-key") {
			assert.Regexp(t, `^\$\{MALIPO_[A-Z_]+\}$`, v, "%s gives %s as an environment variable only", ciConfigExample, key)
		}
	}

	// The action writes the reports to reports-dir, whatever the file says; the file says the same.
	action := readAction(t)
	reports := action.Inputs["reports-dir"].Default
	for _, s := range action.Runs.Steps {
		if strings.Contains(s.Run, "malipo conform") {
			for _, flag := range []string{"junit", "json", "html"} {
				file, ok := conform[flag].(string)
				require.True(t, ok, "%s sets conform.%s", ciConfigExample, flag)
				assert.Equal(t, reports, path.Dir(file), "conform.%s is in the action's reports-dir", flag)
				assert.Contains(t, s.Run, "--"+flag+` "$REPORTS/`+path.Base(file)+`"`, "the action's --%s names the file's", flag)
			}
		}
	}
}

// examples/ci/gitlab-ci.yml downloads the archive and checksums file GoReleaser names, from this
// repository's releases, checks the archive with sha256sum, runs malipo conform with the example
// config file, and hands GitLab the JUnit report that file names, also when a check fails.
func TestGitLabExampleInstallsTheReleaseAndReportsJUnit(t *testing.T) {
	var pipeline map[string]yaml.Node
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, gitlabExample), &pipeline))
	type job struct {
		Variables    map[string]string `yaml:"variables"`
		BeforeScript []string          `yaml:"before_script"`
		Script       []string          `yaml:"script"`
		Artifacts    struct {
			When    string   `yaml:"when"`
			Paths   []string `yaml:"paths"`
			Reports struct {
				JUnit string `yaml:"junit"`
			} `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	var jobs []job
	for name, node := range pipeline {
		var j job
		if node.Kind != yaml.MappingNode || node.Decode(&j) != nil || j.Script == nil {
			continue // a global keyword (variables, stages, ...), not a job
		}
		t.Logf("job %s", name)
		jobs = append(jobs, j)
	}
	require.Len(t, jobs, 1, "%s has one job", gitlabExample)
	j := jobs[0]

	var cfg struct {
		Conform struct {
			JUnit string `yaml:"junit"`
		} `yaml:"conform"`
	}
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, ciConfigExample), &cfg))
	require.NotEmpty(t, cfg.Conform.JUnit)
	assert.Equal(t, cfg.Conform.JUnit, j.Artifacts.Reports.JUnit, "GitLab reads the JUnit report %s writes", ciConfigExample)
	assert.Contains(t, j.Artifacts.Paths, path.Dir(cfg.Conform.JUnit)+"/", "the JSON and HTML reports are kept too")
	assert.Equal(t, "always", j.Artifacts.When, "the reports are uploaded when checks fail too")

	script := strings.Join(append(slices.Clone(j.BeforeScript), j.Script...), "\n")
	// The names are GoReleaser's for a Linux runner, with .Version the pinned tag without its v.
	assert.Contains(t, script, "version=${MALIPO_VERSION#v}")
	assert.Regexp(t, `^v\d+\.\d+\.\d+$`, j.Variables["MALIPO_VERSION"], "the example pins a release")
	goreleaser := readGoreleaser(t, cliGoreleaser)
	archive, sums := cliReleaseNames(t, goreleaser, "${version}", "linux", "amd64")
	assert.Contains(t, script, "archive="+archive)
	assert.Contains(t, script, "sums="+sums)
	mod, err := modfile.Parse("go.mod", readRepoFile(t, "go.mod"), nil)
	require.NoError(t, err)
	assert.Equal(t, "https://"+mod.Module.Mod.Path+"/releases/download", j.Variables["MALIPO_RELEASES"], "this repository's releases")
	assert.Contains(t, script, `curl -fsSLO "$MALIPO_RELEASES/$MALIPO_VERSION/$archive"`)
	assert.Contains(t, script, `curl -fsSLO "$MALIPO_RELEASES/$MALIPO_VERSION/$sums"`)
	assert.Contains(t, script, `awk -v f="$archive" '$2 == f' "$sums" | sha256sum --check --strict -`)
	assert.Contains(t, script, `tar -xzf "$archive" malipo`)
	// The config file, at the project's root as the example tells, sets every flag.
	conform := regexp.MustCompile(`(?m)^malipo conform(.*)$`).FindStringSubmatch(script)
	require.NotNil(t, conform, "the job runs malipo conform")
	known := conformFlagNames(t)
	for _, name := range flagsIn(conform[1]) {
		assert.Contains(t, known, name, "the GitLab example passes --%s, which malipo conform does not have", name)
	}
}
