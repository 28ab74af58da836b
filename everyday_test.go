package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// The daily driver from the command line: roles and system prompts, piped text and attached
// files, the model asked of the endpoint, sampling settings, search and session commands,
// and the version.

// exportedSystem is the part of export --json that tells system prompts and edits apart.
type exportedSystem struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		SystemRole string `json:"system_role"`
		Superseded bool   `json:"superseded"`
	} `json:"messages"`
}

func TestARoleFilesPromptIsSentFirstAndStored(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	u.writeHome(map[string]string{"roles/poet.md": "---\nmodel: verse-1\n---\nAnswer in verse.\n"})
	first := decode[printJSON](t, u.run("-p", "hello", "--role", "poet", "--base-url", srv.URL(), "--json").stdout)
	if first.Status != "succeeded" {
		t.Fatalf("%+v", first)
	}
	got := srv.Received()[0]
	if m := got.Messages; len(m) != 2 || m[0].Role != "system" || m[0].Content != "Answer in verse." || m[1].Content != "hello" {
		t.Fatalf("sent %+v, want the role's prompt first", m)
	}
	var body struct{ Model string }
	if err := json.Unmarshal(got.Body, &body); err != nil || body.Model != "verse-1" {
		t.Fatalf("model %q, want the role's verse-1 (%v)", body.Model, err)
	}

	// The session keeps its prompt: continued without --role, it is still sent first.
	u.run("-p", "and again", "-c", "--base-url", srv.URL(), "--model", "m")
	if m := srv.Received()[1].Messages; len(m) != 4 || m[0].Role != "system" || m[0].Content != "Answer in verse." {
		t.Fatalf("continued session sent %+v", m)
	}
	e := decode[exportedSystem](t, u.run("export", first.SessionID, "--json").stdout)
	if len(e.Messages) != 5 || e.Messages[0].Role != "system" || e.Messages[0].SystemRole != "poet" {
		t.Fatalf("export %+v, want the system prompt stored once, first, with its role", e.Messages)
	}
	if md := u.run("export", first.SessionID, "--markdown").stdout; !strings.Contains(md, "## System prompt (role poet)\n\nAnswer in verse.") {
		t.Fatalf("markdown export:\n%s", md)
	}
	if r := u.run("roles"); r.code != 0 || !strings.Contains(r.stdout, "poet") || !strings.Contains(r.stdout, "model verse-1") || !strings.Contains(r.stdout, "Answer in verse.") {
		t.Fatalf("parley roles: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := u.run("-p", "hi", "--role", "bard", "--base-url", srv.URL(), "--model", "m"); r.code != 2 || !strings.Contains(r.stderr, `unknown role "bard"`) || srv.Requests() != 2 {
		t.Fatalf("an unknown role: exit %d, %q, %d requests", r.code, r.stderr, srv.Requests())
	}
}

// --system sets the prompt of the messages from now on; a profile's default role starts new
// sessions only.
func TestSystemFlagAndADefaultRole(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	u.writeConfig(fmt.Sprintf("profile = \"p\"\n[profiles.p]\nbase_url = %q\nmodel = \"m\"\nrole = \"terse\"\n[roles.terse]\nsystem = \"Be terse.\"\n", srv.URL()))
	old := decode[printJSON](t, u.run("-p", "one", "--system", "Be kind.", "--json").stdout)
	u.run("-p", "two", "--session", old.SessionID)
	u.run("-p", "three")
	sent := srv.Received()
	if m := sent[0].Messages; m[0].Content != "Be kind." {
		t.Fatalf("--system: %+v", m)
	}
	if m := sent[1].Messages; m[0].Content != "Be kind." || len(m) != 4 {
		t.Fatalf("a default role changed a session that has a prompt: %+v", m)
	}
	if m := sent[2].Messages; len(m) != 2 || m[0].Content != "Be terse." {
		t.Fatalf("a new session without the default role: %+v", m)
	}
}

func TestPipedTextFollowsThePrompt(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	if r := u.pipe("ZEBRA", "-p", "say the word", "--base-url", srv.URL(), "--model", "m"); r.code != 0 || r.stdout == "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := srv.Received()[0].Messages; len(got) != 1 || got[0].Content != "say the word\n\nZEBRA" {
		t.Fatalf("sent %+v", got)
	}
	// A question in place of -p does the same with a pipe: print mode, not the chat screen.
	if r := u.pipe("a pipe's text\n", "--base-url", srv.URL(), "--model", "m", "what", "is", "this?"); r.code != 0 || r.stdout == "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := srv.Received()[1].Messages[0].Content; got != "what is this?\n\na pipe's text" {
		t.Fatalf("sent %q", got)
	}
}

func TestAttachedFilesAndRefusals(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	u.writeHome(map[string]string{"notes.md": "# Notes\nremember the milk\n", "big.txt": strings.Repeat("x", 3000),
		"config.toml": "max_attachment_bytes = 2048\n"})
	notes := filepath.Join(u.home, "notes.md")
	r := u.run("-p", "summarise", "-f", notes, "--base-url", srv.URL(), "--model", "m", "--json")
	out := decode[printJSON](t, r.stdout)
	want := "summarise\n\n" + notes + "\n```md\n# Notes\nremember the milk\n```"
	if got := srv.Received()[0].Messages[0].Content; r.code != 0 || got != want {
		t.Fatalf("exit %d, sent %q, want %q", r.code, got, want)
	}
	e := decode[exportJSON](t, u.run("export", out.SessionID, "--json").stdout)
	if e.Messages[0].Content != want {
		t.Fatalf("stored %q: the attachment is part of the operator message", e.Messages[0].Content)
	}

	png := filepath.Join(u.home, "pic.png")
	if err := os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, says string }{
		{png, "it is binary, not text"},
		{filepath.Join(u.home, "gone.txt"), "no such file"},
		{filepath.Join(u.home, "big.txt"), "2.9 KiB is over the 2.0 KiB limit; raise max_attachment_bytes"},
	} {
		r := u.run("-p", "look", "-f", notes, "--file", c.path, "--base-url", srv.URL(), "--model", "m")
		line := strings.TrimSpace(r.stderr)
		if r.code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, "cannot attach "+c.path+": "+c.says) {
			t.Errorf("%s: exit %d, stderr %q", c.path, r.code, r.stderr)
		}
	}
	if r := u.pipe("\x00\x01binary", "-p", "look", "--base-url", srv.URL(), "--model", "m"); r.code != 2 || !strings.Contains(r.stderr, "cannot attach stdin: it is binary") {
		t.Errorf("binary stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	if srv.Requests() != 1 {
		t.Fatalf("%d requests: a refused attachment must send nothing", srv.Requests())
	}
	if s := decode[[]struct{ ID string }](t, u.run("sessions", "--json").stdout); len(s) != 1 {
		t.Fatalf("sessions %+v: a refused attachment must store nothing", s)
	}
}

func TestTheModelIsAskedOfTheEndpoint(t *testing.T) {
	one := demotest.Start(t, demo.Options{Model: "only-model"})
	u := newUser(t)
	r := u.run("-p", "hello", "--base-url", one.URL(), "--json")
	var body struct{ Model string }
	if r.code != 0 || one.Requests() != 1 || json.Unmarshal(one.Received()[0].Body, &body) != nil || body.Model != "only-model" {
		t.Fatalf("exit %d, %d requests, model %q; stderr %q", r.code, one.Requests(), body.Model, r.stderr)
	}
	several := demotest.Start(t, demo.Options{Model: "b-model", MoreModels: []string{"a-model", "c-model"}})
	r = u.run("-p", "hello", "--base-url", several.URL())
	if want := "serves 3 models (a-model, b-model, c-model): pass --model NAME"; r.code != 2 || !strings.Contains(r.stderr, want) || several.Requests() != 0 {
		t.Fatalf("several models: exit %d, %d requests, stderr %q", r.code, several.Requests(), r.stderr)
	}
	r = u.run("-p", "hello", "--base-url", "http://127.0.0.1:9/v1")
	if r.code != 2 || !strings.Contains(r.stderr, "no model named, and asking the endpoint failed") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("unreachable: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestAProfilesSamplingReachesTheRequest(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	u.writeConfig(fmt.Sprintf("[profiles.warm]\nbase_url = %q\nmodel = \"m\"\ntemperature = 0.7\ntop_p = 0.9\n"+
		"[profiles.cold]\nbase_url = %q\nmodel = \"m\"\ntemperature = 0.0\n", srv.URL(), srv.URL()))
	for _, p := range []string{"warm", "cold", ""} {
		args := []string{"-p", "hi", "--profile", p}
		if p == "" {
			args = []string{"-p", "hi", "--base-url", srv.URL(), "--model", "m"}
		}
		if r := u.run(args...); r.code != 0 {
			t.Fatalf("%s: exit %d %s", p, r.code, r.stderr)
		}
	}
	var sent []map[string]any
	for _, req := range srv.Received() {
		var body map[string]any
		if err := json.Unmarshal(req.Body, &body); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, body)
	}
	if sent[0]["temperature"] != 0.7 || sent[0]["top_p"] != 0.9 {
		t.Errorf("warm sent temperature %v, top_p %v", sent[0]["temperature"], sent[0]["top_p"])
	}
	if temp, ok := sent[1]["temperature"].(float64); !ok || temp > 1e-6 {
		t.Errorf("cold sent temperature %v, want 0 (present)", sent[1]["temperature"])
	}
	if _, ok := sent[2]["temperature"]; ok {
		t.Errorf("no profile sent temperature %v, want none", sent[2]["temperature"])
	}
}

func TestSearchRenameAndRemoveSessions(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
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
	if r := u.run("search", "quokka"); r.code != 0 || r.stdout != "" {
		t.Fatalf("a deleted session is still found: %q", r.stdout)
	}
	if s := decode[[]struct{ ID string }](t, u.run("sessions", "--json").stdout); len(s) != 2 {
		t.Fatalf("sessions after rm: %+v", s)
	}
}

func TestVersion(t *testing.T) {
	u := newUser(t)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := u.run(args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "parley ") || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, "go1.") {
			t.Errorf("%v: exit %d, %q %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

// Every command that takes a session id says the same of one it cannot use: a prefix of two
// sessions, a prefix too short, an id of none.
func TestSessionIDsAreFoundAlikeByEveryCommand(t *testing.T) {
	u := newUser(t)
	srv := demotest.Start(t, demo.Options{})
	u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m") // creates the database
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
		"abcd":     `session id "abcd" matches more than one session: give more of it`,
		"012":      `session id "012" matches no session: give at least 4 characters of one (parley sessions lists them)`,
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
	if r := u.run("export", "0123"); r.code != 0 {
		t.Errorf("a unique prefix of 4: exit %d %s", r.code, r.stderr)
	}
}
