package tui

import (
	"strings"
	"testing"

	"parley/history/historytest"
	"parley/history/stored"
)

// Slash commands as typed: a mistyped one is never sent, case does not matter, // sends one
// slash, and the menu that opens when a line starts with /.

func TestMistypedCommandsAreNeverSent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ line, notice string }{
		{"/sesions", "unknown command /sesions — did you mean /sessions? (// sends it as text)"},
		{"/sesions of last week", "unknown command /sesions — did you mean /sessions? (// sends it as text)"},
		{"/nwe", "unknown command /nwe — did you mean /new? (// sends it as text)"},
		{"/quokka hi", "unknown command /quokka — /help lists the commands (// sends it as text)"},
	} {
		db := historytest.Open(t)
		m, _ := openOffline(t, db, stored.Session{}, 100, 24)
		m = typeText(m, c.line)
		m, cmd := step(m, press("enter"))
		if m.posting || len(m.outbox) > 0 || m.transcript.Len() != 0 {
			t.Errorf("%q was sent", c.line)
		}
		for _, msg := range execCmd(cmd, 0) {
			if _, ok := msg.(postedMsg); ok {
				t.Errorf("%q was stored", c.line)
			}
		}
		if m.notice != c.notice || !m.noticeErr {
			t.Errorf("%q: notice %q, want %q", c.line, m.notice, c.notice)
		}
		if m.input.Value() != c.line {
			t.Errorf("%q: the input holds %q, want the line kept", c.line, m.input.Value())
		}
	}
}

func TestCommandsIgnoreCase(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(1), 100, 24)
	m = typeText(m, "/Model other-model")
	m, _ = step(m, press("enter"))
	if m.modelName() != "other-model" || !m.input.Empty() {
		t.Fatalf("/Model: model %q, input %q", m.modelName(), m.input.Value())
	}
	m = typeText(m, "/NEW")
	m, cmd := step(m, press("enter"))
	if cmd == nil || !m.input.Empty() {
		t.Fatal("/NEW did nothing")
	}
	m = typeText(m, "/Help")
	if m, _ = step(m, press("enter")); !helpOpen(m) {
		t.Fatal("/Help did not open the help")
	}
}

func TestSlashMenu(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(1), 100, 24)
	m = typeText(m, "/")
	// A list down the screen, a command a line with what it does, scrolled past its rows.
	row := func(m Model, name string) int {
		for i, l := range strings.Split(plain(m), "\n") {
			if strings.Contains(l, name+" ") {
				return i
			}
		}
		return -1
	}
	if s := plain(m); !strings.Contains(s, "› /new") || !strings.Contains(s, "open, rename or delete a session") ||
		!strings.Contains(s, "1 of 15") || row(m, "/sessions") != row(m, "/new")+1 || strings.Contains(s, "/quit") {
		t.Fatalf("/ shows no list of commands:\n%s", s)
	}
	m, _ = step(m, press("down"))
	if s := plain(m); !strings.Contains(s, "› /sessions") || !strings.Contains(s, "2 of 15") {
		t.Fatalf("↓ does not move down the list:\n%s", s)
	}
	m = pressKeys(m, "up", "up")
	if s := plain(m); !strings.Contains(s, "› /quit") || !strings.Contains(s, "leave parley") || strings.Contains(s, "› /new") {
		t.Fatalf("↑ from the first command does not go round to the last:\n%s", s)
	}
	m, _ = step(m, press("down"))
	m = typeText(m, "s")
	s := plain(m)
	if !strings.Contains(s, "› /sessions") || !strings.Contains(s, "/system") || strings.Contains(s, "/quit") {
		t.Fatalf("/s: the menu should hold /sessions (chosen) and /system only:\n%s", s)
	}
	m = pressKeys(m, "down", "tab")
	if m.input.Value() != "/system " {
		t.Fatalf("down, tab: input %q, want /system and a space for its text", m.input.Value())
	}
	if strings.Contains(plain(m), "tab completes") {
		t.Fatal("the menu stays open once the command is complete")
	}

	// enter completes a command typed in part, and runs one typed whole.
	m.input.Reset()
	m = typeText(m, "/ses")
	m, cmd := step(m, press("enter"))
	if m.input.Value() != "/sessions" || cmd != nil {
		t.Fatalf("enter on /ses: input %q, command %v; want it completed, not run", m.input.Value(), cmd != nil)
	}
	if _, cmd = step(m, press("enter")); cmd == nil {
		t.Fatal("enter on /sessions did not run it")
	}

	// esc closes it, and typing on does not open it again until the line starts over.
	m.input.Reset()
	m = typeText(m, "/se")
	m, _ = step(m, press("esc"))
	if strings.Contains(plain(m), "tab completes") || m.focus != focusInput || m.input.Value() != "/se" {
		t.Fatalf("esc: focus %v, input %q\n%s", m.focus, m.input.Value(), plain(m))
	}
	m = typeText(m, "s")
	if strings.Contains(plain(m), "tab completes") {
		t.Fatal("the menu came back after esc")
	}

	// A line that is no command shows none; // is text.
	for _, line := range []string{"//se", "/etc/hosts", "hello /se"} {
		m.input.Reset()
		m = typeText(m, line)
		if strings.Contains(plain(m), "tab completes") {
			t.Errorf("%q shows the menu", line)
		}
	}
}

// A command that fails keeps its line in the input, whatever it is (/role once cleared it
// while /file kept it), and says why: /copy with no reply, /role naming none, /title alone.
func TestFailedCommandsKeepTheirLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ line, notice string }{
		{"/copy", "there is no reply to copy yet"},
		{"/role nosuch", `no role "nosuch" (roles: none defined); add roles/nosuch.md beside config.toml`},
		{"/title", "/title TEXT renames this session"},
	} {
		db := historytest.Open(t)
		m, _ := openOffline(t, db, stored.Session{}, 100, 24)
		m = typeText(m, c.line)
		m, _ = step(m, press("enter"))
		if m.notice != c.notice || !m.noticeErr || m.input.Value() != c.line {
			t.Errorf("%q: notice %q (error %v), input %q; want %q and the line kept", c.line, m.notice, m.noticeErr, m.input.Value(), c.notice)
		}
	}
}

// /title before the first message names the session to come: no error about a session that
// is not stored yet, and the first message stores it under that title.
func TestTitleBeforeTheFirstMessage(t *testing.T) {
	t.Parallel()
	d, _, _, db := demoScreen(t, screenConfig{unstored: true})
	d.typeAndSend("/title plans")
	if want := "no session yet: it is titled “plans” when your first message makes it"; d.m.notice != want || d.m.noticeErr {
		t.Errorf("/title said %q (error %v), want %q", d.m.notice, d.m.noticeErr, want)
	}
	d.typeAndSend("hello")
	d.until("the reply", answered(t, 2))
	s, err := db.Session(d.m.session.ID)
	if err != nil || s.Title != "plans" || d.m.session.Title != "plans" {
		t.Errorf("stored title %q (%v), shown %q; want plans", s.Title, err, d.m.session.Title)
	}
}

// A rename the database refuses gives its line back to the input.
func TestFailedTitleGivesItsLineBack(t *testing.T) {
	t.Parallel()
	d, _, _, db := demoScreen(t, screenConfig{})
	if err := db.DeleteSession(d.m.session.ID); err != nil {
		t.Fatal(err)
	}
	d.typeAndSend("/title gone")
	d.until("the refusal", func(m Model) bool { return m.noticeErr })
	if !strings.HasPrefix(d.m.notice, "could not rename the session: ") || d.m.input.Value() != "/title gone" {
		t.Errorf("notice %q, input %q", d.m.notice, d.m.input.Value())
	}
}
