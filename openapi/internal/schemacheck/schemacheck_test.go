package schemacheck

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scalars is a pool of values every schema is tried against, chosen to sit on and next to the bounds
// the cases use and to tell float from integer from string.
var scalars = []string{
	`null`, `true`, `false`, `0`, `-0`, `1`, `-1`, `1.0`, `1.5`, `0.1`, `0.3`, `0.01`, `0.015`, `150.5`,
	`150.53`, `2`, `254`, `255`, `256`, `1e12`, `1000000000000.5`, `1000000000001`, `9007199254740991`,
	`9007199254740992`, `9007199254740993`, `1e300`, `-1e300`, `1e-320`, `""`, `"a"`, `"ab"`, `"abc"`,
	`"é"`, `"éé"`, `"日本語"`, `"ZM"`, `"zm"`, `"ZMW"`, `" ZM"`, `"bank"`, `"mobile_number"`, `"1"`,
	`"pay_8f3a"`, `"a b"`, `"\u0000"`, `"x-y"`, `"2026-11-22T00:00:00Z"`, `"not a date"`, `"http://x"`,
	`[]`, `[1]`, `[1,1]`, `[1,2]`, `[1,"1"]`, `[{"a":1},{"a":1}]`, `[{"a":1},{"a":1.0}]`, `[[1],[1]]`,
	`["a","b","c","d"]`, `{}`, `{"a":1}`, `{"a":"x"}`, `{"a":1,"b":2}`, `{"b":2}`, `{"a":null}`,
	`{"kind":"bank","bank_id":"b1"}`, `{"kind":"mobile","number":"260970000001"}`,
	`{"kind":"bank","number":"260970000001"}`, `{"kind":"other"}`, `{"a":{"b":{}}}`, `{"a":[1,2]}`,
}

// cases are schemas covering every keyword the compiler accepts, alone and combined.
var cases = []string{
	`true`, `false`, `{}`,
	`{"type":"string"}`, `{"type":"integer"}`, `{"type":"number"}`, `{"type":"boolean"}`, `{"type":"null"}`,
	`{"type":"array"}`, `{"type":"object"}`, `{"type":["string","null"]}`, `{"type":["integer","string"]}`,
	`{"enum":["ZM","GH",1,null,true,{"a":1},[1]]}`, `{"enum":[1.5,0.1]}`, `{"const":"bank"}`, `{"const":0}`,
	`{"const":{"a":1}}`, `{"const":[1,2]}`,
	`{"minLength":1}`, `{"maxLength":2}`, `{"minLength":2,"maxLength":3,"type":"string"}`,
	`{"pattern":"^[A-Z]{2}$"}`, `{"pattern":"b"}`, `{"pattern":"^[a-z][a-z0-9_]*$","maxLength":8}`,
	`{"minimum":1}`, `{"maximum":255}`, `{"exclusiveMinimum":0}`, `{"exclusiveMaximum":256}`,
	`{"minimum":0.1}`, `{"maximum":0.3}`, `{"minimum":1,"maximum":9007199254740991,"type":"integer"}`,
	`{"exclusiveMinimum":0,"maximum":1e12,"multipleOf":0.01}`, `{"multipleOf":0.01}`, `{"multipleOf":2}`,
	`{"multipleOf":0.1}`, `{"maximum":9007199254740993}`, `{"minimum":1e-320}`,
	`{"minItems":1}`, `{"maxItems":1}`, `{"uniqueItems":true}`, `{"items":{"type":"integer"}}`,
	`{"type":"array","items":{"type":"string","minLength":1},"minItems":1,"maxItems":3,"uniqueItems":true}`,
	`{"required":["a"]}`, `{"properties":{"a":{"type":"integer"}}}`,
	`{"properties":{"a":{"type":"integer"}},"additionalProperties":false}`,
	`{"additionalProperties":{"type":"integer"}}`, `{"minProperties":1}`, `{"maxProperties":1}`,
	`{"type":"object","required":["a","b"],"properties":{"a":{"enum":[1]},"b":{"type":"integer"}}}`,
	`{"allOf":[{"required":["a"]},{"properties":{"a":{"type":"integer"}}}]}`,
	`{"anyOf":[{"type":"string"},{"type":"integer","minimum":2}]}`,
	`{"oneOf":[{"type":"integer"},{"type":"number"}]}`, `{"oneOf":[{"minimum":1},{"maximum":2}]}`,
	`{"not":{"type":"string"}}`, `{"not":{"required":["a"]}}`,
	`{"$ref":"#/$defs/id","maxLength":4,"$defs":{"id":{"type":"string","pattern":"^pay_"}}}`,
	`{"oneOf":[{"$ref":"#/$defs/bank"},{"$ref":"#/$defs/mobile"}],"$defs":{` +
		`"bank":{"type":"object","required":["kind","bank_id"],"properties":{"kind":{"const":"bank"},"bank_id":{"type":"string"}},"additionalProperties":false},` +
		`"mobile":{"type":"object","required":["kind","number"],"properties":{"kind":{"enum":["mobile"]},"number":{"type":"string","pattern":"^[0-9]+$"}},"additionalProperties":false}}}`,
	`{"title":"t","description":"d","examples":["x"],"example":"x","default":1,"deprecated":true,"format":"date-time","readOnly":true,"x-anything":{"a":1}}`,
	`{"format":"uri","type":"string"}`,
}

// TestAgreesWithTheReferenceEngine compares every case on every pooled value (and on objects and arrays
// built from them) with santhosh-tekuri/jsonschema, the engine under libopenapi-validator. It runs
// without the validator's OpenAPI vocabulary and libopenapi's rendering of schemas; those, and the
// discriminator keyword, are covered by the openapi package's comparison with the validator itself.
func TestAgreesWithTheReferenceEngine(t *testing.T) {
	values := append([]string(nil), scalars...)
	for _, s := range scalars[:30] {
		values = append(values, `{"a":`+s+`}`, `[`+s+`]`, `{"a":1,"b":`+s+`}`, `{"kind":"bank","bank_id":`+s+`}`,
			`{"kind":"mobile","number":`+s+`}`)
	}
	compared := 0
	for i, src := range cases {
		t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) {
			ours := compileJSON(t, src)
			ref := referenceSchema(t, src)
			for _, v := range values {
				var inst any
				require.NoError(t, json.Unmarshal([]byte(v), &inst), v)
				want := ref.Validate(inst) == nil
				assert.Equal(t, want, ours.Valid(inst), "schema %s, value %s", src, v)
				compared++
			}
		})
	}
	t.Logf("%d schema/value pairs compared", compared)
}

func TestDiscriminatorRequiresTheProperty(t *testing.T) {
	c := compileJSON(t, `{"discriminator":{"propertyName":"kind"},"oneOf":[{"type":"object"}]}`)
	assert.True(t, c.ValidJSON([]byte(`{"kind":"x"}`)))
	assert.False(t, c.ValidJSON([]byte(`{"other":"x"}`)))
	assert.False(t, c.ValidJSON([]byte(`"kind"`)), "a non-object has no discriminator property")
}

func TestValidJSONRejectsWhatEncodingJSONRejects(t *testing.T) {
	c := compileJSON(t, `{}`)
	for _, body := range []string{``, ` `, `{`, `{"a":1} {}`, `{"a":1}x`, `nul`, `1e999`} {
		assert.False(t, c.ValidJSON([]byte(body)), body)
	}
	assert.True(t, c.ValidJSON([]byte(" {\"a\":1}\n ")))
}

func TestValidRejectsValuesEncodingJSONDoesNotProduce(t *testing.T) {
	c := compileJSON(t, `{}`)
	assert.False(t, c.Valid(1), "an int is not a decoded JSON number")
	assert.False(t, c.Valid(map[string]string{}))
}

// A decoder with UseNumber gives json.Number: it is checked as the number it spells.
func TestValidReadsJSONNumbers(t *testing.T) {
	c := compileJSON(t, `{"type":"object","properties":{"n":{"type":"integer","maximum":10}}}`)
	assert.True(t, c.Valid(map[string]any{"n": json.Number("5")}))
	assert.True(t, c.Valid(map[string]any{"n": json.Number("5.0")}), "5.0 is an integer, as for a float64")
	assert.False(t, c.Valid(map[string]any{"n": json.Number("11")}), "above the maximum")
	assert.False(t, c.Valid(map[string]any{"n": json.Number("1.5")}), "not an integer")
	assert.False(t, c.Valid(map[string]any{"n": json.Number("1e999")}), "beyond float64: left to the validator")

	unique := compileJSON(t, `{"type":"array","uniqueItems":true}`)
	assert.False(t, unique.Valid([]any{json.Number("1"), json.Number("1.0")}), "1 and 1.0 are the same number")
	assert.True(t, unique.Valid([]any{json.Number("1"), json.Number("2")}))
	constant := compileJSON(t, `{"const":[1,{"a":2}]}`)
	assert.True(t, constant.Valid([]any{json.Number("1"), map[string]any{"a": json.Number("2")}}))
}

func TestUnsupportedSchemasDoNotCompile(t *testing.T) {
	for _, src := range []string{
		`{"patternProperties":{"^a":{}}}`, `{"if":{},"then":{}}`, `{"unevaluatedProperties":false}`,
		`{"prefixItems":[{}]}`, `{"contains":{}}`, `{"dependentRequired":{"a":["b"]}}`,
		`{"propertyNames":{}}`, `{"nullable":true}`, `{"$id":"x"}`, `{"$schema":"x"}`,
		`{"contentEncoding":"base64"}`, `{"items":[{}]}`, `{"$ref":"other.yaml#/x"}`,
		`{"$ref":"#/s/$defs/a","$defs":{"a":{"properties":{"b":{"$ref":"#/s/$defs/a"}}}}}`,
		`{"enum":[0.1000000000000000055511151231257827]}`, `{"properties":{"a":{"minItems":1,"format":"x","if":{}}}}`,
	} {
		var doc = mustParse(t, `{"s":`+src+`}`)
		n, err := doc.Node("#/s")
		require.NoError(t, err)
		_, err = doc.Compile(n, "#/s")
		assert.ErrorIs(t, err, ErrUnsupported, src)
	}
}

func TestMalformedSchemasDoNotCompile(t *testing.T) {
	for _, src := range []string{
		`{"type":"str"}`, `{"minLength":-1}`, `{"minLength":"1"}`, `{"pattern":"("}`, `{"enum":[]}`,
		`{"required":"a"}`, `{"multipleOf":0}`, `{"minimum":"1"}`, `{"exclusiveMinimum":true}`, `{"allOf":[]}`,
		`{"discriminator":{}}`, `{"$ref":"#/nowhere"}`, `"string"`,
	} {
		doc := mustParse(t, `{"s":`+src+`}`)
		n, err := doc.Node("#/s")
		require.NoError(t, err)
		_, err = doc.Compile(n, "#/s")
		require.Error(t, err, src)
		assert.NotErrorIs(t, err, ErrUnsupported, src)
		assert.Contains(t, err.Error(), "#/s", "the error names where the schema is")
	}
}

func TestNodeAndResolve(t *testing.T) {
	doc := mustParse(t, `
paths:
  /v1/a~b/{id}:
    get:
      parameters:
        - $ref: '#/components/parameters/Id'
components:
  parameters:
    Id: {$ref: '#/components/parameters/Real'}
    Real: {name: id, in: path}
`)
	op, err := doc.Node("#/paths/~1v1~1a~0b~1%7Bid%7D/get")
	require.NoError(t, err)
	p, err := doc.Resolve(Field(op, "parameters").Content[0])
	require.NoError(t, err)
	assert.Equal(t, "path", Field(p, "in").Value)
	keys, _ := Pairs(p)
	assert.Equal(t, []string{"name", "in"}, keys)

	for _, ref := range []string{"#/nope", "#/paths/x", "other#/a", "#nopointer", "#/paths/~1v1~1a~0b~1%7Bid%7D/get/parameters/7"} {
		_, err := doc.Node(ref)
		assert.Error(t, err, ref)
	}
	loop := mustParse(t, `{a: {$ref: '#/b'}, b: {$ref: '#/a'}}`)
	_, err = loop.Resolve(Field(loop.root, "a"))
	assert.ErrorContains(t, err, "chained")
}

func compileJSON(t testing.TB, src string) *Checker {
	t.Helper()
	doc := mustParse(t, src)
	c, err := doc.Compile(doc.root, "#")
	require.NoError(t, err, src)
	return c
}

func mustParse(t testing.TB, src string) *Document {
	t.Helper()
	doc, err := Parse([]byte(src))
	require.NoError(t, err)
	return doc
}

func referenceSchema(t testing.TB, src string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	require.NoError(t, c.AddResource("mem://s.json", doc))
	s, err := c.Compile("mem://s.json")
	require.NoError(t, err)
	return s
}

// FuzzAgreesWithTheReferenceEngine decodes arbitrary JSON and requires the verdict of every case to
// be the reference engine's.
func FuzzAgreesWithTheReferenceEngine(f *testing.F) {
	ours := make([]*Checker, len(cases))
	refs := make([]*jsonschema.Schema, len(cases))
	for i, src := range cases {
		ours[i], refs[i] = compileJSON(f, src), referenceSchema(f, src)
	}
	for _, v := range scalars {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var inst any
		if json.Unmarshal(data, &inst) != nil {
			return
		}
		for i := range cases {
			if want := refs[i].Validate(inst) == nil; ours[i].Valid(inst) != want {
				t.Fatalf("schema %s, value %s: reference engine says %v", cases[i], data, want)
			}
		}
	})
}
