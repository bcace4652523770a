package receivertests

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/malipo/terraform-provider-malipo/internal/valuegen"
)

// rawVariant is a way of writing an event's JSON that a decode and re-encode does not keep: the
// signature covers the bytes as sent, so a receiver that verifies a re-serialized body (Express's
// JSON.stringify(req.body), Go's json.Marshal of the decoded event, a framework that parsed the
// body before the verifier ran) refuses it, while every byte of it is a valid event.
type rawVariant struct {
	name string
	doc  string
	// write spells ev (a fresh event, which it may change first, guided by what the document says of
	// its fields) as a body.
	write func(ev map[string]any, fields []*valuegen.Field) []byte
}

// exoticText is text that every decoder keeps but that tries every part of UTF-8: Latin letters
// precomposed and decomposed (e + U+0301), a non-BMP character (a surrogate pair in UTF-16), Arabic
// and Hebrew (right to left), and the three bytes of U+00E9 next to a slash.
const exoticText = "Café crème e\u0301 naïve 𝄞😀 مرحبا שלום / 日本"

// jsUnsafeText has the characters Go's encoder escapes and JavaScript's does not: <, >, & (escaped by
// json.Marshal for HTML) and the line and paragraph separators U+2028 and U+2029.
const jsUnsafeText = "Tom & Jerry <order 7> \u2028line\u2029para"

// bigInteger is an integer beyond 2^53 (2^64 + 1), which a parser that reads numbers as doubles
// (JavaScript, Go's decode into any) changes to 18446744073709552000. It goes in an undeclared field:
// the document allows no declared integer beyond 2^53-1 (PayoutAmount's maximum).
const bigInteger = "18446744073709551617"

// undeclaredNumber is the value of the undeclared field the number spellings add, so that every event
// type has a number to respell: a payout event's only declared number, its amount, is an integer.
const undeclaredNumber = json.Number("2.5")

func rawVariants() []rawVariant {
	return []rawVariant{
		{name: "whitespace", doc: "tabs for indents, CRLF line ends and spaces around the colons",
			write: func(ev map[string]any, fields []*valuegen.Field) []byte {
				return writeJSON(ev, jsonStyle{indent: "\t", newline: "\r\n", colon: " : "})
			}},
		{name: "key-order", doc: "the keys of every object in reverse alphabetical order",
			write: func(ev map[string]any, fields []*valuegen.Field) []byte {
				return writeJSON(ev, jsonStyle{reverse: true})
			}},
		{name: "unicode-escapes", doc: "every non-ASCII character as a \\u escape (\"\\u00e9\", surrogate pairs) and every / as \\/, in a text field holding " + strconv.Quote(exoticText),
			write: func(ev map[string]any, fields []*valuegen.Field) []byte {
				setText(ev, fields, exoticText)
				return writeJSON(ev, jsonStyle{escapeAll: true})
			}},
		{name: "number-trailing-zero", doc: "every number that is not an integer field given a trailing zero (150.50), and an undeclared field holding 2.50 (a payout event has no other)",
			write: func(ev map[string]any, fields []*valuegen.Field) []byte {
				ev[unknownFieldName] = undeclaredNumber
				mapNumbers(ev, nil, integerFields(fields), trailingZero)
				return writeJSON(ev, jsonStyle{})
			}},
		{name: "number-exponent", doc: "every number that is not an integer field in exponent form (1.505e+02), and an undeclared field holding 2.5e+00",
			write: func(ev map[string]any, fields []*valuegen.Field) []byte {
				ev[unknownFieldName] = undeclaredNumber
				mapNumbers(ev, nil, integerFields(fields), exponentForm)
				return writeJSON(ev, jsonStyle{})
			}},
		{name: "non-ascii", doc: "a text field holding " + strconv.Quote(exoticText) + " as raw UTF-8",
			write: func(ev map[string]any, fields []*valuegen.Field) []byte {
				setText(ev, fields, exoticText)
				return writeJSON(ev, jsonStyle{})
			}},
		{name: "html-and-line-separators", doc: "a text field holding " + strconv.Quote(jsUnsafeText) + " raw (Go's encoder escapes these, JavaScript's does not)",
			write: func(ev map[string]any, fields []*valuegen.Field) []byte {
				setText(ev, fields, jsUnsafeText)
				return writeJSON(ev, jsonStyle{})
			}},
		{name: "large-integer", doc: "every integer field at its maximum (a payout's amount at 2^53-1) and an undeclared field holding 2^64+1",
			write: func(ev map[string]any, fields []*valuegen.Field) []byte {
				for _, f := range fields {
					if _, largest, _, ok := f.Range(); ok && f.Is("integer") {
						if _, present := get(ev, f.Path); present {
							set(ev, f.Path, largest)
						}
					}
				}
				ev[unknownFieldName] = json.Number(bigInteger)
				return writeJSON(ev, jsonStyle{})
			}},
	}
}

// setText puts s in every free-text field of ev (a string the document bounds by length only, such
// as Narration) that the event type declares, present or not; in an undeclared field when it declares
// none.
func setText(ev map[string]any, fields []*valuegen.Field, s string) {
	n := 0
	for _, f := range fields {
		if f.FreeText() {
			set(ev, f.Path, s)
			n++
		}
	}
	if n == 0 {
		ev[unknownFieldName] = s
	}
}

// mapNumbers replaces every number in v by the literal spell gives it.
// mapNumbers respells the numbers in v, except those of the declared integer fields: 2500.0 is an
// integer to JSON Schema, but a receiver that decodes an integer field into an integer type (Go's
// int64, as package api and every Go generator declare it) refuses it, and rightly so, since no
// implementation sends it that way; the spelling is a test of the signature, not of the decoder.
// path is v's place in the event ("data.object"); integers holds the integer fields' names.
func mapNumbers(v any, path []string, integers map[string]bool, spell func(json.Number) string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			at := append(append([]string(nil), path...), k)
			if n, ok := e.(json.Number); ok {
				if !integers[strings.Join(at, ".")] {
					x[k] = json.Number(spell(n))
				}
			} else {
				mapNumbers(e, at, integers, spell)
			}
		}
	case []any:
		for i, e := range x {
			if n, ok := e.(json.Number); ok {
				x[i] = json.Number(spell(n))
			} else {
				mapNumbers(e, append(path, "[]"), integers, spell)
			}
		}
	}
}

// trailingZero spells a number with one more zero after its last decimal digit, the same value:
// 150.5 is 150.50, 2500 is 2500.0, 1.5e+02 is 1.50e+02.
func trailingZero(n json.Number) string {
	mantissa, exp, hasExp := strings.Cut(strings.ToLower(string(n)), "e")
	if strings.Contains(mantissa, ".") {
		mantissa += "0"
	} else {
		mantissa += ".0"
	}
	if hasExp {
		return mantissa + "e" + exp
	}
	return mantissa
}

// exponentForm spells a decimal number in exponent form with the same digits, exactly: 150.5 is
// 1.505e+02, 0.01 is 1e-02, 2500 is 2.5e+03.
func exponentForm(n json.Number) string {
	s := string(n)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	if strings.ContainsAny(s, "eE") {
		return sign + s // already in exponent form
	}
	whole, frac, _ := strings.Cut(s, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return sign + "0e+00"
	}
	exp := len(whole) - 1 - (len(whole+frac) - len(strings.TrimLeft(whole+frac, "0")))
	digits = strings.TrimRight(digits, "0")
	mantissa := digits[:1]
	if len(digits) > 1 {
		mantissa += "." + digits[1:]
	}
	expSign := "+"
	if exp < 0 {
		expSign, exp = "-", -exp
	}
	return fmt.Sprintf("%s%se%s%02d", sign, mantissa, expSign, exp)
}

// integerFields returns the names of the event's declared integer fields.
func integerFields(fields []*valuegen.Field) map[string]bool {
	out := map[string]bool{}
	for _, f := range fields {
		if f.Is("integer") {
			out[f.PathName()] = true
		}
	}
	return out
}

// jsonStyle is what writeJSON leaves open in JSON's grammar.
type jsonStyle struct {
	indent, newline, colon string
	// reverse writes an object's keys in reverse order; otherwise sorted, as json.Marshal does.
	reverse bool
	// escapeAll writes every non-ASCII character as \u escapes and / as \/.
	escapeAll bool
}

// writeJSON writes v (decoded JSON: maps, slices, strings, float64, json.Number, bool, nil) in style.
// Unlike encoding/json it escapes only what JSON requires (", \ and control characters), so <, >, &
// and U+2028 stay raw unless escapeAll asks for escapes.
func writeJSON(v any, style jsonStyle) []byte {
	if style.colon == "" {
		style.colon = ":"
	}
	var b strings.Builder
	style.write(&b, v, 0)
	return []byte(b.String())
}

func (s jsonStyle) write(b *strings.Builder, v any, depth int) {
	line := func(d int) {
		if s.newline != "" || s.indent != "" {
			b.WriteString(s.newline)
			b.WriteString(strings.Repeat(s.indent, d))
		}
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if s.reverse {
			slices.Reverse(keys)
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			line(depth + 1)
			s.writeString(b, k)
			b.WriteString(s.colon)
			s.write(b, x[k], depth+1)
		}
		if len(keys) > 0 {
			line(depth)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			line(depth + 1)
			s.write(b, e, depth+1)
		}
		if len(x) > 0 {
			line(depth)
		}
		b.WriteByte(']')
	case string:
		s.writeString(b, x)
	case json.Number:
		b.WriteString(string(x))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
	case int:
		b.WriteString(strconv.Itoa(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		data, _ := json.Marshal(x)
		b.Write(data)
	}
}

func (s jsonStyle) writeString(b *strings.Builder, str string) {
	b.WriteByte('"')
	for _, r := range str {
		var u [2]uint16
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case s.escapeAll && r == '/':
			b.WriteString(`\/`)
		case s.escapeAll && r > 0x7e:
			if utf8.RuneLen(r) == 4 {
				r -= 0x10000
				u[0], u[1] = uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff))
				fmt.Fprintf(b, `\u%04x\u%04x`, u[0], u[1])
			} else {
				fmt.Fprintf(b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// rawBodyChecks is one check per spelling, each sending it for every selected event type.
func (g *grader) rawBodyChecks() []*check {
	var out []*check
	for _, v := range rawVariants() {
		out = append(out, &check{id: "receiver.accepts.raw-body/" + v.name, category: CategoryAccepts, covers: g.types, rule: ruleRawBody,
			doc: "a correctly signed delivery of each event type whose body is written with " + v.doc + " (valid JSON and a valid event, which a decode and re-encode changes) is acknowledged",
			run: func(c *checkRun) { c.rawBody(v) }})
	}
	return out
}

// rawBody sends v's spelling of a fresh event of every selected type, each correctly signed over
// the bytes as written, all at once as far as the run's concurrency goes.
func (c *checkRun) rawBody(v rawVariant) {
	var ds []delivery
	for _, t := range c.g.types {
		ev := c.g.payloads.event(t, c.now())
		body := v.write(ev, c.g.fields[t])
		d := newRawDelivery(t, fmt.Sprint(ev["id"]), body, c.now(), c.g.cfg.Secret)
		if viol := c.g.spec.ValidateWebhook(t, d.header, d.body); len(viol) > 0 {
			c.fail(fmt.Sprintf("the grader wrote a %s body (%s) the document does not allow (%v): a defect of the grader, not of the receiver", t, v.name, viol), -1)
			continue
		}
		ds = append(ds, d)
	}
	for i, s := range c.sendAll(ds) {
		if s.ok {
			c.judgeAccepted(s.a, s.at, fmt.Sprintf("a correctly signed %s delivery written with %s", ds[i].eventType, v.doc))
		}
	}
}
