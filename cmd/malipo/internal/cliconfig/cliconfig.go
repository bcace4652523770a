// Package cliconfig reads a YAML file of flag values for the commands of a cobra tree, applies it
// under the command line, says where each flag's value came from, and describes the file as a JSON
// Schema.
//
// The file's keys are the flags' long names. A mapping under a key that names a command holds the
// settings of that command and of the commands under it; the top level is the root's. A setting
// applies to every command below its section that has the flag, and the nearest section wins. Which
// commands read the file, which flags are secrets, which take their default from the environment and
// which take one of a fixed set of values or exclude each other is said where each is declared:
// Configure, MarkSecret, MarkEnv, MarkEnum and MarkExclusive.
package cliconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The annotations this package reads: on a command (cobra.Command.Annotations) and on its flags
// (pflag.Flag.Annotations).
const (
	annotationConfigured = "cliconfig/configured"
	annotationSecret     = "cliconfig/secret"
	annotationEnv        = "cliconfig/env"
	annotationEnum       = "cliconfig/enum"
	annotationExclusive  = "cliconfig/exclusive"
)

// Configure makes cmd and every command under it read the settings file.
func Configure(cmd *cobra.Command) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[annotationConfigured] = "true"
}

// Configured reports whether cmd reads the settings file: Configure was called on it or on a command
// above it.
func Configured(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Annotations[annotationConfigured] == "true" {
			return true
		}
	}
	return false
}

// MarkSecret marks fl as a secret: the file may give it only as ${NAME}, an environment variable, and
// its value is never printed.
func MarkSecret(fl *pflag.Flag) { annotate(fl, annotationSecret, "true") }

// MarkEnv records that fl, when not given, takes its value from the environment variable env (the
// command reads it; this says so for the settings report and for the secret's error message).
func MarkEnv(fl *pflag.Flag, env string) { annotate(fl, annotationEnv, env) }

// MarkEnum records that fl takes one of values (each item, for a list): the file and its schema
// accept no other.
func MarkEnum(fl *pflag.Flag, values ...string) { annotate(fl, annotationEnum, values...) }

// MarkExclusive records that flags exclude each other: the command refuses two of them. Of the values
// they are given, Apply keeps the nearest's (the command line, then the command's own section, then
// each section above it, then the environment) and drops the farther ones; two that the file gives
// at the same level are an error of the file.
func MarkExclusive(flags ...*pflag.Flag) {
	for _, fl := range flags {
		var others []string
		for _, other := range flags {
			if other != fl {
				others = append(others, other.Name)
			}
		}
		annotate(fl, annotationExclusive, others...)
	}
}

func annotate(fl *pflag.Flag, key string, values ...string) {
	if fl == nil {
		panic("cliconfig: annotating a flag that is not declared")
	}
	if fl.Annotations == nil {
		fl.Annotations = map[string][]string{}
	}
	fl.Annotations[key] = values
}

// Secret reports whether fl is a secret (MarkSecret).
func Secret(fl *pflag.Flag) bool { return len(fl.Annotations[annotationSecret]) > 0 }

// Env returns the environment variable fl defaults to (MarkEnv), or "".
func Env(fl *pflag.Flag) string {
	if v := fl.Annotations[annotationEnv]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Enum returns the values fl takes (MarkEnum), or nil for any.
func Enum(fl *pflag.Flag) []string { return fl.Annotations[annotationEnum] }

// Exclusive returns the names of the flags fl excludes (MarkExclusive), or nil.
func Exclusive(fl *pflag.Flag) []string { return fl.Annotations[annotationExclusive] }

// list reports whether fl is given several times for several values (a string slice, a string array,
// or any value that implements pflag.SliceValue): the file gives it a YAML list.
func list(fl *pflag.Flag) bool {
	_, ok := fl.Value.(pflag.SliceValue)
	return ok
}

// Flags returns the flags of cmd that the file can set, by name: its own, and the persistent flags of
// the configured commands above it. Flags of commands that do not read the file (the root's, such as
// the one naming the file) and --help are not among them.
func Flags(cmd *cobra.Command) []*pflag.Flag {
	if !Configured(cmd) {
		return nil
	}
	byName := map[string]*pflag.Flag{}
	add := func(fl *pflag.Flag) {
		if fl.Name != "help" {
			byName[fl.Name] = fl
		}
	}
	cmd.LocalNonPersistentFlags().VisitAll(add)
	for c := cmd; c != nil && Configured(c); c = c.Parent() {
		c.PersistentFlags().VisitAll(add)
	}
	out := make([]*pflag.Flag, 0, len(byName))
	for _, fl := range byName {
		out = append(out, fl)
	}
	slices.SortFunc(out, func(a, b *pflag.Flag) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// subcommands returns the commands directly under cmd that read the file.
func subcommands(cmd *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range cmd.Commands() {
		if Configured(sub) {
			out = append(out, sub)
		}
	}
	return out
}

// subcommand returns the command under cmd that reads the file and is called name, or nil.
func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, sub := range subcommands(cmd) {
		if sub.Name() == name || slices.Contains(sub.Aliases, name) {
			return sub
		}
	}
	return nil
}

// tree returns cmd, when it reads the file, and every command under it that does.
func tree(cmd *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	if Configured(cmd) {
		out = append(out, cmd)
	}
	for _, sub := range cmd.Commands() {
		out = append(out, tree(sub)...)
	}
	return out
}

// owned is a flag and the command whose flag it is: a persistent flag is shared by the commands under
// its owner, and appears once.
type owned struct {
	flag *pflag.Flag
	cmds []*cobra.Command // the commands that have it, the owner first
}

// flagsUnder returns, by name, the flags that a section for cmd can set: those of cmd and of the
// commands under it, each distinct flag once, in the order of the tree.
func flagsUnder(cmd *cobra.Command) map[string][]*owned {
	out := map[string][]*owned{}
	seen := map[*pflag.Flag]*owned{}
	for _, c := range tree(cmd) {
		for _, fl := range Flags(c) {
			if o, ok := seen[fl]; ok {
				o.cmds = append(o.cmds, c)
				continue
			}
			o := &owned{flag: fl, cmds: []*cobra.Command{c}}
			seen[fl] = o
			out[fl.Name] = append(out[fl.Name], o)
		}
	}
	return out
}

// commandPaths names the commands in cmds, e.g. "malipo conform, malipo webhooks test".
func commandPaths(cmds []*cobra.Command) string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.CommandPath()
	}
	return strings.Join(names, ", ")
}

// sectionPath is the key path of cmd's section, e.g. "webhooks.test"; "" for the root.
func sectionPath(cmd *cobra.Command) string {
	var names []string
	for c := cmd; c.HasParent(); c = c.Parent() {
		names = append([]string{c.Name()}, names...)
	}
	return strings.Join(names, ".")
}

func joinKey(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// envSuggestion is how the file should name fl's value: the variable the flag defaults to, or NAME.
func envSuggestion(fl *pflag.Flag) string {
	if env := Env(fl); env != "" {
		return fmt.Sprintf("${%s}", env)
	}
	return "${NAME}"
}
