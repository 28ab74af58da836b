package tui

import (
	"strings"
	"testing"

	"parley/agent"
	"parley/history/historytest"
	"parley/internal/chat"
	"parley/internal/demo"
	"parley/retry"
	"parley/tui/modellist"
)

func TestModelAloneListsTheEndpointsModels(t *testing.T) {
	t.Parallel()
	d, srv, _, _ := demoScreen(t, screenConfig{demo: demo.Options{MoreModels: []string{"big-model", "small-model"}}})
	d.typeAndSend("/model")
	d.until("the list", func(m Model) bool { return m.overlays.Find(modellist.ID) != nil })
	s := plain(d.m)
	for _, want := range []string{"Models", "big-model", "small-model", "parley-demo  (in use)"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the list lacks %q:\n%s", want, s)
		}
	}
	// Typing narrows the list; letters are the filter, not keys.
	for _, r := range "sma" {
		d.send(press(string(r)))
	}
	if s := plain(d.m); strings.Contains(s, "big-model") || !strings.Contains(s, "› small-model") {
		t.Fatalf("filtered by \"sma\":\n%s", s)
	}
	d.send(press("enter"))
	if d.m.focus != focusInput || d.m.modelName() != "small-model" {
		t.Fatalf("after enter: focus %v, model %q", d.m.focus, d.m.modelName())
	}
	d.typeAndSend("hello")
	d.until("the reply", answered(t, 2))
	if !strings.Contains(string(srv.Received()[0].Body), `"model":"small-model"`) {
		t.Fatalf("sent %s", srv.Received()[0].Body)
	}
	d.typeAndSend("/model")
	d.until("the list", func(m Model) bool { return m.overlays.Find(modellist.ID) != nil })
	d.send(press("esc"))
	if d.m.focus != focusInput || d.m.modelName() != "small-model" {
		t.Fatalf("esc changed the model to %q", d.m.modelName())
	}
}

// With no model named and several served, the screen opens on the list to choose one; the
// question it was started with waits in the input, and nothing is sent until a model is chosen.
func TestTheScreenOpensOnTheModelsWhenSeveralAreServed(t *testing.T) {
	t.Parallel()
	m, _ := openModel(t, Options{DB: historytest.Open(t), Client: agent.NewClient(agent.Endpoint{BaseURL: "http://127.0.0.1:9/v1"}, chat.SystemClock{}, retry.DefaultPolicy()),
		ChooseModel: []string{"alpha", "beta"}, Send: "what is tcp"}, 80, 24)
	if m.overlays.Find(modellist.ID) == nil || !strings.Contains(plain(m), "alpha") || m.input.Value() != "what is tcp" {
		t.Fatalf("focus %v, input %q:\n%s", m.focus, m.input.Value(), plain(m))
	}
	if s := plain(m); !strings.Contains(s, "enter use model") || strings.Contains(s, "open session") {
		t.Fatalf("the model list's help line:\n%s", s)
	}
	if header, _, _ := strings.Cut(plain(m), "\n"); !strings.Contains(header, "· no model chosen") {
		t.Fatalf("the header does not say no model is chosen: %q", header)
	}
	m, _ = step(m, press("esc"))
	m, cmd := step(m, press("enter"))
	if m.posting || len(m.outbox) > 0 || cmd != nil || m.input.Value() != "what is tcp" || !strings.Contains(m.notice, "choose a model first") {
		t.Fatalf("sent without a model: posting %v, outbox %v, input %q, notice %q", m.posting, m.outbox, m.input.Value(), m.notice)
	}
}

// When the endpoint's models could not be listed, the screen opens anyway and says why.
func TestTheScreenOpensWhenTheModelsCannotBeListed(t *testing.T) {
	t.Parallel()
	problem := "no model named, and the endpoint's could not be listed: Network error — nothing is listening on 127.0.0.1:9 (connection refused) — /model NAME chooses one"
	m, _ := openModel(t, Options{DB: historytest.Open(t), Client: agent.NewClient(agent.Endpoint{BaseURL: "http://127.0.0.1:9/v1"}, chat.SystemClock{}, retry.DefaultPolicy()),
		ModelProblem: problem}, 200, 24)
	if !strings.Contains(plain(m), "nothing is listening on 127.0.0.1:9") || !m.noticeErr {
		t.Fatalf("the problem is not shown:\n%s", plain(m))
	}
}
