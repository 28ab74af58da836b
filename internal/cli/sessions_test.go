package cli

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// `parley sessions`, `sessions title` and `sessions rm`, beside search, and the one way every
// command finds a session by its id.

func TestSearchRenameAndRemoveSessions(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	old := decode[printJSON](t, u.run("-p", "where do quokkas live?", "--base-url", srv.URL(), "--model", "m", "--json").stdout)
	for _, q := range []string{"what is TCP", "and UDP"} {
		u.run("-p", q, "--base-url", srv.URL(), "--model", "m")
	}
	r := u.run("search", "quokka")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], old.SessionID+"  ") {
		t.Fatalf("search: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "where do quokkas live?") || strings.ContainsAny(r.stdout, "\x02\x03\x1b") {
		t.Fatalf("to a pipe the excerpt is plain text: %q", r.stdout)
	}
	hits := decode[[]searchJSON](t, u.run("search", "quokkas", "--json").stdout)
	if len(hits) != 2 {
		t.Fatalf("search --json: %+v", hits)
	}
	for _, h := range hits {
		if len(h.Matches) == 0 || !strings.EqualFold(h.Excerpt[h.Matches[0][0]:h.Matches[0][1]], "quokkas") {
			t.Errorf("match ranges %v do not point at the word in %q", h.Matches, h.Excerpt)
		}
	}

	if r := u.run("sessions", "title", old.SessionID[:6], "Australian", "wildlife"); r.code != 0 {
		t.Fatalf("title: exit %d %s", r.code, r.stderr)
	}
	if list := u.run("sessions").stdout; !strings.Contains(list, old.SessionID) || !strings.Contains(list, "Australian wildlife") {
		t.Fatalf("sessions after renaming:\n%s", list)
	}
	// An id that matches nothing deletes nothing, the good ids included.
	if r := u.run("sessions", "rm", old.SessionID, "ffffffff"); r.code != 2 || !strings.Contains(r.stderr, `no session "ffffffff"`) {
		t.Fatalf("rm with a bad id: exit %d %q", r.code, r.stderr)
	}
	if r := u.run("search", "quokka"); r.stdout == "" {
		t.Fatal("a refused rm deleted the session")
	}
	if r := u.run("sessions", "rm", old.SessionID); r.code != 0 || !strings.Contains(r.stdout, "deleted "+old.SessionID) {
		t.Fatalf("rm: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := u.run("search", "quokka"); r.code != 1 || r.stdout != "" {
		t.Fatalf("a deleted session is still found: exit %d, %q", r.code, r.stdout)
	}
	if s := decode[[]struct{ ID string }](t, u.run("sessions", "--json").stdout); len(s) != 2 {
		t.Fatalf("sessions after rm: %+v", s)
	}
}

// Every command that takes a session id says the same of one it cannot use: a prefix of two
// sessions, with how much of an id tells them apart, or an id of none. A prefix of any length
// that only one session starts with finds it.
func TestSessionIDsAreFoundAlikeByEveryCommand(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	u.run("sessions") // creates the database
	db, err := sql.Open("sqlite", filepath.Join(u.home, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"abcd1234", "abcd5678", "0123abcd"} {
		if _, err := db.Exec(`INSERT INTO sessions (id, created_at, updated_at) VALUES (?, 1, 1)`, id); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	want := map[string]string{
		"abcd":     `session id "abcd" matches 2 sessions: give at least 5 characters`,
		"a":        `session id "a" matches 2 sessions: give at least 5 characters`,
		"ffffffff": `no session "ffffffff": list them with parley sessions`,
	}
	for id, msg := range want {
		for _, args := range [][]string{{"export", id}, {"--session", id, "-p", "hi"}, {"sessions", "rm", id}, {"sessions", "title", id, "x"}} {
			r := u.run(args...)
			if r.code != 2 || r.stderr != "parley: "+msg+"\n" {
				t.Errorf("%v: exit %d, %q; want 2, %q", args, r.code, r.stderr, msg)
			}
		}
	}
	if r := u.run("export", "0"); r.code != 0 {
		t.Errorf("a unique prefix of 1: exit %d %s", r.code, r.stderr)
	}
}

// rm takes a prefix of at least 4 characters (or the whole id), and on a terminal asks
// before it deletes: anything but yes keeps the session.
func TestRemoveNeedsFourCharactersAndAsksOnATerminal(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	id := decode[printJSON](t, u.run("-p", "where do quokkas live?", "--base-url", srv.URL(), "--model", "m", "--json").stdout).SessionID
	r := u.run("sessions", "rm", id[:1])
	if want := `parley: session id "` + id[:1] + `" is too short to delete by: give at least 4 characters of ` + id + "\n"; r.code != 2 || r.stderr != want {
		t.Fatalf("rm by one character: exit %d, %q; want %q", r.code, r.stderr, want)
	}
	terminal := func(ios *IO) { ios.InTerminal, ios.OutTerminal, ios.ErrTerminal = true, true, true }
	for _, answer := range []string{"", "n\n", "yesterday\n"} {
		r = u.runWith(terminal, answer, "sessions", "rm", id[:4])
		if r.code != 1 || !strings.Contains(r.stderr, "delete 1 session? [y/N] ") || r.stdout != "nothing deleted\n" {
			t.Fatalf("answer %q: exit %d, %q %q", answer, r.code, r.stdout, r.stderr)
		}
	}
	if list := u.run("sessions").stdout; !strings.Contains(list, id) {
		t.Fatal("a declined rm deleted the session")
	}
	if r = u.runWith(terminal, "y\n", "sessions", "rm", id[:4]); r.code != 0 || !strings.Contains(r.stdout, "deleted "+id) {
		t.Fatalf("answered y: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}
