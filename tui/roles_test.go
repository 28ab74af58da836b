package tui

import (
	"reflect"
	"strings"
	"testing"

	"parley/history/stored"
)

// System prompts on the chat screen: the one parley starts with, /role and /system, against a
// demo endpoint and a real database.

var poet = stored.SystemPrompt{Role: "poet", Text: "Answer in verse."}

func TestTheSystemPromptGoesFirstAndSurvivesRegenerate(t *testing.T) {
	t.Parallel()
	o, srv, _ := demoOptions(t, screenConfig{})
	o.System, o.SystemExplicit = poet, true
	o.Roles = map[string]Role{"terse": {Name: "terse", System: "Be terse.", Model: "terse-model"}}
	m, _ := openModel(t, o, 120, 30)
	d := newDriver(t, m)
	if !strings.Contains(plain(d.m), "role poet") {
		t.Fatalf("the header does not show the role:\n%s", plain(d.m))
	}
	d.typeAndSend("hello")
	d.until("the reply", answered(t, 3))
	if s := plain(d.m); !strings.Contains(s, "System prompt · role poet") || !strings.Contains(s, "Answer in verse.") {
		t.Fatalf("the transcript does not show the system prompt:\n%s", s)
	}
	d.selectReplies()
	d.send(press("r"))
	d.until("the regenerated reply", func(m Model) bool { return srv.Requests() == 2 && answered(t, 3)(m) })
	got := srv.Received()
	if first := got[0].Messages[0]; first.Role != "system" || first.Content != "Answer in verse." || !reflect.DeepEqual(got[1].Messages, got[0].Messages) {
		t.Fatalf("first request %+v, regenerated %+v", got[0].Messages, got[1].Messages)
	}

	d.send(press("esc"))
	d.typeAndSend("/role terse")
	if s := plain(d.m); !strings.Contains(s, "role terse") || !strings.Contains(s, "terse-model") || d.m.modelName() != "terse-model" {
		t.Fatalf("after /role terse:\n%s", s)
	}
	d.typeAndSend("and now?")
	d.until("the reply under the new role", func(m Model) bool { return srv.Requests() == 3 && answered(t, 6)(m) })
	if m := srv.Received()[2].Messages; m[0].Content != "Be terse." || len(m) != 4 {
		t.Fatalf("after /role: %+v", m)
	}
	d.typeAndSend("/system Be kind.")
	d.typeAndSend("thanks")
	d.until("the reply under /system", func(m Model) bool { return srv.Requests() == 4 && answered(t, 9)(m) })
	if m := srv.Received()[3].Messages; m[0].Content != "Be kind." {
		t.Fatalf("after /system: %+v", m)
	}
	if !strings.Contains(plain(d.m), "system prompt") {
		t.Fatalf("the header does not say a system prompt is set:\n%s", plain(d.m))
	}
	d.typeAndSend("/role nope")
	if !d.m.noticeErr || !strings.Contains(d.m.notice, `no role "nope" (roles: terse)`) {
		t.Fatalf("an unknown role: %q", d.m.notice)
	}
}

// Which system prompt a session opened gets.
func TestTheSystemPromptOfASessionOpened(t *testing.T) {
	t.Parallel()
	terse := stored.SystemPrompt{Text: "Be terse."}
	some := storedExchanges(1)
	rows := []struct {
		name     string
		first    bool
		explicit bool
		stored   stored.SystemPrompt
		msgs     []stored.Message
		want     stored.SystemPrompt
	}{
		{"asked for: the first session, over its own", true, true, terse, some, poet},
		{"asked for: not a session switched to later", false, true, terse, some, terse},
		{"asked for: a new session switched to", false, true, stored.SystemPrompt{}, nil, poet},
		{"a default: a session keeps its own", true, false, terse, some, terse},
		{"a default: a new session", true, false, stored.SystemPrompt{}, nil, poet},
		{"a default: not an older session without one", true, false, stored.SystemPrompt{}, some, stored.SystemPrompt{}},
	}
	for _, row := range rows {
		m := New(Options{Client: offlineClient(), System: poet, SystemExplicit: row.explicit})
		if !row.first {
			m.sessionGen = 1
		}
		m.sessionOpened(row.stored, row.msgs)
		if m.next.system != row.want {
			t.Errorf("%s: %+v, want %+v", row.name, m.next.system, row.want)
		}
	}
}

// /role none and /system off remove the system prompt for the messages after them; the earlier
// ones keep theirs, and /role says what is in use.
func TestRoleNoneAndSystemOffRemoveThePrompt(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"/role none", "/system off"} {
		t.Run(line, func(t *testing.T) {
			o, srv, _ := demoOptions(t, screenConfig{})
			o.System, o.SystemExplicit = poet, true
			o.Roles = map[string]Role{"terse": {Name: "terse", System: "Be terse."}}
			m, _ := openModel(t, o, 120, 30)
			d := newDriver(t, m)
			d.typeAndSend("hello")
			d.until("the reply", answered(t, 3))
			d.typeAndSend(line)
			if header, _, _ := strings.Cut(plain(d.m), "\n"); strings.Contains(header, "role poet") || !strings.Contains(d.m.notice, "no system prompt for the next messages") {
				t.Fatalf("after %s: notice %q\n%s", line, d.m.notice, plain(d.m))
			}
			d.typeAndSend("/role")
			if !strings.Contains(d.m.notice, "now: none") {
				t.Fatalf("/role with none set: %q", d.m.notice)
			}
			d.typeAndSend("and now?")
			d.until("the reply without a prompt", func(m Model) bool { return srv.Requests() == 2 && answered(t, 6)(m) })
			got := srv.Received()
			if first := got[1].Messages[0]; first.Role == "system" || len(got[1].Messages) != 3 {
				t.Fatalf("the request after %s: %+v", line, got[1].Messages)
			}
			if !strings.Contains(plain(d.m), "System prompt removed") {
				t.Fatalf("the transcript does not show the removal:\n%s", plain(d.m))
			}
			// The first request went with the prompt.
			if first := got[0].Messages[0]; first.Content != "Answer in verse." {
				t.Fatalf("the first request: %+v", got[0].Messages)
			}
		})
	}
}
