package mcp

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// stderrLog writes a stdio server's stderr to the log, a record a line, and keeps its last
// lines for the account of how it ended.
type stderrLog struct {
	log *slog.Logger

	mu      sync.Mutex
	partial []byte
	last    []string
	// logged counts the bytes of log the server's stderr took, dropped the bytes of stderr
	// past MaxStderrLogged: a server may write without end, and the log is the user's disk.
	logged, dropped int
}

const (
	// MaxStderrLogged bounds the log that one server process's stderr takes: the first part
	// is kept, where a start's trouble is said; what comes after is counted, and the count
	// logged when the process ends.
	MaxStderrLogged = 1 << 20
	// recordCost is about what a log record adds to the line it holds.
	recordCost = 100
)

const (
	// keptLines and keptLine bound what is kept of stderr: enough for a stack trace's message.
	keptLines = 20
	keptLine  = 300
	// maxPartial bounds a line held back for its end: a server may never write one.
	maxPartial = 64 << 10
)

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.line(string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) > maxPartial {
		w.line(string(w.partial))
		w.partial = nil
	}
	return len(p), nil
}

// flush writes a last line that had no line break.
func (w *stderrLog) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 {
		w.line(string(w.partial))
		w.partial = nil
	}
	if w.dropped > 0 {
		w.log.Warn("mcp server stderr dropped past the log's bound", "bytes", w.dropped, "bound", MaxStderrLogged)
		w.dropped = 0
	}
}

// line logs one line and keeps it; w.mu is held.
func (w *stderrLog) line(text string) {
	// Each line is counted with what its record adds (time, level, names), so that a flood
	// of short lines is bounded as well as one of long ones.
	if cost := len(text) + recordCost; w.logged+cost <= MaxStderrLogged {
		w.logged += cost
		w.log.Info("mcp server stderr", "text", strings.TrimRight(text, "\r"))
	} else {
		w.dropped += len(text) + 1
	}
	text = strings.TrimRight(text, "\r")
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if len(text) > keptLine {
		text = strings.ToValidUTF8(text[:keptLine], "") + "…"
	}
	w.last = append(w.last, text)
	if len(w.last) > keptLines {
		w.last = w.last[1:]
	}
}

// lastWords is the line of stderr that best says why a server ended: the last one that
// speaks of an error (Node's and Python's crashes end with lines that do not), else the last.
func (w *stderrLog) lastWords() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.last) - 1; i >= 0; i-- {
		if strings.Contains(strings.ToLower(w.last[i]), "error") {
			return w.last[i]
		}
	}
	if len(w.last) > 0 {
		return w.last[len(w.last)-1]
	}
	return ""
}
