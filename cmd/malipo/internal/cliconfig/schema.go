package cliconfig

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Schemer is a flag value that says what JSON Schema its values in the file follow; values of other
// types the package does not know are strings.
type Schemer interface {
	JSONSchema() map[string]any
}

// The patterns of the schema: a secret is one variable, whole; a value of another type may be a
// string that names variables; a duration is Go's (time.ParseDuration).
const (
	secretPattern   = `^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`
	envPattern      = `\$\{[A-Za-z_][A-Za-z0-9_]*\}`
	durationPattern = `^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
)

// Schema returns the JSON Schema (draft 2020-12) of the settings file of the commands under root,
// indented, with id as its $id. Each command that reads the file has its section in $defs, which
// holds its own flags; a section's other keys refer to them there.
func Schema(root *cobra.Command, id string) ([]byte, error) {
	defs := map[string]any{
		"secret": map[string]any{
			"type": "string", "pattern": secretPattern,
			"description": "a secret: only ${NAME}, an environment variable that holds it",
		},
		"env-reference": map[string]any{
			"type": "string", "pattern": envPattern,
			"description": "a value taken from environment variables: ${NAME} ($${ writes a literal ${)",
		},
		"unset": map[string]any{
			"type": "null", "description": "nothing: in a command's section, unsets what a section above gives; an empty section",
		},
		"duration": map[string]any{
			"type": "string", "pattern": durationPattern,
			"description": "a duration with its unit, e.g. 500ms, 5s, 2m or 1h30m",
		},
	}
	for _, c := range tree(root) {
		defs[defName(c)] = sectionSchema(c)
	}
	doc := sectionSchema(root)
	doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	doc["$id"] = id
	doc["title"] = root.Name() + " settings file"
	doc["description"] = fmt.Sprintf("Settings of the %s commands: each key is a flag's long name, and a command's name holds that command's own settings, "+
		"which override the ones above. Precedence: %s. Secrets are only ${NAME}.", root.Name(), Precedence)
	doc["$defs"] = defs
	return json.MarshalIndent(doc, "", "  ")
}

// defName is the name of cmd's section in $defs: its path under the root, e.g. webhooks-test.
func defName(cmd *cobra.Command) string { return strings.ReplaceAll(sectionPath(cmd), ".", "-") }

// sectionSchema is the schema of cmd's section: its flags and those of the commands under it, and the
// sections of those commands. In a command's section, a flag's key may say nothing (null), which
// unsets what the sections above give; a section may be empty (null) anywhere.
func sectionSchema(cmd *cobra.Command) map[string]any {
	null := map[string]any{"$ref": "#/$defs/unset"}
	props := map[string]any{}
	for name, candidates := range flagsUnder(cmd) {
		var alts []any
		var about []string
		for _, o := range candidates {
			owner := o.cmds[0]
			if owner == cmd {
				alts = append(alts, flagSchema(o.flag))
			} else {
				// The owner's value without its null (nullable), which not every section takes.
				alts = append(alts, map[string]any{"$ref": "#/$defs/" + defName(owner) + "/properties/" + name + "/anyOf/0"})
			}
			_, usage := pflag.UnquoteUsage(o.flag)
			about = append(about, commandPaths(o.cmds)+": "+usage)
		}
		p := oneOf(alts)
		if len(candidates) > 1 || candidates[0].cmds[0] != cmd {
			p["description"] = strings.Join(about, "\n")
		}
		if cmd.HasParent() {
			p = nullable(p)
		}
		props[name] = p
	}
	for _, sub := range subcommands(cmd) {
		alts := []any{map[string]any{"$ref": "#/$defs/" + defName(sub)}}
		if flag, ok := props[sub.Name()]; ok {
			alts = append(alts, flag)
		}
		props[sub.Name()] = map[string]any{"anyOf": append(alts, null)}
	}
	s := map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	if cmd.HasParent() {
		s["description"] = cmd.CommandPath() + ": " + cmd.Short + ". Its settings apply to it and to the commands under it, over the ones above."
	}
	return s
}

// nullable is s or null, with s's description: the value of a key that a command's section may leave
// empty. s is the first alternative, which references to it name (.../anyOf/0).
func nullable(s map[string]any) map[string]any {
	out := map[string]any{"anyOf": []any{s, map[string]any{"$ref": "#/$defs/unset"}}}
	if d, ok := s["description"]; ok {
		out["description"] = d
		delete(s, "description")
	}
	return out
}

// oneOf is alts as one schema: the one, or any of several.
func oneOf(alts []any) map[string]any {
	if len(alts) == 1 {
		if m, ok := alts[0].(map[string]any); ok {
			return m
		}
	}
	return map[string]any{"anyOf": alts}
}

// flagSchema is the schema of fl's value in the file, with its help as the description.
func flagSchema(fl *pflag.Flag) map[string]any {
	var s map[string]any
	if list(fl) {
		s = map[string]any{"type": "array", "items": valueSchema(fl, elemType(fl))}
	} else {
		s = valueSchema(fl, fl.Value.Type())
	}
	_, usage := pflag.UnquoteUsage(fl)
	s["description"] = "--" + fl.Name + ": " + usage
	if d, ok := defaultValue(fl); ok {
		s["default"] = d
	}
	return s
}

// elemType is the type of one item of a list flag: stringSlice's is string.
func elemType(fl *pflag.Flag) string {
	t := fl.Value.Type()
	for _, suffix := range []string{"Slice", "Array"} {
		if e, ok := strings.CutSuffix(t, suffix); ok {
			return e
		}
	}
	return "string"
}

// valueSchema is the schema of one value of fl, of pflag type t.
func valueSchema(fl *pflag.Flag, t string) map[string]any {
	if Secret(fl) {
		return map[string]any{"$ref": "#/$defs/secret"}
	}
	env := map[string]any{"$ref": "#/$defs/env-reference"}
	var typed map[string]any
	switch ty := jsonType(fl, t); {
	case Enum(fl) != nil:
		return map[string]any{"anyOf": []any{map[string]any{"enum": Enum(fl)}, env}}
	case isSchemer(fl) && !list(fl):
		typed = fl.Value.(Schemer).JSONSchema()
	case ty == "integer" && strings.HasPrefix(t, "uint"):
		typed = map[string]any{"type": ty, "minimum": 0}
	case ty != "":
		typed = map[string]any{"type": ty}
	case t == "duration":
		// 0 needs no unit, and YAML reads a bare 0 as a number.
		typed = map[string]any{"anyOf": []any{map[string]any{"$ref": "#/$defs/duration"}, map[string]any{"const": 0}}}
	default:
		return map[string]any{"type": "string"} // a string may name variables as it is
	}
	if typed["type"] == "string" {
		return typed
	}
	return map[string]any{"anyOf": []any{typed, env}}
}

// jsonType is the JSON type of a value of fl, of pflag type t, when the file writes it as YAML's true
// or false or a number rather than text: "boolean", "integer" or "number"; "" for text. The loader
// refuses such a value in quotes, as the schema does.
func jsonType(fl *pflag.Flag, t string) string {
	switch {
	case Secret(fl) || Enum(fl) != nil:
		return ""
	case isSchemer(fl) && !list(fl):
		ty, _ := fl.Value.(Schemer).JSONSchema()["type"].(string)
		if ty == "string" {
			return ""
		}
		return ty
	case t == "bool":
		return "boolean"
	case strings.HasPrefix(t, "uint") || strings.HasPrefix(t, "int") || t == "count":
		return "integer"
	case strings.HasPrefix(t, "float"):
		return "number"
	}
	return ""
}

func isSchemer(fl *pflag.Flag) bool {
	_, ok := fl.Value.(Schemer)
	return ok
}

// defaultValue is fl's default as a JSON value, when it has one worth showing: none for a secret, an
// empty string or an empty list.
func defaultValue(fl *pflag.Flag) (any, bool) {
	d := fl.DefValue
	if Secret(fl) || d == "" || list(fl) {
		return nil, false
	}
	switch t := fl.Value.Type(); {
	case t == "bool":
		b, err := strconv.ParseBool(d)
		return b, err == nil
	case strings.HasPrefix(t, "uint"):
		n, err := strconv.ParseUint(d, 10, 64)
		return n, err == nil
	case strings.HasPrefix(t, "int") || t == "count":
		n, err := strconv.ParseInt(d, 10, 64)
		return n, err == nil
	case isSchemer(fl):
		if ty := fl.Value.(Schemer).JSONSchema()["type"]; ty == "integer" {
			n, err := strconv.ParseInt(d, 10, 64)
			return n, err == nil
		}
	}
	return d, true
}
