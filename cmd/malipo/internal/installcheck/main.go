// Command installcheck proves that `go install github.com/malipo/terraform-provider-malipo/cmd/malipo@VERSION`
// works for a user outside the repository, and that the binary it installs reports VERSION.
//
// It publishes the committed HEAD as VERSION on a module proxy of its own (a directory in the layout
// of GOPROXY=file://: <module>/@v/list, VERSION.info, .mod, .zip, the zip made by golang.org/x/mod/zip
// as the public proxy makes it), then runs `go install ...@VERSION` in an empty directory outside the
// repository, with that proxy first in GOPROXY and the checksum database skipped for this module only
// (GONOSUMDB: it was never published), and runs `malipo version`, `malipo --version` and `malipo spec
// --check` from what it installed. Everything go install refuses at a version (replace or exclude
// directives, files the module zip cannot hold, a package that does not build outside the module)
// fails here as it would for a user.
//
// Dependencies come from the usual module cache, so that their compiled packages are reused; the
// module itself is removed from that cache afterwards, so a later run never installs a stale copy.
// Run it with `make install-check`; it checks HEAD, not uncommitted changes.
package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	keep := flag.Bool("keep", false, "keep the temporary proxy, work directory and binary, and print where they are")
	ver := flag.String("version", "", "version to publish and install (default v0.0.0-installcheck-<HEAD's commit>)")
	flag.Parse()
	if err := check(*ver, *keep); err != nil {
		fmt.Fprintf(os.Stderr, "install-check: FAIL: %v\n", err)
		os.Exit(1)
	}
}

func check(ver string, keep bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	repo, err := output(ctx, "", "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	head, err := output(ctx, repo, "git", "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	if dirty, _ := output(ctx, repo, "git", "status", "--porcelain", "--untracked-files=no"); dirty != "" {
		fmt.Println("install-check: note: uncommitted changes are not checked; this publishes HEAD", head[:12])
	}
	if ver == "" {
		ver = "v0.0.0-installcheck-" + head[:12]
	}
	goMod, err := output(ctx, repo, "git", "show", "HEAD:go.mod")
	if err != nil {
		return err
	}
	modPath, err := installable(goMod + "\n")
	if err != nil {
		return err
	}
	mv := module.Version{Path: modPath, Version: ver}
	if err := module.Check(mv.Path, mv.Version); err != nil {
		return err
	}

	tmp, err := os.MkdirTemp("", "malipo-install-check-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("install-check: keeping", tmp)
	} else {
		defer func() { _ = os.RemoveAll(tmp) }()
	}
	proxy := filepath.Join(tmp, "proxy")
	if err := publish(ctx, repo, proxy, mv, goMod+"\n"); err != nil {
		return fmt.Errorf("publish HEAD as %s: %w", ver, err)
	}

	env, err := installEnv(ctx, proxy, tmp, modPath)
	if err != nil {
		return err
	}
	defer forget(ctx, mv)
	work := filepath.Join(tmp, "work") // empty, outside the repository: no go.mod applies
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	pkg := modPath + "/cmd/malipo@" + ver
	start := time.Now()
	install := exec.CommandContext(ctx, "go", "install", pkg)
	install.Dir, install.Env = work, env
	if out, err := install.CombinedOutput(); err != nil {
		return fmt.Errorf("go install %s: %w\n%s", pkg, err, out)
	}
	took := time.Since(start).Round(time.Second)

	bin := filepath.Join(tmp, "bin", "malipo")
	want := "malipo " + ver
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := output(ctx, work, bin, args...)
		if err != nil {
			return err
		}
		if first, _, _ := strings.Cut(out, "\n"); first != want {
			return fmt.Errorf("malipo %s printed %q first, want %q:\n%s", args[0], first, want, out)
		}
	}
	if _, err := output(ctx, work, bin, "spec", "--check"); err != nil {
		return err
	}
	fmt.Printf("install-check: ok: go install %s from a fresh proxy in %s; malipo version prints %q\n", pkg, took, want)
	return nil
}

// installable returns the module path of go.mod, or why `go install path@version` would refuse the
// module: it refuses replace and exclude directives in the go.mod of the module it installs.
func installable(goMod string) (string, error) {
	f, err := modfile.Parse("go.mod", []byte(goMod), nil)
	if err != nil {
		return "", err
	}
	if f.Module == nil {
		return "", errors.New("go.mod has no module line")
	}
	var bad []string
	for _, r := range f.Replace {
		bad = append(bad, "replace "+r.Old.Path)
	}
	for _, e := range f.Exclude {
		bad = append(bad, "exclude "+e.Mod.Path)
	}
	if len(bad) > 0 {
		return "", fmt.Errorf("go.mod has %s: go install ...@version refuses a module with replace or exclude directives; remove them",
			strings.Join(bad, ", "))
	}
	return f.Module.Mod.Path, nil
}

// publish writes mv to proxy in the GOPROXY layout, its zip made from the files of HEAD as git
// archive gives them (what the public proxy fetches for a tag).
func publish(ctx context.Context, repo, proxy string, mv module.Version, goMod string) error {
	escaped, err := module.EscapePath(mv.Path)
	if err != nil {
		return err
	}
	dir := filepath.Join(proxy, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	archive := exec.CommandContext(ctx, "git", "-c", "core.autocrlf=input", "-c", "core.eol=lf", "archive", "--format=zip", "HEAD")
	archive.Dir = repo
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	data, err := archive.Output()
	if err != nil {
		return fmt.Errorf("git archive: %w: %s", err, stderr.String())
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	var files []modzip.File
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, "/") {
			files = append(files, archiveFile{f})
		}
	}
	zf, err := os.Create(filepath.Join(dir, mv.Version+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.Create(zf, mv, files); err != nil {
		_ = zf.Close()
		return err
	}
	if err := zf.Close(); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{mv.Version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	for name, content := range map[string]string{"list": mv.Version + "\n", mv.Version + ".info": string(info), mv.Version + ".mod": goMod} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// archiveFile is a file of git archive's zip, as golang.org/x/mod/zip reads files.
type archiveFile struct{ f *zip.File }

func (a archiveFile) Path() string                { return a.f.Name }
func (a archiveFile) Lstat() (fs.FileInfo, error) { return a.f.FileInfo(), nil }
func (a archiveFile) Open() (io.ReadCloser, error) {
	return a.f.Open()
}

// installEnv is the environment of a user outside the repository: the test proxy before the usual
// ones (dependencies fall through to them, or come from the module cache), no checksum database
// lookup for the unpublished module (and only for it), no workspace, no toolchain switch, GOFLAGS
// cleared, and the binary installed into tmp/bin.
func installEnv(ctx context.Context, proxy, tmp, modPath string) ([]string, error) {
	upstream, err := output(ctx, "", "go", "env", "GOPROXY")
	if err != nil {
		return nil, err
	}
	env := []string{}
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "GOPROXY", "GONOSUMDB", "GONOPROXY", "GOPRIVATE", "GOFLAGS", "GOWORK", "GOBIN", "GOTOOLCHAIN":
		default:
			env = append(env, kv)
		}
	}
	return append(env,
		"GOPROXY=file://"+filepath.ToSlash(proxy)+","+upstream,
		"GONOSUMDB="+modPath,
		"GOFLAGS=",
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		"GOBIN="+filepath.Join(tmp, "bin"),
	), nil
}

// forget removes mv from the module cache, where go install put it: the cache trusts a version once
// downloaded, and the next run may publish other content under it.
func forget(ctx context.Context, mv module.Version) {
	cache, err := output(ctx, "", "go", "env", "GOMODCACHE")
	if err != nil || cache == "" {
		return
	}
	escaped, err := module.EscapePath(mv.Path)
	if err != nil {
		return
	}
	escapedVer, err := module.EscapeVersion(mv.Version)
	if err != nil {
		return
	}
	extracted := filepath.Join(cache, filepath.FromSlash(escaped)+"@"+escapedVer)
	// The module cache is read-only; make it writable to remove it.
	_ = filepath.WalkDir(extracted, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	_ = os.RemoveAll(extracted)
	dir := filepath.Join(cache, "cache", "download", filepath.FromSlash(escaped), "@v")
	downloads, _ := filepath.Glob(filepath.Join(dir, escapedVer+".*"))
	for _, p := range downloads {
		_ = os.Remove(p)
	}
	// The go command also lists the versions it downloaded; keep the others.
	list := filepath.Join(dir, "list")
	if data, err := os.ReadFile(list); err == nil {
		var keep []string
		for _, v := range strings.Fields(string(data)) {
			if v != mv.Version {
				keep = append(keep, v)
			}
		}
		if len(keep) == 0 {
			_ = os.Remove(list)
		} else {
			_ = os.WriteFile(list, []byte(strings.Join(keep, "\n")+"\n"), 0o644)
		}
	}
}

// output runs a command and returns its trimmed standard output; its error includes standard error.
func output(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s%s", name, strings.Join(args, " "), err, out, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}
