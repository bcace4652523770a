package openapi_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi"
)

func TestValueAt(t *testing.T) {
	var v any
	require.NoError(t, json.Unmarshal([]byte(`{"data":{"items":[{"id":"evt_1"},{"id":null}]},"a/b":1}`), &v))
	for _, c := range []struct {
		path []string
		want any
		ok   bool
	}{
		{nil, v, true},
		{[]string{"data", "items", "0", "id"}, "evt_1", true},
		{[]string{"data", "items", "1", "id"}, nil, true}, // present, null
		{[]string{"a/b"}, 1.0, true},
		{[]string{"data", "items", "2"}, nil, false},
		{[]string{"data", "items", "x"}, nil, false},
		{[]string{"data", "nope"}, nil, false},
		{[]string{"a/b", "c"}, nil, false},
	} {
		got, ok := openapi.ValueAt(v, c.path)
		assert.Equal(t, c.ok, ok, "%v", c.path)
		assert.Equal(t, c.want, got, "%v", c.path)
	}
}
