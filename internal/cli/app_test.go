package cli

import (
	"path/filepath"
	"testing"

	"parley/history"
)

// -c in the chat screen continues the session the screen last sent in; in print mode, the
// latest of any kind. The screen's sends are made here through a handle marked as its, as the
// wiring marks the screen's (chatScreen).
func TestDashCChoosesBySessionsUse(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	ep := endpointFlags(srv)
	u.run(append(ep, "-p", "in print mode, before any chat")...)
	app := func() *app {
		db, err := history.Open(filepath.Join(u.home, "history.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return &app{db: db}
	}
	latest := func(interactive bool) string {
		t.Helper()
		s, err := app().session(true, "", interactive)
		if err != nil {
			t.Fatal(err)
		}
		return s.Title
	}
	// A history that knows of no chat-screen session: -c is the latest of any kind.
	if got := latest(true); got != "in print mode, before any chat" {
		t.Errorf("-c in the chat screen, none used there yet: %q", got)
	}
	screen := app().db
	screen.SetInteractive()
	if _, err := screen.Post("", "in the chat screen", "m", false); err != nil {
		t.Fatal(err)
	}
	u.run(append(ep, "-p", "in print mode, after")...)
	if got := latest(true); got != "in the chat screen" {
		t.Errorf("-c in the chat screen: %q", got)
	}
	if got := latest(false); got != "in print mode, after" {
		t.Errorf("-c in print mode: %q", got)
	}
}
