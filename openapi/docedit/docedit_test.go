package docedit_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/docedit"
)

func TestEdits(t *testing.T) {
	d, err := docedit.Parse([]byte("paths:\n  /a/b:\n    get: {operationId: x}\nlist: [1, 2]\n"))
	require.NoError(t, err)
	require.NoError(t, d.Rename("/paths/"+docedit.Escape("/a/b"), "/c"))
	require.NoError(t, d.Set("/paths/~1c/get/summary", "hello"))
	require.NoError(t, d.Set("/list/0", "7"))
	require.NoError(t, d.Append("/list", "9"))
	require.NoError(t, d.Remove("/list/1"))
	require.NoError(t, d.Copy("/paths/~1c/get", "/paths/~1d"))
	out, err := d.Bytes()
	require.NoError(t, err)
	assert.Equal(t, "paths:\n  /c:\n    get: {operationId: x, summary: hello}\n  /d: {operationId: x, summary: hello}\nlist: [7, 9]\n", string(out))

	// A pointer that does not resolve is an error, never an edit somewhere else.
	assert.ErrorContains(t, d.Remove("/paths/~1a~1b"), `no member "/a/b"`)
	assert.ErrorContains(t, d.Set("/list/5", "1"), "no item")
	assert.ErrorContains(t, d.Append("/paths", "1"), "not a sequence")
	_, err = d.Get("/list/0/x")
	assert.ErrorContains(t, err, "below a scalar")
}

// A pointer's line is the line of its key, wherever the value starts (a block below it, a flow on the
// same line), or its item's.
func TestLine(t *testing.T) {
	d, err := docedit.Parse([]byte("a:\n  required:\n    - x\n    - y\n  flow: [1, 2]\n  '401':\n    description: no\n"))
	require.NoError(t, err)
	for pointer, want := range map[string]int{"#/": 1, "#/a": 1, "#/a/required": 2, "#/a/required/1": 4, "#/a/flow": 5, "#/a/401": 6, "#/a/401/description": 7} {
		line, err := d.Line(pointer)
		require.NoError(t, err, pointer)
		assert.Equal(t, want, line, pointer)
	}
	_, err = d.Line("#/a/missing")
	assert.ErrorContains(t, err, `no member "missing"`)
}
