package receivertests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
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
						assert.Contains(t, string(body), fmt.Sprintf("%q:%s", f.Path[len(f.Path)-1], strconv.FormatFloat(value.(float64), 'f', -1, 64)),
							"%s %s: the integer field %s is respelled", v.name, et, f.PathName())
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
