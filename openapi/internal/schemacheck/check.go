package schemacheck

import (
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"unicode/utf8"
)

// Valid reports whether v, a value as encoding/json decodes it into any (nil, bool, float64, string,
// []any, map[string]any; numbers may be json.Number, as a decoder with UseNumber gives them), is valid
// against the schema. Any other Go type is invalid.
func (c *Checker) Valid(v any) bool { return c.s.valid(v) }

// ValidJSON decodes data as encoding/json does into any and reports whether it is one valid JSON value.
func (c *Checker) ValidJSON(data []byte) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	return c.s.valid(v)
}

type kinds uint8

const (
	kindNull kinds = 1 << iota
	kindBool
	kindInteger
	kindNumber
	kindString
	kindArray
	kindObject
)

type number struct {
	f     float64
	rat   *big.Rat
	exact bool // comparing float64 values with f is exact (see newNumber)
}

// cmp returns the sign of x - n, as the engine computes it (on x's shortest decimal form).
func (n *number) cmp(x float64) int {
	if n.exact {
		switch {
		case x < n.f:
			return -1
		case x > n.f:
			return 1
		}
		return 0
	}
	return shortest(x).Cmp(n.rat)
}

type property struct {
	name   string
	schema *schema
}

type schema struct {
	never bool // the schema `false`
	ref   *schema
	types kinds // 0: any type

	enum     []any // nil: no enum (Compile rejects an empty one)
	hasConst bool
	constant any

	minLength, maxLength int // -1: absent
	pattern              *regexp.Regexp

	minimum, maximum, exclusiveMinimum, exclusiveMaximum *number
	multipleOf                                           *big.Rat

	properties                   []property
	declared                     map[string]bool
	required                     []string
	additional                   *schema
	minProperties, maxProperties int
	discriminator                string

	items              *schema
	minItems, maxItems int
	uniqueItems        bool

	allOf, anyOf, oneOf []*schema
	not                 *schema
}

func (s *schema) valid(v any) bool {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		if err != nil {
			return false // beyond float64: the validator decides
		}
		v = f
	}
	if s.never || (s.ref != nil && !s.ref.valid(v)) {
		return false
	}
	if s.types != 0 && !s.types.match(v) {
		return false
	}
	if s.hasConst && !equal(v, s.constant) {
		return false
	}
	if s.enum != nil && !s.inEnum(v) {
		return false
	}
	switch x := v.(type) {
	case nil, bool:
	case string:
		if !s.validString(x) {
			return false
		}
	case float64:
		if !s.validNumber(x) {
			return false
		}
	case map[string]any:
		if !s.validObject(x) {
			return false
		}
	case []any:
		if !s.validArray(x) {
			return false
		}
	default:
		return false
	}
	if s.discriminator != "" {
		// libopenapi-validator's discriminator keyword fails any instance that lacks the property,
		// including one that is not an object.
		obj, _ := v.(map[string]any)
		if _, ok := obj[s.discriminator]; !ok {
			return false
		}
	}
	return s.validCombinators(v)
}

func (k kinds) match(v any) bool {
	switch x := v.(type) {
	case nil:
		return k&kindNull != 0
	case bool:
		return k&kindBool != 0
	case float64:
		return k&kindNumber != 0 || (k&kindInteger != 0 && x == math.Trunc(x) && !math.IsInf(x, 0))
	case string:
		return k&kindString != 0
	case []any:
		return k&kindArray != 0
	case map[string]any:
		return k&kindObject != 0
	}
	return false
}

func (s *schema) inEnum(v any) bool {
	for _, e := range s.enum {
		if equal(v, e) {
			return true
		}
	}
	return false
}

func (s *schema) validString(x string) bool {
	if s.minLength >= 0 || s.maxLength >= 0 {
		n := utf8.RuneCountInString(x)
		if (s.minLength >= 0 && n < s.minLength) || (s.maxLength >= 0 && n > s.maxLength) {
			return false
		}
	}
	return s.pattern == nil || s.pattern.MatchString(x)
}

func (s *schema) validNumber(x float64) bool {
	switch {
	case s.minimum != nil && s.minimum.cmp(x) < 0,
		s.maximum != nil && s.maximum.cmp(x) > 0,
		s.exclusiveMinimum != nil && s.exclusiveMinimum.cmp(x) <= 0,
		s.exclusiveMaximum != nil && s.exclusiveMaximum.cmp(x) >= 0:
		return false
	}
	if s.multipleOf != nil {
		return new(big.Rat).Quo(shortest(x), s.multipleOf).IsInt()
	}
	return true
}

func (s *schema) validObject(obj map[string]any) bool {
	if (s.minProperties >= 0 && len(obj) < s.minProperties) || (s.maxProperties >= 0 && len(obj) > s.maxProperties) {
		return false
	}
	for _, name := range s.required {
		if _, ok := obj[name]; !ok {
			return false
		}
	}
	for _, p := range s.properties {
		if v, ok := obj[p.name]; ok && !p.schema.valid(v) {
			return false
		}
	}
	if s.additional != nil {
		for name, v := range obj {
			if !s.declared[name] && !s.additional.valid(v) {
				return false
			}
		}
	}
	return true
}

func (s *schema) validArray(list []any) bool {
	if (s.minItems >= 0 && len(list) < s.minItems) || (s.maxItems >= 0 && len(list) > s.maxItems) {
		return false
	}
	if s.items != nil {
		for _, v := range list {
			if !s.items.valid(v) {
				return false
			}
		}
	}
	if s.uniqueItems {
		for i := 1; i < len(list); i++ {
			for j := 0; j < i; j++ {
				if equal(list[i], list[j]) {
					return false
				}
			}
		}
	}
	return true
}

func (s *schema) validCombinators(v any) bool {
	for _, sub := range s.allOf {
		if !sub.valid(v) {
			return false
		}
	}
	if len(s.anyOf) > 0 {
		matched := false
		for _, sub := range s.anyOf {
			if sub.valid(v) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	if len(s.oneOf) > 0 {
		matched := 0
		for _, sub := range s.oneOf {
			if sub.valid(v) {
				if matched++; matched > 1 {
					return false
				}
			}
		}
		if matched != 1 {
			return false
		}
	}
	return s.not == nil || !s.not.valid(v)
}

// equal is JSON equality on decoded values. Numbers compare as float64, which is the engine's equality
// for the exact numbers compiled schemas hold and for any two decoded numbers.
func equal(a, b any) bool {
	a, b = numberAsFloat(a), numberAsFloat(b)
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// numberAsFloat reads a json.Number (a decoder with UseNumber) as the float64 encoding/json would give,
// so that equal compares numbers the same way however the value was decoded. A number beyond float64
// stays a json.Number and equals nothing.
func numberAsFloat(v any) any {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil {
			return f
		}
	}
	return v
}
