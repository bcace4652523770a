package provider

import (
	"context"
	"log/slog"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// tflogHandler is a slog.Handler that writes the API client's log records to Terraform's log (TF_LOG)
// through tflog, in the context of the request being served. The client never logs headers or bodies;
// the handler masks the secret key anyway, so that no future log line can carry it.
type tflogHandler struct {
	secret string
	attrs  []slog.Attr
	group  string
}

// newTFLogLogger returns the logger given to client.WithLogger.
func newTFLogLogger(secret string) *slog.Logger {
	return slog.New(&tflogHandler{secret: secret})
}

// Enabled lets every record through: tflog filters by TF_LOG / TF_LOG_PROVIDER itself.
func (h *tflogHandler) Enabled(context.Context, slog.Level) bool { return true }

// Handle writes one record at the matching tflog level.
func (h *tflogHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if h.secret != "" {
		ctx = tflog.MaskAllFieldValuesStrings(ctx, h.secret)
		ctx = tflog.MaskMessageStrings(ctx, h.secret)
	}
	fields := make(map[string]any, len(h.attrs)+r.NumAttrs())
	for _, a := range h.attrs {
		fields[a.Key] = a.Value.Resolve().Any()
	}
	r.Attrs(func(a slog.Attr) bool {
		fields[h.key(a.Key)] = a.Value.Resolve().Any()
		return true
	})
	switch {
	case r.Level >= slog.LevelError:
		tflog.Error(ctx, r.Message, fields)
	case r.Level >= slog.LevelWarn:
		tflog.Warn(ctx, r.Message, fields)
	case r.Level >= slog.LevelInfo:
		tflog.Info(ctx, r.Message, fields)
	default:
		tflog.Debug(ctx, r.Message, fields)
	}
	return nil
}

// key prefixes an attribute's key with the open group, if any.
func (h *tflogHandler) key(k string) string {
	if h.group == "" {
		return k
	}
	return h.group + "." + k
}

// WithAttrs keeps attrs, under the group open now, for every later record.
func (h *tflogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range attrs {
		c.attrs = append(c.attrs, slog.Attr{Key: h.key(a.Key), Value: a.Value})
	}
	return &c
}

// WithGroup prefixes later keys with name.
func (h *tflogHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}
