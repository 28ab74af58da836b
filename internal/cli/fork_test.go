package cli

import (
	"fmt"
	"strings"
	"testing"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// `parley fork SESSION:MSG` makes a session holding the conversation up to MSG, linked to its
// origin in sessions and export; the origin keeps all it had. Mistakes name the fix.
func TestForkFromTheCommandLine(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{Tokens: 3})
	u := newUser(t)
	endpoint := endpointFlags(srv)
	first := decode[printJSON](t, u.run(append([]string{"-p", "question 1", "--json"}, endpoint...)...).stdout)
	for i := 2; i <= 6; i++ {
		u.run(append([]string{"-c", "-p", fmt.Sprintf("question %d", i)}, endpoint...)...)
	}
	origin := decode[exportJSON](t, u.run("export", first.SessionID, "--json").stdout)
	third := origin.Messages[5] // the 3rd reply
	r := u.run("fork", fmt.Sprintf("%s:%d", first.SessionID, third.ID), "--json")
	fork := decode[sessionJSON](t, r.stdout)
	if r.code != 0 || fork.Messages != 6 || fork.ForkedFrom != first.SessionID || fork.Title != "question 1" {
		t.Fatalf("exit %d, fork %+v; stderr %q", r.code, fork, r.stderr)
	}
	if e := decode[exportJSON](t, u.run("export", first.SessionID, "--json").stdout); len(e.Messages) != 12 {
		t.Errorf("the origin holds %d messages after the fork, want 12", len(e.Messages))
	}
	if s := u.run("sessions").stdout; !strings.Contains(s, fork.ID) || !strings.Contains(s, "(forked from "+first.SessionID+")") {
		t.Errorf("sessions does not show the link:\n%s", s)
	}
	if md := u.run("export", fork.ID, "--markdown").stdout; !strings.Contains(md, "_Forked from session "+first.SessionID+"_") {
		t.Errorf("the markdown export does not show the link:\n%s", md)
	}
	for _, c := range []struct{ arg, says string }{
		{first.SessionID + ":x", "is no message id: parley export"},
		{first.SessionID + ":99999", "has no live message 99999"},
		{"ffffffff", "no session"},
	} {
		if r := u.run("fork", c.arg); r.code != 2 || !strings.Contains(r.stderr, c.says) {
			t.Errorf("fork %s: exit %d, %q; want 2, %q", c.arg, r.code, r.stderr, c.says)
		}
	}
	if r := u.run("fork", first.SessionID); r.code != 0 || !strings.Contains(r.stdout, "at message 12 · 12 messages") {
		t.Errorf("fork of the whole: exit %d, %q", r.code, r.stdout)
	}
}
