package cli

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"parley/internal/chat"
)

// openLog returns a logger into parley's log file (0600), and the file to close. Logging
// never reaches the terminal: when the file cannot be opened, logs are dropped. The logger is
// this run's own, never slog's default, so that runs in one process keep apart; what it
// writes passes redact.
func openLog(path string, redact *chat.Redactor) (*slog.Logger, io.Closer) {
	discard := slog.New(slog.DiscardHandler)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return discard, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return discard, nil
	}
	return slog.New(redact.Handler(slog.NewTextHandler(f, nil))), f
}
