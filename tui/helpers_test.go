package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"parley/agent"
	"parley/history"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/retry"
	"parley/tui/clipboard"
	"parley/tui/helpview"
	"parley/tui/picker"
	"parley/tui/transcript/transcripttest"
	"parley/tui/versions"
)

// Helpers that build a model and step it by hand; driver_test.go runs one like a program.

// newSessionIn creates a session in db.
func newSessionIn(t testing.TB, db *history.DB) stored.Session {
	t.Helper()
	s, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// offlineClient is a client for an endpoint that is never called: unit tests feed the
// model its run events directly.
func offlineClient() *agent.Client {
	ep := agent.Endpoint{Name: "test", BaseURL: "http://127.0.0.1:9/v1", Model: "test-model"}
	return agent.NewClient(ep, chat.SystemClock{}, retry.DefaultPolicy())
}

// historyOf is the database behind a screen's Store, for a test to read what was stored.
func historyOf(s Store) *history.DB { return s.(*history.DB) }

// openModel returns the model of o, sized w×h, with o.Session read from o.DB, and the
// command its loading returned.
func openModel(t testing.TB, o Options, w, h int) (Model, tea.Cmd) {
	t.Helper()
	m := New(o)
	m, _ = step(m, tea.WindowSizeMsg{Width: w, Height: h})
	return step(m, m.loadSession(o.Session.ID)())
}

// openOffline returns a model sized w×h on session s of db, with its stored messages read,
// and the command their loading returned. Its client is offline and its clock manual, at
// clockStart: the test feeds it whatever it is to see.
func openOffline(t testing.TB, db *history.DB, s stored.Session, w, h int) (Model, tea.Cmd) {
	t.Helper()
	return openModel(t, Options{DB: db, Client: offlineClient(), Session: s, Clock: chattest.New(clockStart)}, w, h)
}

// storedExchanges returns n finished question/answer pairs as the database would return them.
var storedExchanges = transcripttest.StoredExchanges

func init() {
	// The screen's tests copy as OSC 52 only, whatever display the machine has.
	systemClipboard = func() clipboard.Way { return clipboard.Way{OSC52: true} }
}

// loadedModel returns a model showing msgs, without a database.
func loadedModel(t testing.TB, msgs []stored.Message, w, h int) Model {
	t.Helper()
	m := New(Options{Client: offlineClient(), Session: stored.Session{ID: "s1", Title: "test session"}})
	m, _ = step(m, tea.WindowSizeMsg{Width: w, Height: h})
	m, _ = step(m, sessionLoadedMsg{session: m.session, msgs: msgs})
	return m
}

// streamingModel returns a model showing msgs and a new exchange whose reply is being written
// by the active run.
func streamingModel(t testing.TB, msgs []stored.Message, w, h int) Model {
	t.Helper()
	m := loadedModel(t, msgs, w, h)
	next := int64(len(msgs) + 1)
	m, _ = step(m, postedMsg{out: outgoing{text: "and now?"}, modelName: "test-model", session: m.session,
		rcpt: stored.Receipt{AnchorID: next, RunID: next, ReplyID: next + 1}})
	if m.active == nil {
		t.Fatal("no run started")
	}
	return m
}

// clockedStream is streamingModel on a manual clock at clockStart, for a test that moves the
// screen's time.
func clockedStream(t testing.TB, msgs []stored.Message, w, h int) (Model, *chattest.Clock) {
	t.Helper()
	m := streamingModel(t, msgs, w, h)
	clock := chattest.New(clockStart)
	m.clock = clock
	return m, clock
}

// firstAttempt is the event a run's first attempt begins with.
var firstAttempt = chat.Event{Kind: chat.EventStarted, Attempt: 1, MaxAttempts: 3}

// deliver hands the active run a batch of events.
func deliver(m Model, evs ...chat.Event) (Model, tea.Cmd) {
	return step(m, runEventsMsg{tag: m.active.tag, events: evs, ch: make(chan chat.Event)})
}

func delta(s string) chat.Event { return chat.Event{Kind: chat.EventDelta, Text: s} }

// step runs one Update.
func step(m Model, msg tea.Msg) (Model, tea.Cmd) {
	next, cmd := m.Update(msg)
	return next.(Model), cmd
}

// press builds the key press that msg.String() reports as name.
func press(name string) tea.KeyPressMsg {
	special := map[string]tea.Key{
		"enter":       {Code: tea.KeyEnter},
		"shift+enter": {Code: tea.KeyEnter, Mod: tea.ModShift},
		"alt+enter":   {Code: tea.KeyEnter, Mod: tea.ModAlt},
		"esc":         {Code: tea.KeyEscape},
		"tab":         {Code: tea.KeyTab},
		"up":          {Code: tea.KeyUp},
		"down":        {Code: tea.KeyDown},
		"pgup":        {Code: tea.KeyPgUp},
		"pgdown":      {Code: tea.KeyPgDown},
		"home":        {Code: tea.KeyHome},
		"end":         {Code: tea.KeyEnd},
		"backspace":   {Code: tea.KeyBackspace},
		"space":       {Code: tea.KeySpace, Text: " "},
	}
	if k, ok := special[name]; ok {
		return tea.KeyPressMsg(k)
	}
	if c, ok := strings.CutPrefix(name, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	r := []rune(name)[0]
	return tea.KeyPressMsg{Code: r, Text: name}
}

// pressKeys steps the model through the keys named, pressed in turn.
func pressKeys(m Model, names ...string) Model {
	for _, name := range names {
		m, _ = step(m, press(name))
	}
	return m
}

// typeText types s into the model, one key per rune.
func typeText(m Model, s string) Model {
	for _, r := range s {
		m, _ = step(m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return m
}

// execCmd runs cmd and the commands of any batch it returns that finish within wait,
// returning their messages. Commands that block longer (reading a run's events, timers) are
// abandoned.
func execCmd(cmd tea.Cmd, wait time.Duration) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		if batch, ok := msg.(tea.BatchMsg); ok {
			var out []tea.Msg
			for _, c := range batch {
				out = append(out, execCmd(c, wait)...)
			}
			return out
		}
		if msg == nil {
			return nil
		}
		return []tea.Msg{msg}
	case <-time.After(wait):
		return nil
	}
}

// runCmds runs cmd and hands the model every message it gives within a few seconds.
func runCmds(m Model, cmd tea.Cmd) Model {
	for _, msg := range execCmd(cmd, 5*time.Second) {
		m, _ = step(m, msg)
	}
	return m
}

// quits reports whether cmd ends the program.
func quits(cmd tea.Cmd) bool {
	for _, msg := range execCmd(cmd, time.Second) {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

// plain is the text of the screen, without styles.
func plain(m Model) string { return ansi.Strip(m.View().Content) }

// asciiView is the screen as a terminal without colors receives it.
func asciiView(m Model) string {
	var b bytes.Buffer
	w := &colorprofile.Writer{Forward: &b, Profile: colorprofile.Ascii}
	w.WriteString(m.View().Content)
	return b.String()
}

// shownReply is a reply as the transcript shows it: its message and its sanitized text.
type shownReply struct {
	message stored.Message
	text    string
}

// lastReply returns the newest reply in the transcript.
func lastReply(t testing.TB, m Model) shownReply {
	t.Helper()
	id := m.transcript.LastReply()
	msg, ok := m.transcript.Message(id)
	if !ok {
		t.Fatal("no reply in the transcript")
	}
	return shownReply{msg, m.transcript.Text(id)}
}

// liveMessages returns the session's live messages as stored.
func liveMessages(t testing.TB, db *history.DB, sessionID string) []stored.Message {
	t.Helper()
	msgs, err := db.Transcript(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// storedReply reads reply id back from the database.
func storedReply(t testing.TB, db *history.DB, sessionID string, id int64) stored.Message {
	t.Helper()
	for _, msg := range liveMessages(t, db, sessionID) {
		if msg.ID == id {
			return msg
		}
	}
	t.Fatalf("message %d not stored", id)
	return stored.Message{}
}

// storeExchange stores question in session sessionID and answer as its reply, as a run that
// streamed it and succeeded would, and returns the question's receipt.
func storeExchange(t testing.TB, db *history.DB, sessionID, question, answer string) stored.Receipt {
	t.Helper()
	rcpt, err := db.Post(sessionID, question, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	storeAnswer(t, db, rcpt, answer)
	return rcpt
}

// storedSession stores a new session holding one exchange, question and answer.
func storedSession(t testing.TB, db *history.DB, question, answer string) stored.Session {
	t.Helper()
	s, err := db.Session(storeExchange(t, db, "", question, answer).SessionID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// storeAnswer stores text as the reply of rcpt's run, which succeeds.
func storeAnswer(t testing.TB, db *history.DB, rcpt stored.Receipt, text string) {
	t.Helper()
	err := db.StartRun(rcpt.RunID)
	if err == nil {
		err = db.AppendReply(rcpt.RunID, text, "")
	}
	if err == nil {
		err = db.FinishRun(rcpt.RunID, stored.Finish{Status: chat.StatusSucceeded, Attempts: 1})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// failedRun is a stored failed run of anchor 1 with classification c, as Tier 2 reads it.
func failedRun(id int64, c chat.Classification) chat.RunResult {
	if c.Label == "" {
		c.Label = chat.Label(c.Class)
	}
	return chat.RunResult{RunID: id, AnchorID: 1, Status: chat.StatusFailed, Retry: &c, Attempts: 1}
}

var overloaded = chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded"}

// shownPicker is the session picker on m's stack; nil when it is not open.
func shownPicker(m Model) *picker.Picker {
	p, _ := m.overlays.Find(picker.ID).(*picker.Picker)
	return p
}

// pickerAt reports whether the sessions picker's cursor is on the session id.
func pickerAt(id string) func(m Model) bool {
	return func(m Model) bool {
		p := shownPicker(m)
		if p == nil {
			return false
		}
		shown := p.Shown()
		return p.Cursor() < len(shown) && shown[p.Cursor()].ID == id
	}
}

// helpOpen reports whether the list of every key is on m's stack.
func helpOpen(m Model) bool { return m.overlays.Find(helpview.ID) != nil }

// versionsOpen reports whether the version view stands on the screen's stack.
func versionsOpen(m Model) bool { return m.overlays.Find(versions.ID) != nil }
