package cli

import (
	"strings"
	"testing"

	"parley/internal/demo"
)

// A reply cut after 40 chunks, then `parley -c --continue`: the request carries the cut text
// as the assistant's turn, stdout gets what follows the cut, and the session holds one joined
// reply, its seam where the cut was, beside the cut version.
func TestPrintModeContinuesTheCutReply(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	srv.Push(demo.Fault{CutAfter: 40})
	endpoint := endpointFlags(srv)
	cut := decode[printJSON](t, u.run(append([]string{"-p", "tell me about quokkas", "--json"}, endpoint...)...).stdout)
	if cut.Status != "failed" || cut.Text == "" {
		t.Fatalf("the cut run: %+v", cut)
	}
	r := u.run(append([]string{"-c", "--continue"}, endpoint...)...)
	if r.code != 0 || srv.Requests() != 2 {
		t.Fatalf("exit %d, %d requests; stderr %q", r.code, srv.Requests(), r.stderr)
	}
	sent := srv.Received()[1].Messages
	if len(sent) < 2 || sent[0].Content != "tell me about quokkas" || sent[1].Role != "assistant" || sent[1].Content != cut.Text {
		t.Fatalf("the continuation sent %+v; want the cut text as the assistant's turn", sent)
	}
	e := decode[exportJSON](t, u.run("export", cut.SessionID, "--json").stdout)
	var live []string
	for _, m := range e.Messages {
		if m.Role == "assistant" && !m.Superseded {
			live = append(live, m.Content)
		}
	}
	if len(e.Messages) != 3 || len(live) != 1 || live[0] != cut.Text+strings.TrimSuffix(r.stdout, "\n") {
		t.Fatalf("export %+v; want the cut version and one reply joined from it and stdout %q", e.Messages, r.stdout)
	}
	if e.Messages[1].Content != cut.Text || !e.Messages[1].Superseded {
		t.Errorf("the cut version is not kept: %+v", e.Messages[1])
	}
}

// --continue's mistakes are said with the fix, and send nothing; a reply that ended whole is
// not continued.
func TestPrintModeContinueRefuses(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	endpoint := endpointFlags(srv)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--continue"}, 2, "add -c (the latest session) or --session ID"},
		{[]string{"-c", "--continue", "-p", "more"}, 2, "--continue sends no prompt"},
	} {
		if r := u.run(append(c.args, endpoint...)...); r.code != c.code || !strings.Contains(r.stderr, c.says) {
			t.Errorf("parley %v: exit %d, %q; want %d, %q", c.args, r.code, r.stderr, c.code, c.says)
		}
	}
	u.run(append([]string{"-p", "hello"}, endpoint...)...)
	r := u.run(append([]string{"-c", "--continue"}, endpoint...)...)
	if r.code != 1 || !strings.Contains(r.stderr, "the session's last reply was not cut") || srv.Requests() != 1 {
		t.Errorf("a whole reply: exit %d, %q, %d requests", r.code, r.stderr, srv.Requests())
	}
}
