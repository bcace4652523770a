package variance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"sort"
	"strconv"
	"unicode/utf8"
)

// A JSON body is rewritten as a tree that keeps what encoding/json's maps lose: the order of an
// object's members, and each number's text exactly as written (2188118558.01 stays 2188118558.01; a
// float64 would keep it too, but 1e2 or 150.50 would not survive), so that a variant changes only
// what JSON leaves free.

type jsonKind byte

const (
	jsonObject jsonKind = iota
	jsonArray
	jsonString
	jsonNumber
	jsonLiteral // true, false, null: text holds it
)

type jsonValue struct {
	kind  jsonKind
	text  string // a string's value, a number's or a literal's text
	keys  []string
	elems []*jsonValue // an object's values (in keys' order) or an array's items
}

// parseJSON reads one JSON value and nothing after it.
func parseJSON(b []byte) (*jsonValue, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (*jsonValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		v := &jsonValue{kind: jsonArray}
		if t == '{' {
			v.kind = jsonObject
		}
		for dec.More() {
			if v.kind == jsonObject {
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, key.(string))
			}
			elem, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			v.elems = append(v.elems, elem)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return v, nil
	case string:
		return &jsonValue{kind: jsonString, text: t}, nil
	case json.Number:
		return &jsonValue{kind: jsonNumber, text: t.String()}, nil
	case bool:
		return &jsonValue{kind: jsonLiteral, text: strconv.FormatBool(t)}, nil
	case nil:
		return &jsonValue{kind: jsonLiteral, text: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// member returns the value of an object's member, or nil.
func (v *jsonValue) member(key string) *jsonValue {
	if v.kind != jsonObject {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.elems[i]
		}
	}
	return nil
}

// add appends a member to an object that does not have it yet.
func (v *jsonValue) add(key string, value *jsonValue) {
	if v.kind == jsonObject && v.member(key) == nil {
		v.keys, v.elems = append(v.keys, key), append(v.elems, value)
	}
}

// rewriteStrings replaces every string value for which change, given the member name it is the value
// of ("" in an array), returns a new one.
func (v *jsonValue) rewriteStrings(member string, change func(member, s string) (string, bool)) {
	switch v.kind {
	case jsonString:
		if s, ok := change(member, v.text); ok {
			v.text = s
		}
	case jsonObject:
		for i, e := range v.elems {
			e.rewriteStrings(v.keys[i], change)
		}
	case jsonArray:
		for _, e := range v.elems {
			e.rewriteStrings("", change)
		}
	}
}

// encoder writes a tree in a style.
type encoder struct {
	style JSONStyle
	seed  int64
	buf   bytes.Buffer
}

func (e *encoder) encode(v *jsonValue) []byte {
	e.buf.Reset()
	e.value(v, 0)
	if e.style.TrailingNewline {
		e.buf.WriteByte('\n')
	}
	return bytes.Clone(e.buf.Bytes())
}

func (e *encoder) value(v *jsonValue, depth int) {
	switch v.kind {
	case jsonString:
		e.string(v.text)
	case jsonNumber, jsonLiteral:
		e.buf.WriteString(v.text)
	case jsonArray:
		e.buf.WriteByte('[')
		for i, el := range v.elems {
			e.separator(i, depth+1)
			e.value(el, depth+1)
		}
		e.close(']', len(v.elems), depth)
	case jsonObject:
		e.buf.WriteByte('{')
		for n, i := range e.order(v.keys) {
			e.separator(n, depth+1)
			e.string(v.keys[i])
			e.buf.WriteByte(':')
			if e.style.SpaceAfterColon || e.style.Indent != "" {
				e.buf.WriteByte(' ')
			}
			e.value(v.elems[i], depth+1)
		}
		e.close('}', len(v.elems), depth)
	}
}

func (e *encoder) close(c byte, n, depth int) {
	if n > 0 && e.style.Indent != "" {
		e.newline(depth)
	}
	e.buf.WriteByte(c)
}

// separator comes before the i-th member or item.
func (e *encoder) separator(i, depth int) {
	if i > 0 {
		e.buf.WriteByte(',')
		if e.style.Indent == "" && e.style.SpaceAfterColon {
			e.buf.WriteByte(' ')
		}
	}
	if e.style.Indent != "" {
		e.newline(depth)
	}
}

func (e *encoder) newline(depth int) {
	e.buf.WriteByte('\n')
	for range depth {
		e.buf.WriteString(e.style.Indent)
	}
}

// order returns the indexes of keys in the style's order.
func (e *encoder) order(keys []string) []int {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	switch e.style.Order {
	case OrderSorted:
		sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	case OrderReversed:
		for a, b := 0, len(idx)-1; a < b; a, b = a+1, b-1 {
			idx[a], idx[b] = idx[b], idx[a]
		}
	case OrderShuffled:
		rank := func(k string) uint64 {
			h := fnv.New64a()
			_, _ = fmt.Fprintf(h, "%d\x00%s", e.seed, k)
			return h.Sum64()
		}
		sort.SliceStable(idx, func(a, b int) bool { return rank(keys[idx[a]]) < rank(keys[idx[b]]) })
	}
	return idx
}

const hexDigits = "0123456789abcdef"

// string writes s as a JSON string: the escapes JSON requires, and those the style adds.
func (e *encoder) string(s string) {
	e.buf.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			e.buf.WriteByte('\\')
			e.buf.WriteRune(r)
		case r == '\n':
			e.buf.WriteString(`\n`)
		case r == '\r':
			e.buf.WriteString(`\r`)
		case r == '\t':
			e.buf.WriteString(`\t`)
		case r == '/' && e.style.EscapeSlash:
			e.buf.WriteString(`\/`)
		case r < 0x20 || r == 0x2028 || r == 0x2029,
			e.style.EscapeNonASCII && (r >= utf8.RuneSelf || r == '<' || r == '>' || r == '&'):
			e.unicodeEscape(r)
		default:
			e.buf.WriteRune(r)
		}
	}
	e.buf.WriteByte('"')
}

func (e *encoder) unicodeEscape(r rune) {
	if r > 0xffff {
		r -= 0x10000
		e.unicodeEscape(0xd800 + (r>>10)&0x3ff)
		e.unicodeEscape(0xdc00 + r&0x3ff)
		return
	}
	e.buf.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		e.buf.WriteByte(hexDigits[(r>>shift)&0xf])
	}
}
