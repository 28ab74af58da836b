package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `parley export`: every message of a session with its run, status and classification, as
// JSON or markdown, and the files behind it private.

func TestPrintModeAgainstAServerThenExport(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	r := u.run("-p", "what are the keys?", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || r.stdout == "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := srv.Received()[0].Messages; len(got) != 1 || got[0].Content != "what are the keys?" {
		t.Fatalf("server received %+v", got)
	}
	list := u.run("sessions", "--json")
	sessions := decode[[]struct{ ID string }](t, list.stdout)
	if list.code != 0 || len(sessions) != 1 {
		t.Fatalf("sessions: exit %d, %s", list.code, list.stdout)
	}
	exp := u.run("export", sessions[0].ID, "--json")
	e := decode[exportJSON](t, exp.stdout)
	if len(e.Messages) != 2 || e.Messages[0].Role != "user" || e.Messages[0].Content != "what are the keys?" ||
		e.Messages[1].Role != "assistant" || e.Messages[1].Status != "succeeded" || e.Messages[1].RunID == nil ||
		strings.TrimSpace(e.Messages[1].Content) != strings.TrimSpace(r.stdout) {
		t.Fatalf("export: %s", exp.stdout)
	}
	md := u.run("export", sessions[0].ID, "--markdown")
	if md.code != 0 || !strings.Contains(md.stdout, "what are the keys?") {
		t.Fatalf("markdown export: %d %s", md.code, md.stdout)
	}
	err := filepath.Walk(u.home, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", path, info.Mode().Perm())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// export --markdown to a terminal neutralises what a model wrote, as print mode does: a title
// set, a clipboard written, the screen cleared. To a pipe the text stays as it was.
func TestExportMarkdownToATerminalIsNeutralised(t *testing.T) {
	t.Parallel()
	hostile := "Here.\x1b]0;pwned\x07\x1b]52;c;aGVsbG8=\x07\x1b[2J done"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(hostile)
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%s},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", b)
	}))
	t.Cleanup(srv.Close)
	u := newUser(t)
	out := decode[printJSON](t, u.run("-p", "hi", "--base-url", srv.URL+"/v1", "--model", "m", "--json").stdout)
	shown := u.onTerminal("export", out.SessionID, "--markdown")
	if shown.code != 0 || strings.ContainsRune(shown.stdout, '\x1b') || !strings.Contains(shown.stdout, "Here.") {
		t.Fatalf("to a terminal: exit %d, %q", shown.code, shown.stdout)
	}
	if piped := u.run("export", out.SessionID, "--markdown"); !strings.Contains(piped.stdout, hostile) {
		t.Fatalf("to a pipe the text changed: %q", piped.stdout)
	}
}
