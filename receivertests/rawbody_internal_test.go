package receivertests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each raw-body spelling is valid JSON, decodes to the same event (the large integer and the texts
// aside, which the variant sets on purpose) and is not what json.Marshal writes: a receiver that
// verifies a re-encoding has something to fail on.
func TestRawBodiesDecodeToTheEvent(t *testing.T) {
	g := testGrader(t, 1)
	for _, v := range rawVariants() {
		for _, et := range g.types {
			ev := g.payloads.event(et, g.cfg.Now())
			body := v.write(clone(ev), g.fields[et])
			var got map[string]any
			require.NoError(t, json.Unmarshal(body, &got), "%s %s: %s", v.name, et, body)
			again, err := json.Marshal(got)
			require.NoError(t, err)
			if v.name != "non-ascii" {
				assert.False(t, bytes.Equal(body, again), "%s %s: json.Marshal writes the same bytes: %s", v.name, et, body)
			}
			switch v.name {
			case "whitespace", "key-order":
				want, _ := json.Marshal(ev)
				assert.JSONEq(t, string(want), string(body), "%s %s", v.name, et)
			case "number-trailing-zero", "number-exponent":
				// The same event with one undeclared number; integer fields keep their spelling, which
				// a typed decoder (int64) needs.
				withNumber := clone(ev)
				withNumber[unknownFieldName] = undeclaredNumber
				want, _ := json.Marshal(withNumber)
				assert.JSONEq(t, string(want), string(body), "%s %s", v.name, et)
				for _, f := range g.fields[et] {
					if value, ok := get(ev, f.Path); ok && f.Is("integer") {
						assert.Contains(t, string(body), fmt.Sprintf("%q:%s", f.Path[len(f.Path)-1], value.(json.Number)),
							"%s %s: the integer field %s is not respelled", v.name, et, f.PathName())
					}
				}
			}
		}
	}
}

func TestWriteJSONEscapes(t *testing.T) {
	v := map[string]any{"s": "é/𝄞<\u2028\"\\\n\x01"}
	assert.Equal(t, `{"s":"é/𝄞<`+"\u2028"+`\"\\\n\u0001"}`, string(writeJSON(v, jsonStyle{})))                           //nolint:testifylint // the bytes are the point; JSONEq would pass any spelling
	assert.Equal(t, `{"s":"\u00e9\/\ud834\udd1e<\u2028\"\\\n\u0001"}`, string(writeJSON(v, jsonStyle{escapeAll: true}))) //nolint:testifylint // the bytes are the point; JSONEq would pass any spelling
	assert.Equal(t, "{\r\n\t\"a\" : [\r\n\t\t1\r\n\t],\r\n\t\"b\" : {}\r\n}",
		string(writeJSON(map[string]any{"a": []any{1.0}, "b": map[string]any{}}, jsonStyle{indent: "\t", newline: "\r\n", colon: " : "})))
	assert.Equal(t, `{"b":1,"a":2}`, string(writeJSON(map[string]any{"a": 2.0, "b": 1.0}, jsonStyle{reverse: true})))
}

// The number spellings change how a number is written, never its value, digit for digit.
func TestNumberSpellingsKeepTheValue(t *testing.T) {
	for n, want := range map[json.Number][2]string{
		"150.5":                {"150.50", "1.505e+02"},
		"2500":                 {"2500.0", "2.5e+03"},
		"0.01":                 {"0.010", "1e-02"},
		"-12.25":               {"-12.250", "-1.225e+01"},
		"0":                    {"0.0", "0e+00"},
		"2147483647.01":        {"2147483647.010", "2.14748364701e+09"},
		"1.5e+02":              {"1.50e+02", "1.5e+02"},
		"18446744073709551617": {"18446744073709551617.0", "1.8446744073709551617e+19"},
	} {
		assert.Equal(t, want[0], trailingZero(n), "%s with a trailing zero", n)
		assert.Equal(t, want[1], exponentForm(n), "%s in exponent form", n)
		for _, spelled := range want {
			a, _ := new(big.Rat).SetString(string(n))
			b, ok := new(big.Rat).SetString(spelled)
			require.True(t, ok, spelled)
			assert.Zero(t, a.Cmp(b), "%s spelled %s is the same number", n, spelled)
		}
	}
}
