package cli

import (
	"strings"
	"testing"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// How parley reads its first words: a subcommand, after parley's own flags or not; help; a
// mistyped subcommand, which is never sent as a prompt; and a question, which always is.

func TestHelpPrintsTheUsage(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	for _, args := range [][]string{{"help"}, {"help", "search"}, {"-h"}} {
		r := u.run(args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "parley: a terminal chat client") || r.stderr != "" {
			t.Errorf("%v: exit %d, stdout %.40q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	// A question may begin with the word.
	srv := demotest.Start(t, demo.Options{})
	r := u.run("--base-url", srv.URL(), "--model", "m", "help", "me", "write", "a", "haiku")
	if r.code != 0 || srv.Requests() != 1 || srv.Received()[0].Messages[0].Content != "help me write a haiku" {
		t.Errorf("help me write a haiku: exit %d, %d requests, stderr %q", r.code, srv.Requests(), r.stderr)
	}
}

// parley's flags before a subcommand's name apply to it when it has them too, and are refused
// with the reason when it has no use for them; either way nothing is sent as a prompt.
func TestSubcommandsAfterParleysFlags(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	u.run("-p", "where do quokkas live?", "--base-url", srv.URL(), "--model", "m")
	if r := u.run("--json", "sessions"); r.code != 0 || len(decode[[]sessionJSON](t, r.stdout)) != 1 {
		t.Errorf("--json sessions: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if r := u.run("--json", "search", "quokkas"); r.code != 0 || len(decode[[]searchJSON](t, r.stdout)) != 2 { // the question, and the demo's reply quoting it
		t.Errorf("--json search: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", "work", "sessions"}, "parley: --profile is not an option of parley sessions: leave it out (parley help lists each command's)\n"},
		{[]string{"--model=gpt-4o", "search", "quokka"}, "parley: --model is not an option of parley search: leave it out (parley help lists each command's)\n"},
		{[]string{"-c", "export", "abcd"}, "parley: -c is not an option of parley export: leave it out (parley help lists each command's)\n"},
		{[]string{"--wait=-5s", "sessions"}, "parley: invalid value \"-5s\" for --wait: want a total wait such as 20s, 10m or 2h (see parley -h)\n"},
	} {
		if r := u.run(c.args...); r.code != 2 || r.stderr != c.want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if srv.Requests() != 1 {
		t.Errorf("%d requests: a subcommand was sent as a prompt", srv.Requests())
	}
}

// A mistyped subcommand as the first word is refused, with the command meant and how to send
// the words as a prompt; words that only resemble one are a question, on a pipe and on a
// terminal alike.
func TestAMistypedSubcommandIsNotSent(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	ep := endpointFlags(srv)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serach", "quokka"}, `unknown command "serach" — did you mean search? (parley -p "serach quokka" sends it as a prompt)`},
		{[]string{"sesions"}, `unknown command "sesions" — did you mean sessions? (parley -p "sesions" sends it as a prompt)`},
		{[]string{"--role", "p", "serach"}, `unknown command "serach" — did you mean search? (parley -p "serach" sends it as a prompt)`}, // p is a value, not -p
		{[]string{"exprot", "it's", "$HOME"}, `unknown command "exprot" — did you mean export? (parley -p 'exprot it'\''s $HOME' sends it as a prompt)`},
	} {
		want := "parley: " + c.want + "\n"
		if r := u.run(append(ep, c.args...)...); r.code != 2 || r.stderr != want {
			t.Errorf("%v on a pipe: exit %d, stderr %q; want 2, %q", c.args, r.code, r.stderr, want)
		}
		if r := u.onTerminal(c.args...); r.code != 2 || r.stderr != want {
			t.Errorf("%v on a terminal: exit %d, stderr %q; want 2, %q", c.args, r.code, r.stderr, want)
		}
	}
	if srv.Requests() != 0 {
		t.Fatalf("%d requests: a typo was sent as a prompt", srv.Requests())
	}
	for _, q := range [][]string{{"what", "is", "this?"}, {"hello"}, {"research", "quokkas"}, {"notes", "on", "tcp"}} {
		if r := u.run(append(ep, q...)...); r.code != 0 {
			t.Errorf("%v: exit %d, stderr %q", q, r.code, r.stderr)
		}
	}
	if srv.Requests() != 4 {
		t.Errorf("%d requests: want each question sent", srv.Requests())
	}
	// -p sends the words as they are.
	if r := u.run(append(ep, "-p", "serach quokka")...); r.code != 0 || srv.Received()[4].Messages[0].Content != "serach quokka" {
		t.Errorf("-p serach quokka: exit %d, stderr %q", r.code, r.stderr)
	}
}
