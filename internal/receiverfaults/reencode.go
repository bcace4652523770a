package receiverfaults

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// goReencode is what a Go receiver verifies when it decodes the body into an any before checking the
// signature and hands json.Marshal's output to the verifier: keys sorted, no white space, <, >, &,
// U+2028 and U+2029 escaped, numbers as float64 in their shortest form.
func goReencode(body []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// jsStringify is what an Express receiver verifies when it signs JSON.stringify(req.body): the body
// as JSON.parse read it and JSON.stringify writes it back. Modelled on ECMA-262 (JSON.parse,
// SerializeJSONProperty, QuoteJSONString, Number::toString): object keys keep the order they came in,
// except integer keys (array indexes), which come first in ascending order; duplicate keys keep the
// first one's place and the last one's value; strings escape only ", \ and the control characters
// (\b \f \n \r \t by name, the others as \u00xx), so <, >, &, U+2028, non-ASCII and / come out raw;
// numbers are doubles, written in the shortest form that reads back the same, with an exponent from
// 1e21 up and below 1e-6.
func jsStringify(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	v, err := jsParse(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("JSON.parse: unexpected text after the value")
	}
	var b strings.Builder
	jsWrite(&b, v)
	return []byte(b.String()), nil
}

// jsObject is a parsed object with its keys in JavaScript's property order.
type jsObject struct {
	keys   []string
	values map[string]any
}

func jsParse(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := jsObject{values: map[string]any{}}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				v, err := jsParse(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := obj.values[key]; !dup {
					obj.keys = append(obj.keys, key)
				}
				obj.values[key] = v
			}
			_, err := dec.Token()
			// Integer keys first, ascending; the others in insertion order (OrdinaryOwnPropertyKeys).
			slices.SortStableFunc(obj.keys, func(a, b string) int {
				ia, aok := arrayIndex(a)
				ib, bok := arrayIndex(b)
				switch {
				case aok && bok:
					return int(ia) - int(ib)
				case aok:
					return -1
				case bok:
					return 1
				}
				return 0
			})
			return obj, err
		case '[':
			var arr []any
			for dec.More() {
				v, err := jsParse(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return f, nil // out of range is ±Infinity in JavaScript, which JSON.stringify writes as null
	}
	return tok, nil // string, bool, nil
}

// arrayIndex reports whether k is an array index as ECMA-262 defines it (a canonical numeric string
// of an integer below 2^32-1).
func arrayIndex(k string) (int64, bool) {
	n, err := strconv.ParseUint(k, 10, 32)
	if err != nil || n == math.MaxUint32 || strconv.FormatUint(n, 10) != k {
		return 0, false
	}
	return int64(n), true
}

func jsWrite(b *strings.Builder, v any) {
	switch x := v.(type) {
	case jsObject:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			jsQuote(b, k)
			b.WriteByte(':')
			jsWrite(b, x.values[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			jsWrite(b, e)
		}
		b.WriteByte(']')
	case string:
		jsQuote(b, x)
	case float64:
		b.WriteString(jsNumber(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	default:
		b.WriteString("null")
	}
}

// jsQuote is QuoteJSONString.
func jsQuote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteString(strconv.FormatInt(int64(r)>>4, 16))
				b.WriteString(strconv.FormatInt(int64(r)&0xf, 16))
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// jsNumber is Number::toString(10) for a finite double, and null for the others (JSON.stringify).
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "null"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// The shortest digits that read back as f, and n: f = 0.digits × 10^n.
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	k, n := len(digits), e+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	s := digits[:1]
	if k > 1 {
		s += "." + digits[1:]
	}
	if n-1 >= 0 {
		return sign + s + "e+" + strconv.Itoa(n-1)
	}
	return sign + s + "e-" + strconv.Itoa(1-n)
}
