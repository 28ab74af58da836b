package history

import (
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
)

// testdata/v1.db was made by the release before schema 2 (the built binary, in print mode
// against the demo endpoint): three sessions, succeeded, failed and interrupted runs, and a
// run left running by a process killed with SIGKILL mid-reply.
func TestSchema1DatabaseMigratesWithoutLoss(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.db")
	copyFile(t, "testdata/v1.db", path)

	type row struct {
		role, content, status string
	}
	raw := rawSQL(t, path)
	rows, err := raw.Query(`SELECT m.role, m.content, coalesce(r.status, '') FROM messages m
		LEFT JOIN runs r ON r.reply_id = m.id ORDER BY m.id`)
	if err != nil {
		t.Fatal(err)
	}
	before, err := readRows(rows, func(rows *sql.Rows, r *row) error { return rows.Scan(&r.role, &r.content, &r.status) })
	if err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if len(before) != 10 || before[9].status != "running" || before[9].content == "" {
		t.Fatalf("fixture is not what this test expects: %+v", before)
	}

	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version int
	if err := db.pool().QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(migrations) {
		t.Fatalf("user_version = %d, %v; want %d", version, err, len(migrations))
	}
	var after []stored.Message
	for _, s := range mustSessions(t, db) {
		msgs, err := db.AllMessages(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		after = append(after, msgs...)
	}
	if len(after) != len(before) {
		t.Fatalf("%d messages after, %d before", len(after), len(before))
	}
	byID := map[int64]stored.Message{}
	for _, m := range after {
		byID[m.ID] = m
	}
	for i, b := range before {
		m := byID[int64(i+1)]
		want := b.status
		if want == "running" {
			want = string(chat.StatusInterrupted) // its process is gone: recovered, text kept
		}
		if string(m.Role) != b.role || m.Content != b.content || string(m.Status) != want || m.Reasoning != "" {
			t.Errorf("message %d: %s %q %s; want %s %q %s", i+1, m.Role, m.Content, m.Status, b.role, b.content, want)
		}
	}
	// The migrated database takes the new kinds of text.
	s := mustSessions(t, db)[0]
	r, err := db.Post(s.ID, "and now?", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.StartRun(r.RunID); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendReply(r.RunID, "answer", "thinking"); err != nil {
		t.Fatal(err)
	}
}

func mustSessions(t *testing.T, db *DB) []stored.Session {
	t.Helper()
	ss, err := db.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
