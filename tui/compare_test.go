package tui

import (
	"strings"
	"testing"

	"parley/agent"
	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
	"parley/tui/modellist"
)

// R on a reply lists the other profiles above the endpoint's models; choosing one runs the
// reply again there, a new version beside the first; the version view sets both side by side,
// model, tokens and times; enter on the first makes it live again.
func TestCompareOnAnotherProfile(t *testing.T) {
	t.Parallel()
	o, srv, _ := demoOptions(t, screenConfig{demo: demo.Options{Tokens: 30}})
	second := demotest.Start(t, demo.Options{Tokens: 50})
	o.Others = []*agent.Client{agent.NewClient(agent.Endpoint{Name: "second", BaseURL: second.URL(), Model: "other-model"},
		chat.SystemClock{}, retry.DefaultPolicy())}
	m, _ := openModel(t, o, 120, 30)
	d := newDriver(t, m)
	d.typeAndSend("hello")
	d.until("the reply", func(m Model) bool { return settled(m) && lastReply(t, m).message.Status == chat.StatusSucceeded })
	first := lastReply(t, d.m).message
	d.selectReplies()
	d.send(press("R"))
	d.until("the list", func(m Model) bool { return m.overlays.Find(modellist.ID) != nil })
	if s := plain(d.m); !strings.Contains(s, "Run the reply again on") || !strings.Contains(s, "profile second · other-model") {
		t.Fatalf("the list:\n%s", s)
	}
	d.pressUntil("up", "profile second", func(m Model) bool { return strings.Contains(plain(m), "› profile second") })
	d.send(press("enter"))
	d.until("the second version", func(m Model) bool {
		r := lastReply(t, m).message
		return settled(m) && r.ID != first.ID && r.Status == chat.StatusSucceeded
	})
	if r := lastReply(t, d.m).message; r.Model != "other-model" || second.Requests() != 1 || srv.Requests() != 1 {
		t.Fatalf("the new version ran on %q; requests %d and %d", r.Model, srv.Requests(), second.Requests())
	}
	d.send(press("["))
	d.until("the version view", func(m Model) bool { return versionsOpen(m) })
	s := plain(d.m)
	for _, want := range []string{"#  model", "first word", "1  " + demo.DefaultModel, "2  other-model", "live"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the version view lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(s, " out ") {
		t.Errorf("no tokens in the table:\n%s", s)
	}
	d.send(press("enter"))
	d.until("the first version live again", func(m Model) bool {
		return !versionsOpen(m) && lastReply(t, m).message.ID == first.ID
	})
}
