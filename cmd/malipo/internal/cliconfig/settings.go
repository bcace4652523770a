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
	// Written is the value as the file writes it (a list's items joined by commas), when it names
	// environment variables (${NAME}).
	Written string
	// Env is the variable, for Environment.
	Env string
}

func (s Source) String() string {
	switch s.Kind {
	case CommandLine:
		return "command line"
	case FromFile:
		return fmt.Sprintf("%s:%d %s", s.File, s.Line, s.Key)
	case Environment:
		return "environment " + s.Env
	}
	return "default"
}

// Setting is a flag of the command and where its value came from (Apply).
type Setting struct {
	Flag   *pflag.Flag
	Source Source
	// Ignored is what would have given the flag a value and does not, and why: the file's key that
	// unsets it (null), a top-level secret whose variable is not set, or a value dropped for a flag it
	// excludes (Dropped); "" for none.
	Ignored string
	// Dropped reports that Ignored is a value the user gave, dropped for a flag it excludes that was
	// given nearer (MarkExclusive): worth saying when the command runs.
	Dropped bool
}

// Redacted stands for a secret's value wherever settings are shown.
const Redacted = "<redacted>"

// Value is the setting's value as the command will use it, for people: a secret's is Redacted when it
// has one, a value from the environment is the variable's, and a value of the file that names
// variables is shown as written, ${NAME} and all, since it may hold a secret too (a password in a
// URL).
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
	case s.Source.Kind == FromFile && s.Source.Written != "":
		return s.Source.Written
	}
	return v
}

// From says where the setting's value came from: the Source, a secret's variable as the file names it,
// and what was Ignored.
func (s Setting) From() string {
	from := s.Source.String()
	if s.Source.Kind == FromFile && s.Source.Written != "" && Secret(s.Flag) {
		from += ": " + s.Source.Written
	}
	if s.Ignored != "" {
		from += "; ignored " + s.Ignored
	}
	return from
}

// WriteSettings prints one line per setting: the flag, its value and where it came from (From).
func WriteSettings(w io.Writer, settings []Setting, env Lookup) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FLAG\tVALUE\tFROM")
	for _, s := range settings {
		fmt.Fprintf(tw, "--%s\t%s\t%s\n", s.Flag.Name, s.Value(env), s.From())
	}
	return tw.Flush()
}
