package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// `parley export`: every message of a session with its run, status and classification, as
// JSON or markdown, and the files behind it private (what it prints of a session, to a pipe
// and to a terminal, is testdata/script/export*.txtar).

func TestPrintModeAgainstAServerThenExport(t *testing.T) {
	t.Parallel()
	// A home parley never ran in: the modes checked below are of the files it creates.
	u, srv := newFirstUser(t), demotest.Start(t, demo.Options{})
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
