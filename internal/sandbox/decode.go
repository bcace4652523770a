package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
)

// A request body is parsed once, in readBody, into the generic value that validation checks and the
// idempotency layer fingerprints; decode then fills a handler's typed request from that value instead
// of parsing the bytes again. It follows encoding/json's rules for the types requests use (strings,
// booleans, numbers, slices, pointers, structs with json tags; keys matched exactly, then without
// regard to case; unknown keys and null ignored), so a handler sees what json.Unmarshal would give it.

// decode fills v, a pointer to a request struct, from the parsed body. Validation has already
// enforced the schema, so a failure here means a value the schema allows but Go cannot hold (an
// integer beyond int64, a number beyond float64) or, with validation off, a value of the wrong type.
// It becomes a 400 naming the field.
func (s *Server) decode(value any, v any) *response {
	if value == nil {
		return nil
	}
	if err := assign(reflect.ValueOf(v).Elem(), value); err != nil {
		return s.invalid(FieldError{Field: err.field, Reason: fmt.Sprintf("cannot be used as %s: %s", err.want, err.got)})
	}
	return nil
}

// typeError says which field holds a value its Go type cannot take.
type typeError struct {
	field string // JSON pointer
	want  string // "a 64-bit integer", "a string", …
	got   string // "number 1e30", "string", …
}

// assign sets dst from a value decoded by encoding/json into any with UseNumber. A typeError's field
// is built on the way out, relative to dst, so that a decode that succeeds builds no pointers.
func assign(dst reflect.Value, value any) *typeError {
	if value == nil {
		return nil // null leaves the Go value as it is, as json.Unmarshal does
	}
	switch dst.Kind() {
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if err := assign(p.Elem(), value); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case reflect.Interface:
		dst.Set(reflect.ValueOf(value))
		return nil
	case reflect.Struct:
		return assignStruct(dst, value)
	case reflect.Slice:
		return assignSlice(dst, value)
	}
	return assignScalar(dst, value)
}

func assignScalar(dst reflect.Value, value any) *typeError {
	fail := func() *typeError { return &typeError{want: goTypeWord(dst.Kind()), got: jsonWord(value)} }
	switch x := value.(type) {
	case string:
		if dst.Kind() != reflect.String {
			return fail()
		}
		dst.SetString(x)
	case bool:
		if dst.Kind() != reflect.Bool {
			return fail()
		}
		dst.SetBool(x)
	case json.Number:
		switch dst.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n, err := x.Int64()
			if err != nil || dst.OverflowInt(n) {
				return fail()
			}
			dst.SetInt(n)
		case reflect.Float32, reflect.Float64:
			f, err := x.Float64()
			if err != nil || dst.OverflowFloat(f) {
				return fail()
			}
			dst.SetFloat(f)
		default:
			return fail()
		}
	default:
		return fail()
	}
	return nil
}

func assignSlice(dst reflect.Value, value any) *typeError {
	items, ok := value.([]any)
	if !ok {
		return &typeError{want: goTypeWord(reflect.Slice), got: jsonWord(value)}
	}
	out := reflect.MakeSlice(dst.Type(), len(items), len(items))
	for i, item := range items {
		if err := assign(out.Index(i), item); err != nil {
			err.field = fmt.Sprintf("/%d%s", i, err.field)
			return err
		}
	}
	dst.Set(out)
	return nil
}

func assignStruct(dst reflect.Value, value any) *typeError {
	obj, ok := value.(map[string]any)
	if !ok {
		return &typeError{want: goTypeWord(reflect.Struct), got: jsonWord(value)}
	}
	// Fields in declaration order, so that which key fills a field and which error is reported do not
	// depend on map iteration.
	for _, f := range fieldsOf(dst.Type()) {
		name, v, ok := f.lookup(obj)
		if !ok {
			continue
		}
		if err := assign(dst.Field(f.index), v); err != nil {
			err.field = "/" + name + err.field
			return err
		}
	}
	return nil
}

// jsonField is a struct field and its JSON member name.
type jsonField struct {
	name  string
	index int
}

// lookup finds the field's member: by its exact name, else, as encoding/json does, by a name equal
// without regard to case (the smallest such key, so that the choice is stable).
func (f jsonField) lookup(obj map[string]any) (string, any, bool) {
	if v, ok := obj[f.name]; ok {
		return f.name, v, true
	}
	found := ""
	for k := range obj {
		if strings.EqualFold(k, f.name) && (found == "" || k < found) {
			found = k
		}
	}
	if found == "" {
		return "", nil, false
	}
	return found, obj[found], true
}

var fieldCache sync.Map // reflect.Type -> []jsonField

func fieldsOf(t reflect.Type) []jsonField {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]jsonField)
	}
	var out []jsonField
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out = append(out, jsonField{name: name, index: i})
	}
	fieldCache.Store(t, out)
	return out
}

func goTypeWord(kind reflect.Kind) string {
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a 64-bit integer"
	case reflect.Float32, reflect.Float64:
		return "a finite 64-bit number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice:
		return "an array"
	default:
		return "an object"
	}
}

// jsonWord names a decoded value as encoding/json's type errors do: "number 1e30", "string", ….
func jsonWord(v any) string {
	switch x := v.(type) {
	case json.Number:
		return "number " + string(x)
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// parseBody decodes a request body once, keeping numbers as written (json.Number). Anything but
// exactly one JSON value is an error that says what is wrong and at which byte, as json.Unmarshal's
// syntax errors do.
func parseBody(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, fmt.Errorf("%s at byte %d", se.Error(), se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return nil, fmt.Errorf("unexpected end of JSON input at byte %d", len(body))
	case err != nil:
		return nil, err
	}
	if rest := bytes.TrimLeft(body[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("invalid character %q after top-level value at byte %d", rest[0], len(body)-len(rest)+1)
	}
	return v, nil
}
