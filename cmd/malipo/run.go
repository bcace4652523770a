package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/malipo/terraform-provider-malipo/cmd/malipo/internal/cliconfig"
)

// Exit codes, as terraform, gh and kubectl use them.
const (
	exitOK          = 0
	exitFail        = 1   // the command ran and failed: a check failed, the sandbox could not serve
	exitUsage       = 2   // the command line is wrong, or the run could not be set up (target unreachable)
	exitInterrupted = 130 // 128 + SIGINT: what a shell reports for a process ended by Ctrl-C
)

// cli is one invocation: where it writes, and the exit code its command chose. Commands report a
// failure by setting code and printing why; they return an error only for a wrong command line
// (usageError), which run prints as one line and a hint.
type cli struct {
	stdout, stderr io.Writer
	code           int
	showVersion    bool
	config         configFlags
}

// run is main without the process: it parses args, runs a command until ctx ends (SIGINT or SIGTERM
// in main) and returns the exit code. Tests call it directly. Every call builds its own command tree,
// so concurrent calls share nothing.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := &cli{stdout: stdout, stderr: stderr}
	root := c.newRoot()
	args, err := normalizeArgs(root, args)
	if err == nil {
		root.SetArgs(args)
		err = root.ExecuteContext(ctx)
	}
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", ue.cmd, ue.msg, ue.cmd)
			return exitUsage
		}
		fmt.Fprintf(stderr, "malipo: %v\n", err)
		return exitFail
	}
	return c.code
}

// usageError is a command line that cannot run. It is shown as one line naming the command, then a
// hint to its help: never the whole usage, which would bury the line that matters.
type usageError struct {
	cmd string // the command's path, e.g. "malipo conform"
	msg string
}

func (e *usageError) Error() string { return e.cmd + ": " + e.msg }

func usageErrorf(cmd *cobra.Command, format string, args ...any) error {
	return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf(format, args...)}
}

// newRoot builds the command tree: cobra gives the conventions of gh and kubectl (help on stdout,
// `malipo help CMD`, shell completion, suggestions) and run keeps the exit codes and error lines.
func (c *cli) newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "malipo",
		Short: "check implementations of the Malipo v1 API against its contract, and run a local sandbox",
		Long: `malipo checks an implementation of the Malipo v1 Collections & Payouts API against its contract,
the OpenAPI document embedded in it (openapi/malipo.yaml), and runs the reference implementation
locally.

Exit codes: 0 success, 1 failure (a check failed), 2 usage or setup error, 130 interrupted.`,
		Args:                       unknownCommand,
		ValidArgsFunction:          cobra.NoFileCompletions,
		RunE:                       c.runRoot,
		SilenceErrors:              true,
		SilenceUsage:               true,
		SuggestionsMinimumDistance: 2,
	}
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetUsageTemplate(usageTemplate)
	root.SetFlagErrorFunc(flagError)
	root.Flags().BoolVarP(&c.showVersion, "version", "v", false, "print the version of malipo, of Go and of the contract it embeds")
	c.declareConfigFlags(root)
	root.PersistentPreRunE = c.applyConfig
	conform, sandbox, events, trigger, webhooks, listen := c.conformCommand(), c.sandboxCommand(), c.eventsCommand(), c.triggerCommand(), c.webhooksCommand(), c.listenCommand()
	// The commands that read the settings file, each with the commands under it.
	for _, cmd := range []*cobra.Command{conform, sandbox, events, trigger, webhooks, listen} {
		cliconfig.Configure(cmd)
	}
	root.AddCommand(conform, sandbox, c.specCommand(), c.versionCommand(), events, trigger, webhooks, listen, c.configCommand())
	root.SetHelpCommand(helpCommand(root))
	// Added now rather than when the command runs, so that normalizeArgs knows every command name.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, cmd := range append(root.Commands(), root) {
		cmd.InitDefaultHelpFlag() // so that `malipo help CMD` lists --help as `malipo CMD --help` does
		if cmd.Name() == "completion" {
			cmd.Short = "print the shell completion script for bash, zsh, fish or powershell"
		}
	}
	return root
}

// usageTemplate is cobra's usage text, shorter: one usage line, the commands, the flags, and the flags
// it inherits (the settings file's, --target and the keys of `malipo events`).
const usageTemplate = `Usage: {{if and .Runnable .HasAvailableSubCommands .HasParent}}{{.UseLine}}
       {{.CommandPath}} <command> [flags]{{else if .HasAvailableSubCommands}}{{.CommandPath}} <command> [flags]{{else}}{{.UseLine}}{{end}}
{{- if .HasAvailableSubCommands}}

Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}
{{- if .HasExample}}

Examples:
{{.Example}}{{end}}
{{- if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}
{{- if .HasAvailableInheritedFlags}}

Inherited flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}
{{- if .HasAvailableSubCommands}}

Run '{{.CommandPath}} help <command>' for the flags of a command.{{end}}
`

// runRoot is `malipo` without a command: --version, or the usage on stderr and exit code 2, since
// nothing was done.
func (c *cli) runRoot(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args)
	}
	if c.showVersion {
		return c.printVersion()
	}
	return c.usage(cmd, nil)
}

// usage is a command that only groups others (malipo, malipo events, malipo config) run without one:
// its usage on stderr and exit code 2, since nothing was done.
func (c *cli) usage(cmd *cobra.Command, _ []string) error {
	fmt.Fprint(c.stderr, cmd.UsageString())
	c.code = exitUsage
	return nil
}

// unknownCommand is the root's argument check: any argument left there is a command that does not
// exist. It names the closest one.
func unknownCommand(root *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	name := args[0]
	best, bestDist := "", -1
	for _, s := range root.SuggestionsFor(name) {
		if d := editDistance(name, s); bestDist < 0 || d < bestDist {
			best, bestDist = s, d
		}
	}
	if best != "" {
		return usageErrorf(root, "unknown command %q; did you mean %q?", name, best)
	}
	return usageErrorf(root, "unknown command %q", name)
}

// noArgs is the argument check of commands that take flags only.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf(cmd, "unexpected argument %q", args[0])
	}
	return nil
}

// helpCommand is `malipo help [command]`, printing the command's help on stdout. Cobra's own prints
// the root's help for a command it does not know, since the root accepts arguments (to name the
// unknown command in its error).
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "show the help of a command",
		Long:  "Shows the help of a command: what it does, its flags and examples. Same as 'malipo <command> --help'.",
		Args:  cobra.ArbitraryArgs,
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, sub := range root.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if len(args) > 0 && (err != nil || target == root || len(rest) > 0) {
				if err := unknownCommand(root, args); err != nil {
					return err
				}
			}
			return target.Help()
		},
	}
}

// normalizeArgs checks the command name before cobra parses any flag (so that `malipo deplyo --x`
// reports the command, not the flag), and rewrites -name and -name=value to --name for the long
// flags of that command: the CLI was built on Go's flag package, whose help printed -addr, and the
// scripts written from it keep working. Values are never rewritten: the argument after a flag that
// takes one is skipped.
func normalizeArgs(root *cobra.Command, args []string) ([]string, error) {
	out := append([]string{}, args...) // never nil: cobra reads os.Args when given nil
	cmd := root
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if cmd != root {
				// A subcommand (`webhooks test`), whose flags are the ones to look up from here on, or
				// an argument of the command: the command says what is wrong with it.
				for _, sub := range cmd.Commands() {
					if sub.Name() == a || slices.Contains(sub.Aliases, a) {
						cmd = sub
						cmd.InitDefaultHelpFlag()
						break
					}
				}
				continue
			}
			if a == cobra.ShellCompRequestCmd || a == cobra.ShellCompNoDescRequestCmd {
				return out, nil // a completion request carries a partial command line: leave it be
			}
			sub, _, err := root.Find([]string{a})
			if err != nil || sub == root {
				return nil, unknownCommand(root, []string{a})
			}
			cmd = sub
			cmd.InitDefaultHelpFlag()
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var f *pflag.Flag
		switch {
		case strings.HasPrefix(a, "--"):
			f = cmd.Flag(name) // its own flags, and the persistent flags of the commands above it
		case len(name) == 1:
			f = cmd.Flags().ShorthandLookup(name)
		default:
			if f = cmd.Flag(name); f != nil {
				out[i] = "-" + a
			}
		}
		if f != nil && !hasValue && f.NoOptDefVal == "" {
			i++ // the next argument is this flag's value, whatever it looks like
		}
	}
	return out, nil
}
