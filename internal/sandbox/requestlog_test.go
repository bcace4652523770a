package sandbox

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/openapi/api"
)

// recordingHandler keeps the records it is given, at or above its level.
type recordingHandler struct {
	level   slog.Level
	mu      sync.Mutex
	records []slog.Record
	handled int
}

func (h *recordingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.handled++
	h.records = append(h.records, r.Clone())
	return nil
}

func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }

// requestLines returns the attributes of each "request" line, in order.
func (h *recordingHandler) requestLines() []map[string]slog.Value {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]slog.Value
	for _, r := range h.records {
		if r.Message != "request" {
			continue
		}
		attrs := map[string]slog.Value{"level": slog.AnyValue(r.Level)}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value; return true })
		out = append(out, attrs)
	}
	return out
}

// TestRequestLogLine: one line per request that says what it always said (method, path, status,
// duration, operation, replayed), and nothing reaches a handler that has Info off.
func TestRequestLogLine(t *testing.T) {
	h := &recordingHandler{level: slog.LevelInfo}
	e := newEnv(t, WithLogger(slog.New(h)))
	for range 2 {
		e.client.do(http.MethodPost, api.OpProcessPayout().URL(), mobilePayout(""), withIdempotencyKey("key-log"))
	}
	e.client.do(http.MethodGet, api.OpGetPayout().URL("po_0000000000000000"), nil)

	lines := h.requestLines()
	require.Len(t, lines, 3)
	for i, want := range []struct {
		method, path, operation string
		status                  int64
		replayed                bool
	}{
		{http.MethodPost, api.OpProcessPayout().URL(), api.OpProcessPayout().ID, http.StatusCreated, false},
		{http.MethodPost, api.OpProcessPayout().URL(), api.OpProcessPayout().ID, http.StatusCreated, true},
		{http.MethodGet, api.OpGetPayout().URL("po_0000000000000000"), api.OpGetPayout().ID, http.StatusNotFound, false},
	} {
		l := lines[i]
		assert.Equal(t, slog.LevelInfo, l["level"].Any(), "line %d", i)
		assert.Equal(t, want.method, l["method"].String(), "line %d", i)
		assert.Equal(t, want.path, l["path"].String(), "line %d", i)
		assert.Equal(t, want.status, l["status"].Int64(), "line %d", i)
		assert.Equal(t, want.operation, l["operation"].String(), "line %d", i)
		assert.Equal(t, want.replayed, l["replayed"].Bool(), "line %d", i)
		assert.Equal(t, slog.KindDuration, l["duration"].Kind(), "line %d", i)
		assert.Len(t, l, 7, "line %d: level and six attributes, no more", i)
	}

	quiet := &recordingHandler{level: slog.LevelWarn}
	q := newEnv(t, WithLogger(slog.New(quiet)))
	q.client.do(http.MethodGet, api.OpGetPayout().URL("po_0000000000000000"), nil)
	assert.Zero(t, quiet.handled, "with Info off no request line is built")
}
