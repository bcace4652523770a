package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/malipo/terraform-provider-malipo/cmd/malipo/internal/cliconfig"
	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
)

// The commands that act on a running implementation as a merchant (events, trigger) share how they
// find it, which keys they use and how they print: targetFlags.

// defaultTarget is where `malipo sandbox` listens without --addr: what a developer running the sandbox
// in another terminal means when they give no target.
const defaultTarget = "http://127.0.0.1:8080"

// targetFlags are the flags of a command that calls the API of a target.
type targetFlags struct {
	target, publicKey, secretKey string
	output                       string
}

// declare defines --target, the key flags (as conform has them) and --output.
func (f *targetFlags) declare(cmd *cobra.Command) {
	fs := cmd.PersistentFlags()
	fs.Var(baseURLValue{&f.target}, "target", "base `URL` of the implementation (default $MALIPO_BASE_URL, else "+defaultTarget+", a local malipo sandbox)")
	cliconfig.MarkEnv(fs.Lookup("target"), "MALIPO_BASE_URL")
	declareKeyFlags(fs, &f.publicKey, &f.secretKey)
	fs.StringVarP(&f.output, "output", "o", "text", "output `format`: text (a table for people) or json (the response's data)")
	oneOf(cmd, "output", "text", "json")
}

// client checks the flags and returns a client of the target. The keys not given come from
// MALIPO_PUBLIC_KEY and MALIPO_SECRET_KEY; without --target, MALIPO_BASE_URL or any key, the target is
// a local sandbox with its default keys, so that `malipo sandbox` in one terminal and `malipo events
// list` in another just work.
func (f *targetFlags) client(cmd *cobra.Command) (*client.Client, error) {
	fs := cmd.Flags()
	keysFromEnv(fs, "public-key", "secret-key")
	if f.output != "text" && f.output != "json" {
		return nil, usageErrorf(cmd, "--output %s: use text or json", f.output)
	}
	if !fs.Changed("target") {
		if env := os.Getenv("MALIPO_BASE_URL"); env != "" {
			u, err := parseBaseURL(env)
			if err != nil {
				return nil, usageErrorf(cmd, "MALIPO_BASE_URL %s: %v", env, err)
			}
			f.target = u
		}
	}
	if f.target == "" {
		f.target = defaultTarget
		if f.publicKey == "" && f.secretKey == "" {
			f.publicKey, f.secretKey = sandbox.DefaultPublicKey, sandbox.DefaultSecretKey
		}
	}
	if f.publicKey == "" || f.secretKey == "" {
		return nil, usageErrorf(cmd, "--target %s needs --public-key and --secret-key (or MALIPO_PUBLIC_KEY and MALIPO_SECRET_KEY)", f.target)
	}
	c, err := client.New(f.target, f.publicKey, f.secretKey, client.WithUserAgent("malipo-cli"), client.WithRetryPolicy(client.NoRetries()))
	if err != nil {
		return nil, usageErrorf(cmd, "%v", err)
	}
	return c, nil
}

// fail prints why a call failed and returns the exit code: 2 when the target did not answer (nothing
// could be judged), 1 for an answer that is an error (its message and every field it names).
func (f *targetFlags) fail(stderr io.Writer, cmdPath string, err error) int {
	var apiErr *client.APIError
	var invalid *client.InvalidRequestError
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.As(err, &apiErr):
		fmt.Fprintf(stderr, "%s: %s answered %d", cmdPath, f.target, apiErr.StatusCode)
		if apiErr.Code != 0 {
			fmt.Fprintf(stderr, " %s (code %d)", apiErr.Code, int(apiErr.Code))
		}
		fmt.Fprintf(stderr, ": %s\n", apiErr.Message)
		for _, fe := range apiErr.Errors {
			fmt.Fprintf(stderr, "  %s\n", fe)
		}
		return exitFail
	case errors.As(err, &invalid):
		fmt.Fprintf(stderr, "%s: not sent: %s\n", cmdPath, strings.TrimPrefix(err.Error(), "malipo: "))
		return exitUsage
	case errors.As(err, &opErr), errors.As(err, &netErr):
		fmt.Fprintf(stderr, "%s: cannot reach %s: %v\nIs the implementation running there (malipo sandbox starts one on %s)? Check --target or MALIPO_BASE_URL.\n",
			cmdPath, f.target, err, defaultTarget)
		return exitUsage
	}
	fmt.Fprintf(stderr, "%s: %v\n", cmdPath, err)
	return exitFail
}

// printJSON writes v as indented JSON, the --output json form.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
