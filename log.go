package main

import (
	"log/slog"
	"os"
	"path/filepath"
)

// openLog sends slog to parley's log file (0600). Logging never reaches the terminal: when
// the file cannot be opened, logs are dropped.
func openLog(path string) *os.File {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(f, nil)))
	return f
}
