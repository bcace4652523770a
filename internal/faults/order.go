package faults

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// Faults that break an order the document fixes: a list given in the reverse of its documented order,
// and a cursor that continues at its page's last event instead of after it. They rewrite the
// sandbox's answers as JSON values, keeping each listed item's text as the sandbox wrote it.

// reversedList lists the items of op's answers in reverse: the envelope's data array, or with inPage
// the items of the page that data is.
func reversedList(op api.Operation, inPage bool) func() middlewareFunc {
	return func() middlewareFunc {
		return onResponse(func(r *http.Request, c *captured) {
			if !is(r, op) || c.status != http.StatusOK {
				return
			}
			env, ok := jsonObject(c.body)
			if !ok {
				return
			}
			if !inPage {
				if list, ok := reversed(env["data"]); ok {
					env["data"] = list
					c.body = rawJSON(env)
				}
				return
			}
			page, ok := jsonObject(env["data"])
			if !ok {
				return
			}
			if list, ok := reversed(page["items"]); ok {
				page["items"] = list
				env["data"] = rawJSON(page)
				c.body = rawJSON(env)
			}
		})
	}
}

// cursorRepeatsLastEvent gives an event-log page that has more a next_cursor that continues at its
// last event rather than after it, as a cursor compared inclusively would (created_at <= instead of
// <): the next page starts again with the event the page ended with. The cursor is the sandbox's own
// for the same page one event shorter (asked of the sandbox with limit one less); a page of one event
// gets the cursor it was asked with, so that it comes again and again, and the first page of one
// event keeps its cursor, since no cursor continues before it.
func cursorRepeatsLastEvent() middlewareFunc {
	return func(_ *sandbox.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c := capture(next, r)
			if is(r, api.OpListEvents()) && c.status == http.StatusOK {
				continueAtLastEvent(next, r, c)
			}
			c.send(w)
		})
	}
}

func continueAtLastEvent(next http.Handler, r *http.Request, c *captured) {
	env, ok := jsonObject(c.body)
	if !ok {
		return
	}
	page, ok := jsonObject(env["data"])
	if !ok {
		return
	}
	var items []json.RawMessage
	if json.Unmarshal(page["items"], &items) != nil || len(items) == 0 || page["next_cursor"] == nil {
		return
	}
	cursor := r.URL.Query().Get("cursor")
	if len(items) > 1 {
		shorter := r.Clone(r.Context())
		q := r.URL.Query()
		q.Set("limit", strconv.Itoa(len(items)-1))
		u := *r.URL
		u.RawQuery = q.Encode()
		shorter.URL, shorter.RequestURI = &u, u.RequestURI()
		sc := capture(next, shorter)
		var answer struct {
			Data struct {
				NextCursor string `json:"next_cursor"`
			} `json:"data"`
		}
		if sc.status != http.StatusOK || json.Unmarshal(sc.body, &answer) != nil {
			return
		}
		cursor = answer.Data.NextCursor
	}
	if cursor == "" {
		return
	}
	page["next_cursor"] = rawJSON(cursor)
	env["data"] = rawJSON(page)
	c.body = rawJSON(env)
}

// jsonObject decodes a JSON object, keeping each member's text.
func jsonObject(b []byte) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// reversed returns a JSON array of at least two items with its items in reverse.
func reversed(list json.RawMessage) (json.RawMessage, bool) {
	var items []json.RawMessage
	if json.Unmarshal(list, &items) != nil || len(items) < 2 {
		return nil, false
	}
	slices.Reverse(items)
	return rawJSON(items), true
}

// rawJSON encodes v without escaping <, > and &, so that the items it holds keep their text.
func rawJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only maps and slices of raw JSON this file decoded, and strings
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
