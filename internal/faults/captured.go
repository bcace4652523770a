package faults

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
)

// captured is a response the sandbox wrote, held back so that a fault can change it before it is sent.
type captured struct {
	header http.Header
	status int
	body   []byte
}

// capture runs next with an httptest.ResponseRecorder and keeps what it wrote.
func capture(next http.Handler, r *http.Request) *captured {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	return &captured{header: rec.Header(), status: rec.Code, body: rec.Body.Bytes()}
}

func (c *captured) clone() *captured {
	return &captured{header: c.header.Clone(), status: c.status, body: bytes.Clone(c.body)}
}

// send writes the (possibly changed) response.
func (c *captured) send(w http.ResponseWriter) {
	for k, vs := range c.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(c.body)))
	w.WriteHeader(c.status)
	_, _ = w.Write(c.body)
}

// json decodes a JSON object body, or returns nil.
func (c *captured) json() map[string]any {
	var env map[string]any
	if json.Unmarshal(c.body, &env) != nil {
		return nil
	}
	return env
}

func (c *captured) setJSON(v any) {
	if body, err := json.Marshal(v); err == nil {
		c.body = body
	}
}

// eachObject calls change with the envelope's data object, or with each object of a data array, and
// re-encodes the body when a call reports a change.
func (c *captured) eachObject(change func(map[string]any) bool) {
	env := c.json()
	if env == nil {
		return
	}
	changed := false
	switch data := env["data"].(type) {
	case map[string]any:
		changed = change(data)
	case []any:
		for _, item := range data {
			if o, ok := item.(map[string]any); ok {
				changed = change(o) || changed
			}
		}
	}
	if changed {
		c.setJSON(env)
	}
}
