package tui

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"parley/agent"
	"parley/agent/chat"
	"parley/agent/demo"
	"parley/history"
	"parley/retry"
)

// openDB opens a fresh history database in a temporary directory.
func openDB(t testing.TB) *history.DB {
	t.Helper()
	db, err := history.Open(filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// startDemo starts a demo endpoint on 127.0.0.1 and a client for it.
func startDemo(t testing.TB, opts demo.Options) (*demo.Server, *agent.Client) {
	t.Helper()
	srv, err := demo.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ep := agent.Endpoint{Name: "demo", BaseURL: srv.URL(), Model: "parley-demo", Demo: true}
	return srv, agent.NewClient(ep, chat.SystemClock{}, retry.DefaultPolicy())
}

// offlineClient is a client for an endpoint that is never called: unit tests feed the
// model its run events directly.
func offlineClient() *agent.Client {
	ep := agent.Endpoint{Name: "test", BaseURL: "http://127.0.0.1:9/v1", Model: "test-model"}
	return agent.NewClient(ep, chat.SystemClock{}, retry.DefaultPolicy())
}

// newModel returns a model on a new session of db, sized w×h, with the session loaded.
func newModel(t testing.TB, db *history.DB, client *agent.Client, srv *demo.Server, w, h int) Model {
	t.Helper()
	s, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	return openModel(t, db, client, srv, s, w, h)
}

// openModel returns a model on session s, sized w×h, with the session loaded.
func openModel(t testing.TB, db *history.DB, client *agent.Client, srv *demo.Server, s history.Session, w, h int) Model {
	t.Helper()
	m := New(Options{DB: db, Client: client, Session: s, Demo: srv})
	m, _ = step(m, tea.WindowSizeMsg{Width: w, Height: h})
	m, _ = step(m, m.loadSession(s.ID)())
	return m
}

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

// driver runs a model like a Bubble Tea program without a terminal: commands run in
// goroutines and their messages come back through Update, one at a time.
type driver struct {
	t    testing.TB
	m    Model
	msgs chan tea.Msg
	done chan struct{}
	quit bool
}

func newDriver(t testing.TB, m Model) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 64), done: make(chan struct{})}
	t.Cleanup(func() { close(d.done) })
	return d
}

// send delivers msg to the model and starts the commands it returns.
func (d *driver) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.exec(c)
		}
	case tea.QuitMsg:
		d.quit = true
	default:
		var cmd tea.Cmd
		d.m, cmd = step(d.m, msg)
		d.exec(cmd)
	}
}

func (d *driver) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if msg := cmd(); msg != nil {
			select {
			case d.msgs <- msg:
			case <-d.done:
			}
		}
	}()
}

// typeAndSend types text and presses enter.
func (d *driver) typeAndSend(text string) {
	for _, r := range text {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.send(press("enter"))
}

// until processes messages until cond holds, failing after a few seconds.
func (d *driver) until(what string, cond func(m Model) bool) {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond(d.m) {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; screen:\n%s", what, plain(d.m))
		}
	}
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

// lastReply returns the newest reply in the transcript.
func lastReply(t testing.TB, m Model) *entry {
	t.Helper()
	for i := len(m.transcript.entries) - 1; i >= 0; i-- {
		if e := m.transcript.entries[i]; e.message.Role == history.RoleAssistant {
			return e
		}
	}
	t.Fatal("no reply in the transcript")
	return nil
}

// storedReply reads reply id back from the database.
func storedReply(t testing.TB, db *history.DB, sessionID string, id int64) history.Message {
	t.Helper()
	msgs, err := db.Transcript(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range msgs {
		if msg.ID == id {
			return msg
		}
	}
	t.Fatalf("message %d not stored", id)
	return history.Message{}
}
