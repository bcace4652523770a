package openapi

import (
	"strconv"
	"strings"

	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

// ValueAt returns the value at path in a decoded JSON value (objects as map[string]any, arrays as
// []any, as encoding/json decodes into any), one segment per level, an array's given by its index;
// false when a segment is missing. The validator's instance paths, a JSON pointer's tokens and a
// schema's property paths all walk a body this way.
func ValueAt(v any, path []string) (any, bool) {
	for _, seg := range path {
		switch node := v.(type) {
		case map[string]any:
			next, ok := node[seg]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// PointerTokens splits a JSON pointer into a body ("/data/id"; "" for the whole value) into its
// unescaped tokens (~1 is /, ~0 is ~), for ValueAt.
func PointerTokens(pointer string) []string {
	if pointer == "" {
		return nil
	}
	path := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, tok := range path {
		path[i] = docedit.Unescape(tok)
	}
	return path
}
