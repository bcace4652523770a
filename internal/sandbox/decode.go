package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// decode unmarshals a validated body into v. Validation has already enforced the schema, so a failure
// here means a value the schema allows but Go cannot hold (an integer beyond int64, a number beyond
// float64) or, with validation off, a value of the wrong type. It becomes a 400 naming the field.
func (s *Server) decode(body []byte, v any) *response {
	if len(body) == 0 {
		return nil
	}
	err := json.Unmarshal(body, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := ""
		if te.Field != "" {
			field = "/" + strings.ReplaceAll(te.Field, ".", "/")
		}
		return s.invalid(FieldError{Field: field, Reason: fmt.Sprintf("cannot be used as %s: %s", goTypeWord(te.Type.Kind().String()), te.Value)})
	}
	return s.fail(api.CodeMalformedJSON, "The request body is not valid JSON: "+err.Error()+". Send a JSON object.",
		[]FieldError{{Field: "", Reason: "not valid JSON"}}, nil)
}

func goTypeWord(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"):
		return "a 64-bit integer"
	case strings.HasPrefix(kind, "float"):
		return "a finite 64-bit number"
	case kind == "string":
		return "a string"
	case kind == "bool":
		return "a boolean"
	case kind == "slice":
		return "an array"
	default:
		return "an object"
	}
}
