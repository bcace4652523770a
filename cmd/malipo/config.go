package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/malipo/terraform-provider-malipo/cmd/malipo/internal/cliconfig"
)

// The settings file: the commands that act on a target or run the sandbox (those newRoot passes to
// cliconfig.Configure) take their flags from malipo.yaml too, under the command line. Which file
// (--config, $MALIPO_CONFIG, ./malipo.yaml, --no-config), --config-check and `malipo config schema`
// are here; the file's format is cliconfig's.

const (
	// configFile is the settings file read from the working directory when no other is named.
	configFile = "malipo.yaml"
	// configEnv names the settings file when --config does not.
	configEnv = "MALIPO_CONFIG"
	// schemaURL is where the JSON Schema of the settings file is published: malipo.schema.json at the
	// root of the repository, which `make config-schema` writes from `malipo config schema`.
	schemaURL = "https://raw.githubusercontent.com/malipo/terraform-provider-malipo/main/malipo.schema.json"
)

// configFlags are the root's flags about the settings file, which every command inherits, and what
// the file gave the command that runs.
type configFlags struct {
	path        string
	none, check bool
	used        settingsUsed
}

// settingsUsed is what the settings file gave the command that runs, for the command lines it prints
// to run it again (conform's and webhooks test's reruns): they read the same file, and leave it the
// flags it set, so that a rerun repeats no value the file took from a variable.
type settingsUsed struct {
	// path is the file as the user named it (--config, $MALIPO_CONFIG) or as it was found
	// (malipo.yaml); "" when none was read.
	path string
	// none is --no-config.
	none bool
	// fromFile holds the flags the file set.
	fromFile map[string]bool
}

// args are the flags that make a rerun read the settings this run read.
func (u settingsUsed) args() []string {
	switch {
	case u.path != "":
		return []string{"--config", u.path}
	case u.none:
		return []string{"--no-config"}
	}
	return nil
}

// onCommandLine reports whether fl was given on the command line, not by the settings file.
func (u settingsUsed) onCommandLine(fl *pflag.Flag) bool { return fl.Changed && !u.fromFile[fl.Name] }

func (c *cli) declareConfigFlags(root *cobra.Command) {
	fs := root.PersistentFlags()
	fs.StringVar(&c.config.path, "config", "", "read the settings from this `file` (default $"+configEnv+", else ./"+configFile+" when there is one)")
	fs.BoolVar(&c.config.none, "no-config", false, "read no settings file")
	fs.BoolVar(&c.config.check, "config-check", false, "print every flag's value and where it came from (command line, settings file, environment, default), secrets redacted, and exit without running")
	_ = root.MarkPersistentFlagFilename("config", "yaml", "yml")
}

// applyConfig is the root's PersistentPreRunE: for a command that reads the settings file, it sets
// the flags the command line left unset from the file and, with --config-check, prints them all and
// keeps the command from running.
func (c *cli) applyConfig(cmd *cobra.Command, _ []string) error {
	if !cliconfig.Configured(cmd) {
		for _, name := range []string{"config", "config-check"} {
			if fl := cmd.Flag(name); fl != nil && fl.Changed && cmd.HasParent() {
				return usageErrorf(cmd, "--%s: %s reads no settings file; %s do", name, cmd.CommandPath(), configuredCommands(cmd.Root()))
			} else if fl != nil && fl.Changed {
				return usageErrorf(cmd, "--%s goes with a command that reads a settings file (%s), e.g. malipo conform --%s", name, configuredCommands(cmd), name)
			}
		}
		return nil
	}
	file, from, err := c.configFile(cmd)
	if err != nil {
		return err
	}
	checked := file.Check(cmd.Root())
	settings, err := cliconfig.Apply(cmd, file, os.LookupEnv)
	if err := cliconfig.Join(checked, err); err != nil {
		return configError(cmd, err)
	}
	c.config.used = settingsUsed{none: c.config.none, fromFile: map[string]bool{}}
	if file != nil {
		c.config.used.path = file.Path
	}
	for _, s := range settings {
		if s.Source.Kind == cliconfig.FromFile {
			c.config.used.fromFile[s.Flag.Name] = true
		}
	}
	if !c.config.check {
		// A value the user gave and the command does not use is said, not left to be found.
		for _, s := range settings {
			if s.Dropped {
				fmt.Fprintf(c.stderr, "%s: --%s: not using %s\n", cmd.CommandPath(), s.Flag.Name, s.Ignored)
			}
		}
		return nil
	}
	fmt.Fprintf(c.stdout, "%s: settings file: %s\nEach flag from the first of: %s.\n\n", cmd.CommandPath(), from, cliconfig.Precedence)
	if err := cliconfig.WriteSettings(c.stdout, settings, os.LookupEnv); err != nil {
		return err
	}
	cmd.RunE = func(*cobra.Command, []string) error { return nil } // checked, not run
	return nil
}

// configFile finds and reads the settings file: --config, else $MALIPO_CONFIG, else ./malipo.yaml if
// there is one and it is not an OpenAPI document (which conform's --spec may well be called). It
// returns nil without one, and says where it looked (from).
func (c *cli) configFile(cmd *cobra.Command) (file *cliconfig.File, from string, err error) {
	flag := cmd.Flag("config")
	path, named := c.config.path, "--config "+c.config.path
	switch {
	case c.config.none && flag.Changed:
		return nil, "", usageErrorf(cmd, "give --config or --no-config, not both")
	case c.config.none:
		return nil, "none (--no-config)", nil
	case flag.Changed && path == "":
		return nil, "", usageErrorf(cmd, "--config needs a file; --no-config reads none")
	case flag.Changed:
	case os.Getenv(configEnv) != "":
		path, named = os.Getenv(configEnv), "$"+configEnv+" "+os.Getenv(configEnv)
	default:
		path, named = configFile, ""
	}
	file, err = cliconfig.Load(path, cliconfig.Options{Suggest: closestName, Cause: valueCause})
	switch {
	case named == "" && errors.Is(err, fs.ErrNotExist):
		return nil, "none (no ./" + configFile + ")", nil
	case err != nil && named != "" && errors.Is(err, fs.ErrNotExist):
		return nil, "", usageErrorf(cmd, "%s: no such file", named)
	case err != nil:
		return nil, "", configError(cmd, err)
	case file.Has("openapi") && named == "":
		return nil, "none (./" + configFile + " is an OpenAPI document)", nil
	case file.Has("openapi"):
		return nil, "", usageErrorf(cmd, "%s is an OpenAPI document, not a settings file (conform takes a document with --spec)", named)
	case named == "":
		// Read without being named: say so, since it changes what the command does.
		fmt.Fprintf(c.stderr, "%s: settings from ./%s (--no-config ignores it)\n", cmd.CommandPath(), configFile)
	}
	return file, path, nil
}

// configError is a usage error listing what is wrong in the settings file, one line each.
func configError(cmd *cobra.Command, err error) error {
	var errs cliconfig.Errors
	if errors.As(err, &errs) && len(errs) > 1 {
		return usageErrorf(cmd, "%d problems in the settings file:\n  %s", len(errs), strings.ReplaceAll(errs.Error(), "\n", "\n  "))
	}
	return usageErrorf(cmd, "%v", err)
}

// configuredCommands names the commands under root that read the settings file.
func configuredCommands(root *cobra.Command) string {
	var names []string
	for _, sub := range root.Commands() {
		if cliconfig.Configured(sub) {
			names = append(names, sub.Name())
		}
	}
	return strings.Join(names, ", ")
}

// configCommand is `malipo config`, about the settings file.
func (c *cli) configCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "the settings file, " + configFile + ": print its JSON Schema",
		Long: `The commands that act on a target or run the sandbox read their flags from a settings file too:
./` + configFile + `, or the file --config or $` + configEnv + ` names (--no-config reads none). Its keys are the
flags' long names; a command's name holds that command's own settings. Secrets are written only as
${NAME}, an environment variable. --config-check prints every flag's value and where it came from.
docs/cli.md describes the format.`,
		Example:           "  malipo config schema > malipo.schema.json\n  malipo conform --config-check",
		Args:              unknownCommand,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE:              c.usage,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "schema",
		Short: "print the JSON Schema (draft 2020-12) of the settings file, for editors and CI",
		Long: `Prints the JSON Schema (draft 2020-12) of the settings file, made from the flags of the commands that
read it: editors that know JSON Schema (the YAML language server) complete and check the file with it.
The repository keeps it as malipo.schema.json, published at
` + schemaURL + `.`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			schema, err := cliconfig.Schema(cmd.Root(), schemaURL)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.stdout, "%s\n", schema)
			return err
		},
	})
	return cmd
}
