package tui

import (
	"strings"
	"testing"

	"parley/internal/demo"
)

func TestModelAloneListsTheEndpointsModels(t *testing.T) {
	d, srv, _, _ := demoScreen(t, screenConfig{demo: demo.Options{MoreModels: []string{"big-model", "small-model"}}})
	d.typeAndSend("/model")
	d.until("the list", func(m Model) bool { return m.focus == focusModels })
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
	d.until("the list", func(m Model) bool { return m.focus == focusModels })
	d.send(press("esc"))
	if d.m.focus != focusInput || d.m.modelName() != "small-model" {
		t.Fatalf("esc changed the model to %q", d.m.modelName())
	}
}
