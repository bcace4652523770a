package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/malipo/terraform-provider-malipo/cmd/malipo/internal/cliconfig"
	"github.com/malipo/terraform-provider-malipo/internal/variance"
)

// The flag values below check what the user typed when the flag is parsed, so that a wrong value is a
// usage error naming the flag and the value, with what to type instead, before anything starts. Each
// error is the cause only: flagError prefixes it with "--name value: ".

// durationValue is a time.Duration flag whose errors say how to write one.
type durationValue struct{ d *time.Duration }

func (v durationValue) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

func (v durationValue) String() string {
	if v.d == nil {
		return ""
	}
	return v.d.String()
}

func (durationValue) Type() string { return "duration" }

// latencyValue is --latency: MIN-MAX, or one duration for both.
type latencyValue struct{ l *variance.Latency }

func (v latencyValue) Set(s string) error {
	lo, hi, ranged := strings.Cut(strings.TrimSpace(s), "-")
	if !ranged {
		hi = lo
	}
	minimum, err := parseDuration(lo)
	if err != nil {
		return err
	}
	maximum, err := parseDuration(hi)
	if err != nil {
		return err
	}
	if minimum < 0 || maximum < minimum {
		return fmt.Errorf("%q is not a range of durations: give MIN-MAX with 0 <= MIN <= MAX, e.g. 100ms-300ms", s)
	}
	*v.l = variance.Latency{Min: minimum, Max: maximum}
	return nil
}

func (v latencyValue) String() string {
	if v.l == nil || v.l.Max == 0 {
		return ""
	}
	return v.l.Min.String() + "-" + v.l.Max.String()
}

func (latencyValue) Type() string { return "range" }

// parseDuration is time.ParseDuration with an error that says what to type: a bare number is the most
// common mistake, as in `--payout-delay 5`.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err == nil {
		return d, nil
	}
	if _, numErr := strconv.ParseFloat(s, 64); numErr == nil {
		return 0, errors.New("a duration needs a unit, e.g. " + s + "s or 500ms")
	}
	return 0, errors.New("not a duration; write it like 500ms, 5s or 2m")
}

// baseURLValue is a flag holding an http or https base URL, or empty. url.Parse accepts a host:port
// without a scheme (or fails on it with "first path segment in URL cannot contain colon"), so the
// scheme is checked here, where the message can offer the URL the user most likely meant.
type baseURLValue struct{ s *string }

func (v baseURLValue) Set(s string) error {
	u, err := parseBaseURL(s)
	if err != nil {
		return err
	}
	*v.s = u
	return nil
}

func (v baseURLValue) String() string {
	if v.s == nil {
		return ""
	}
	return *v.s
}

func (baseURLValue) Type() string { return "URL" }

func parseBaseURL(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if !strings.Contains(s, "://") {
		return "", fmt.Errorf("no scheme; did you mean %s://%s?", likelyScheme(s), strings.TrimPrefix(s, "//"))
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("not a URL (%w); write it like http://127.0.0.1:8080", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("scheme %q; the target is spoken to over HTTP: use http:// or https://", u.Scheme)
	}
	if u.Host == "" {
		return "", errors.New("no host; write it like http://127.0.0.1:8080")
	}
	return s, nil
}

// likelyScheme guesses the scheme of a URL typed without one: plain HTTP for a loopback host or a host
// with a port (a service started for the test), else HTTPS.
func likelyScheme(s string) string {
	host, _, _ := strings.Cut(strings.TrimPrefix(s, "//"), "/")
	if _, _, err := net.SplitHostPort(host); err == nil || host == "localhost" {
		return "http"
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil && ip.IsLoopback() {
		return "http"
	}
	return "https"
}

// hostPortValue is a flag holding a listen address, host:port. A URL or a bare port there is a common
// slip, answered with the address the user meant.
type hostPortValue struct{ s *string }

func (v hostPortValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if _, rest, ok := strings.Cut(s, "://"); ok {
		hostport, _, _ := strings.Cut(rest, "/")
		return fmt.Errorf("a listen address is host:port, not a URL; did you mean %s?", hostport)
	}
	if _, err := strconv.ParseUint(s, 10, 16); err == nil {
		return fmt.Errorf("a listen address is host:port; did you mean 127.0.0.1:%s (or :%s for every interface)?", s, s)
	}
	if _, _, err := net.SplitHostPort(s); err != nil {
		return errors.New("not host:port; write it like 127.0.0.1:8080 (port 0 picks a free one)")
	}
	*v.s = s
	return nil
}

func (v hostPortValue) String() string {
	if v.s == nil {
		return ""
	}
	return *v.s
}

func (hostPortValue) Type() string { return "host:port" }

// regexpValue is a flag holding a regular expression, compiled when it is parsed.
type regexpValue struct{ re **regexp.Regexp }

func (v regexpValue) Set(s string) error {
	re, err := regexp.Compile(s)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			return fmt.Errorf("not a regular expression: %s", se.Code)
		}
		return err
	}
	*v.re = re
	return nil
}

func (v regexpValue) String() string {
	if v.re == nil || *v.re == nil {
		return ""
	}
	return (*v.re).String()
}

func (regexpValue) Type() string { return "regexp" }

// flagError turns pflag's parse errors into one line that names the flag as the user typed it and says
// what to type instead; cobra calls it for every flag error of every command.
func flagError(cmd *cobra.Command, err error) error {
	var (
		notExist *pflag.NotExistError
		noValue  *pflag.ValueRequiredError
		invalid  *pflag.InvalidValueError
	)
	switch {
	case errors.As(err, &notExist):
		if short := notExist.GetSpecifiedShortnames(); short != "" {
			return usageErrorf(cmd, "unknown flag -%s", notExist.GetSpecifiedName())
		}
		name := notExist.GetSpecifiedName()
		if s := closestFlag(cmd.Flags(), name); s != "" {
			return usageErrorf(cmd, "unknown flag --%s; did you mean --%s?", name, s)
		}
		return usageErrorf(cmd, "unknown flag --%s", name)
	case errors.As(err, &noValue):
		f := noValue.GetFlag()
		kind, _ := pflag.UnquoteUsage(f)
		return usageErrorf(cmd, "--%s needs a value: --%s %s", f.Name, f.Name, kind)
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		return usageErrorf(cmd, "--%s %s: %v", f.Name, invalid.GetValue(), valueCause(f, invalid.Unwrap()))
	}
	return usageErrorf(cmd, "%v", err)
}

// valueCause is why f refused a value, in words: pflag's own types fail with strconv's errors, which
// quote the Go function. The settings file's errors say it the same way.
func valueCause(f *pflag.Flag, cause error) error {
	var num *strconv.NumError
	if !errors.As(cause, &num) {
		return cause
	}
	if f.Value.Type() == "bool" {
		return errors.New("not true or false")
	}
	return errors.New("not a whole number")
}

// closestFlag returns the flag of fs whose name is nearest to a mistyped one (at most two edits away,
// or one the typed name starts), or "".
func closestFlag(fs *pflag.FlagSet, typed string) string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return closestName(typed, names)
}

// closestName returns the name nearest to a mistyped one (at most two edits away, or one the typed
// name starts), or "": for flags, and for the keys of the settings file.
func closestName(typed string, names []string) string {
	best, bestDist := "", 3
	for _, name := range names {
		d := editDistance(typed, name)
		if strings.HasPrefix(name, typed) && len(typed) >= 3 {
			d = min(d, 1)
		}
		if d < bestDist || d == bestDist && name < best {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the number of edits between a and b: a letter inserted, deleted or replaced, or two
// neighbours swapped (the optimal string alignment distance), so that --wiat is one edit from --wait.
func editDistance(a, b string) int {
	older := make([]int, len(b)+1) // the row before prev, for swaps
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], older[j-2]+1)
			}
		}
		older, prev, cur = prev, cur, older
	}
	return prev[len(b)]
}

// keysFromEnv takes the key flags named that were not given (on the command line or in the settings
// file) from the environment variable each is marked with (cliconfig.MarkEnv), where CI systems put
// secrets: a key on the command line shows in process listings and in logs of the command. Every
// command that talks to a target (conform, events, trigger) reads its keys this way.
func keysFromEnv(fs *pflag.FlagSet, names ...string) {
	for _, name := range names {
		if f := fs.Lookup(name); !f.Changed {
			_ = f.Value.Set(os.Getenv(cliconfig.Env(f))) // a string flag takes any value
		}
	}
}

// secretFlag marks the flag name of fs a secret (cliconfig.MarkSecret): the settings file gives it
// only as ${NAME}, and no listing of settings shows it. env, when not "", is the variable the command
// reads when the flag is not given.
func secretFlag(fs *pflag.FlagSet, name, env string) {
	cliconfig.MarkSecret(fs.Lookup(name))
	if env != "" {
		cliconfig.MarkEnv(fs.Lookup(name), env)
	}
}

// The variables the key flags fall back to (keysFromEnv) and the settings file names them by.
const (
	publicKeyEnv = "MALIPO_PUBLIC_KEY"
	secretKeyEnv = "MALIPO_SECRET_KEY"
)

// declareKeyFlags declares --public-key and --secret-key, whose defaults come from MALIPO_PUBLIC_KEY
// and MALIPO_SECRET_KEY (keysFromEnv). The flags have no default of their own: a default would print
// a secret from the environment in --help.
func declareKeyFlags(fs *pflag.FlagSet, public, secret *string) {
	fs.StringVar(public, "public-key", "", "test public `key` of the target (default $MALIPO_PUBLIC_KEY)")
	fs.StringVar(secret, "secret-key", "", "test secret `key` of the target (default $MALIPO_SECRET_KEY)")
	secretFlag(fs, "public-key", publicKeyEnv)
	secretFlag(fs, "secret-key", secretKeyEnv)
}

// oneOf makes the flag name of cmd take one of values: they are its shell completions (each may carry
// a description, cobra.CompletionWithDesc), and the settings file and its schema accept no other
// (cliconfig.MarkEnum). The command still checks what the command line gives.
func oneOf(cmd *cobra.Command, name string, values ...cobra.Completion) {
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	plain := make([]string, len(values))
	for i, v := range values {
		plain[i], _, _ = strings.Cut(v, "\t")
	}
	cliconfig.MarkEnum(cmd.Flag(name), plain...)
}
