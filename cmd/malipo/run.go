package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Exit codes: 0 success, 1 the command failed, 2 the command line is wrong.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// command is one subcommand; run gets the arguments after its name.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// commands is the subcommand table.
var commands = map[string]command{
	"conform": {"check an implementation (default: an embedded sandbox) against the contract", runConform},
	"sandbox": {"run the reference implementation of the API locally, with webhooks", runSandbox},
	"spec":    {"print the embedded OpenAPI contract, or check it with --check", runSpec},
}

// run is main without the process: it parses args, runs a subcommand until ctx ends (SIGINT or
// SIGTERM in main) and returns the exit code. Tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "malipo: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return cmd.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("Usage: malipo <command> [flags]\n\nCommands:\n")
	for _, name := range names {
		fmt.Fprintf(&b, "  %-9s %s\n", name, commands[name].summary)
	}
	b.WriteString("\nRun `malipo <command> -h` for the flags of a command.\n")
	_, _ = io.WriteString(w, b.String())
}
