package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"parley/history/historytest"
	"parley/history/stored"
	"parley/tui/picker"
)

// Opening, switching and listing sessions, and the other slash commands.

// The picker moves with its keys, says them in its title and help line, and closes with esc
// or q; enter on the open session closes it without switching.
func TestPickerKeys(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, nil, 100, 24)
	open := func(m Model) Model {
		m, _ = step(m, sessionsMsg{sessions: []stored.Session{{ID: "s0", Title: "zero"}, {ID: "s1"}, {ID: "s2"}}})
		return m
	}
	m = open(m)
	if m.overlays.Find(picker.ID) == nil || shownPicker(m).Cursor() != 1 {
		t.Fatalf("focus %v on session %d, want the picker on the open session s1", m.focus, shownPicker(m).Cursor())
	}
	for _, want := range []string{"↑/↓ choose · enter open · ctrl+d delete · ctrl+r rename · esc close", "enter open session • esc close"} {
		if !strings.Contains(plain(m), want) {
			t.Fatalf("picker lacks %q:\n%s", want, plain(m))
		}
	}
	for _, k := range []struct {
		key    string
		cursor int
	}{{"down", 2}, {"down", 2}, {"up", 1}, {"up", 0}, {"up", 0}} {
		if m, _ = step(m, press(k.key)); shownPicker(m).Cursor() != k.cursor {
			t.Fatalf("%s: cursor %d, want %d", k.key, shownPicker(m).Cursor(), k.cursor)
		}
	}
	for _, k := range []string{"esc", "enter"} {
		m, cmd := step(open(m), press(k))
		if m.focus != focusInput || cmd != nil {
			t.Fatalf("%s: focus %v, command %v; want the input back and no switch", k, m.focus, cmd != nil)
		}
	}
}

func TestSlashCommands(t *testing.T) {
	t.Parallel()
	d, srv, _, db := demoScreen(t, screenConfig{})
	first := d.m.session.ID

	d.typeAndSend("/model other-model")
	if d.m.modelName() != "other-model" || !strings.Contains(plain(d.m), "other-model") {
		t.Fatalf("/model did not switch:\n%s", plain(d.m))
	}
	d.typeAndSend("hi")
	d.until("reply", func(m Model) bool { return m.active == nil && m.transcript.Len() == 2 })
	if r := storedReply(t, db, first, lastReply(t, d.m).message.ID); r.Model != "other-model" {
		t.Fatalf("run stored with model %q", r.Model)
	}

	d.typeAndSend("/demo overload 2")
	d.until("the demo's answer", func(m Model) bool { return strings.Contains(m.notice, "503") })

	d.typeAndSend("/demo nonsense")
	d.until("the demo's error", func(m Model) bool { return m.noticeErr && strings.Contains(m.notice, "usage") })
	if d.m.input.Value() != "/demo nonsense" {
		t.Fatalf("input %q after a refused command, want it back", d.m.input.Value())
	}
	d.send(press("ctrl+c")) // clears the draft
	srv.Reset()

	// Only known commands are commands: the rest is sent, and // sends one slash.
	d.typeAndSend("/etc/hosts: what is this file for?")
	d.until("its reply", answered(t, 4))
	d.typeAndSend("//help")
	d.until("its reply", answered(t, 6))
	got := srv.Received()
	if n := len(got); got[n-2].Messages[2].Content != "/etc/hosts: what is this file for?" || got[n-1].Messages[4].Content != "/help" {
		t.Fatalf("sent %+v", got[n-2:])
	}

	d.typeAndSend("/new")
	d.until("a new session", func(m Model) bool { return m.session.ID != first })
	if d.m.transcript.Len() != 0 {
		t.Fatal("new session should be empty")
	}

	d.typeAndSend("/sessions")
	d.until("the picker", func(m Model) bool { return m.overlays.Find(picker.ID) != nil })
	if !strings.Contains(plain(d.m), "Sessions") || !strings.Contains(plain(d.m), "hi") {
		t.Fatalf("picker:\n%s", plain(d.m))
	}
	// Sessions are listed newest first: the first session is below the new one.
	d.pressUntil("down", "the first session", pickerAt(first))
	d.send(press("enter"))
	d.until("the first session again", func(m Model) bool { return m.session.ID == first && m.transcript.Len() == 6 })
	if !strings.Contains(plain(d.m), "hi") {
		t.Fatalf("stored history not shown:\n%s", plain(d.m))
	}

	d.typeAndSend("/quit")
	d.until("quit", func(Model) bool { return d.quit })
}

func TestContinueShowsStoredHistory(t *testing.T) {
	t.Parallel()
	d, srv, _, db := demoScreen(t, screenConfig{})
	d.typeAndSend("remember this question")
	d.until("reply", func(m Model) bool { return m.active == nil && m.transcript.Len() == 2 })
	s, err := db.LatestSession()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := openModel(t, Options{DB: db, Client: d.m.client, Session: s, Demo: srv}, 100, 30)
	if m.transcript.Len() != 2 || !strings.Contains(plain(m), "remember this question") {
		t.Fatalf("continued session:\n%s", plain(m))
	}
}

// A long session shows its end from the first frame; the older messages arrive next, before
// what is shown, without moving the window or the selection.
func TestLongSessionOpensAtTheEndThenReadsTheRest(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	s := newSessionIn(t, db)
	const turns = 150 // 300 messages: more than the first read takes
	for i := range turns {
		storeExchange(t, db, s.ID, fmt.Sprintf("question %d", i), fmt.Sprintf("answer %d", i))
	}
	m, loadOlder := openOffline(t, db, s, 80, 24)
	if m.transcript.Len() != firstScreen || !strings.Contains(plain(m), fmt.Sprintf("answer %d", turns-1)) {
		t.Fatalf("first frame holds %d messages; screen:\n%s", m.transcript.Len(), plain(m))
	}
	// The operator selects a reply and scrolls before the rest arrives.
	m = pressKeys(m, "esc", "k", "pgup")
	// The header changes as the conversation's size is read; the transcript below it stays,
	// numbered as the whole session is from the first frame.
	below := func(screen string) string { _, rest, _ := strings.Cut(screen, "\n"); return rest }
	before := below(plain(m))
	numbered := regexp.MustCompile(`You · #(\d+)\s+question (\d+)`).FindAllStringSubmatch(before, -1)
	for _, n := range numbered {
		if q, _ := strconv.Atoi(n[2]); n[1] != strconv.Itoa(2*q+1) {
			t.Fatalf("question %s is numbered #%s in the first frame: not as the whole session", n[2], n[1])
		}
	}
	if len(numbered) == 0 {
		t.Fatalf("no numbered question on screen:\n%s", before)
	}
	m = runCmds(m, loadOlder)
	if m.transcript.Len() != 2*turns {
		t.Fatalf("after the second read %d messages, want %d", m.transcript.Len(), 2*turns)
	}
	if after := below(plain(m)); after != before {
		t.Fatalf("the window moved when older messages arrived:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// The oldest are reachable.
	m, _ = step(m, press("home"))
	if !strings.Contains(plain(m), "question 0") {
		t.Fatalf("home does not reach the first message:\n%s", plain(m))
	}
}

func TestNewSessionIsStoredWithItsFirstMessage(t *testing.T) {
	t.Parallel()
	d, _, _, db := demoScreen(t, screenConfig{unstored: true})
	if ss, _ := db.Sessions(); len(ss) != 0 {
		t.Fatal("opening the screen stored a session")
	}
	d.typeAndSend("hello there")
	d.until("the reply", answered(t, 2))
	ss, err := db.Sessions()
	if err != nil || len(ss) != 1 || ss[0].ID != d.m.session.ID || ss[0].Title != "hello there" {
		t.Fatalf("sessions %+v, %v; screen on %q", ss, err, d.m.session.ID)
	}
}
