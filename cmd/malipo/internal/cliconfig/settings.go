package cliconfig

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"
)

// Precedence is the order in which a flag takes its value, first first; Source's kinds in that order.
const Precedence = "command line > settings file > environment > default"

// SourceKind is where a flag's value came from.
type SourceKind int

const (
	// CommandLine is a flag given on the command line.
	CommandLine SourceKind = iota
	// FromFile is a key of the settings file.
	FromFile
	// Environment is the variable the flag defaults to (MarkEnv), which the command reads.
	Environment
	// Default is the flag's built-in default.
	Default
)

// Source is where a flag's value came from.
type Source struct {
	Kind SourceKind
	// File, Line and Key locate the setting, for FromFile.
	File string
	Line int
	Key  string
	// Written is the value as the file writes it, when it names environment variables (${NAME}).
	Written string
	// Env is the variable, for Environment.
	Env string
}

func (s Source) String() string {
	switch s.Kind {
	case CommandLine:
		return "command line"
	case FromFile:
		where := fmt.Sprintf("%s:%d %s", s.File, s.Line, s.Key)
		if s.Written != "" {
			where += ": " + s.Written
		}
		return where
	case Environment:
		return "environment " + s.Env
	}
	return "default"
}

// Setting is a flag of the command and where its value came from (Apply).
type Setting struct {
	Flag   *pflag.Flag
	Source Source
}

// Redacted stands for a secret's value wherever settings are shown.
const Redacted = "<redacted>"

// Value is the setting's value as the command will use it, for people: a secret's is Redacted when it
// has one, a value from the environment is the variable's.
func (s Setting) Value(env Lookup) string {
	v := s.Flag.Value.String()
	if sv, ok := s.Flag.Value.(pflag.SliceValue); ok {
		v = strings.Join(sv.GetSlice(), ",")
	}
	if s.Source.Kind == Environment {
		v, _ = env(s.Source.Env)
		v = strings.TrimSpace(v)
	}
	switch {
	case v == "":
		return `""`
	case Secret(s.Flag):
		return Redacted
	}
	return v
}

// WriteSettings prints one line per setting: the flag, its value and where it came from.
func WriteSettings(w io.Writer, settings []Setting, env Lookup) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FLAG\tVALUE\tFROM")
	for _, s := range settings {
		fmt.Fprintf(tw, "--%s\t%s\t%s\n", s.Flag.Name, s.Value(env), s.Source)
	}
	return tw.Flush()
}
