package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v4"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

// version is the release's version. goreleaser sets it (-ldflags "-X main.version=v1.2.3"); other
// builds leave it empty and cliVersion reads the module version that `go install ...@v1.2.3` stamps
// into the binary.
var version string

// cliVersion is the version of this binary: the one goreleaser set, else the main module's version
// from the build info ("v1.2.3" when installed at a version, a pseudo-version when built from a
// checkout with VCS stamping), else "(devel)".
func cliVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "(devel)"
}

// versionCommand is `malipo version`, the same as `malipo --version`.
func (c *cli) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "version",
		Short:             "print the version of malipo, of Go and of the contract it embeds",
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE:              func(*cobra.Command, []string) error { return c.printVersion() },
	}
}

// printVersion prints the binary's version on the first line (for scripts: `malipo version | head -1`),
// then the Go release and platform it was built with, then the title and info.version of the embedded
// contract, which is what a conformance result is against.
func (c *cli) printVersion() error {
	// Only the info block is read: loading the whole document into the OpenAPI model would cost
	// every `malipo --version` a validation of the document.
	var doc struct {
		Info struct {
			Title   string `yaml:"title"`
			Version string `yaml:"version"`
		} `yaml:"info"`
	}
	if err := yaml.Unmarshal(openapi.YAML(), &doc); err != nil {
		return fmt.Errorf("read the embedded contract's version: %w", err)
	}
	_, err := fmt.Fprintf(c.stdout, "malipo %s\ngo: %s %s/%s\ncontract: %s %s\n",
		cliVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH, doc.Info.Title, doc.Info.Version)
	return err
}
