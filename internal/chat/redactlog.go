package chat

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler returns h with the secrets taken out of every record's message and attributes
// before h writes them: whatever a log line quotes of the world (a server's words, a tool
// server's stderr) is redacted there. With no secrets it is h.
func (r *Redactor) Handler(h slog.Handler) slog.Handler {
	if r == nil || len(r.secrets) == 0 {
		return h
	}
	return redactingHandler{h: h, r: r}
}

type redactingHandler struct {
	h slog.Handler
	r *Redactor
}

func (h redactingHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return redactingHandler{h: h.h.WithAttrs(h.attrs(attrs)), r: h.r}
}

func (h redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{h: h.h.WithGroup(name), r: h.r}
}

func (h redactingHandler) attrs(attrs []slog.Attr) []slog.Attr {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = h.attr(a)
	}
	return out
}

// attr is a with the secrets taken out of its value: a string, a group's members, or what
// any other value (an error) prints as.
func (h redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.String(v.String()))
	case slog.KindGroup:
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(h.attrs(v.Group())...)}
	case slog.KindAny:
		if s := fmt.Sprint(v.Any()); h.r.String(s) != s {
			return slog.String(a.Key, h.r.String(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
