package history

import (
	"os"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// A database file replaced (a backup restored by renaming it into place) or deleted while a
// reply streams: the reply is not called stored, the end says why, nothing is left at the path
// to be replayed onto the file there now, and the whole run, its message with it, comes back
// from the recovery file into whatever database is at the path next.
func TestTheFileLeavesThePathMidStream(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, says string
		leave      func(t *testing.T, path, backup string)
		sessions   int
	}{
		{"replaced", "was replaced while parley had it open", func(t *testing.T, path, backup string) {
			if err := os.Rename(backup, path); err != nil {
				t.Fatal(err)
			}
		}, 2},
		{"deleted", "was deleted while parley had it open", func(t *testing.T, path, _ string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := openTemp(t)
			path := db.Path()
			post(t, db, newSession(t, db).ID, "an earlier question")
			backup := path + ".backup"
			if _, err := rawSQL(t, path).Exec(`VACUUM INTO ?`, backup); err != nil {
				t.Fatal(err)
			}
			r := post(t, db, newSession(t, db).ID, "the question that streams")
			in := make(chan chat.Event, 16)
			out := db.Record(r.RunID, in, chattest.NewInstant(chattest.Start))
			in <- chat.Event{Kind: chat.EventStarted, Attempt: 1}
			in <- chat.Event{Kind: chat.EventDelta, Text: "the first half, stored; "}
			for deadline := time.Now().Add(10 * time.Second); replyText(t, db, r.RunID) == ""; {
				if time.Now().After(deadline) {
					t.Fatal("the first text was never stored")
				}
				time.Sleep(10 * time.Millisecond)
			}
			tc.leave(t, path, backup)
			in <- chat.Event{Kind: chat.EventDelta, Text: "the second half."}
			in <- chat.Event{Kind: chat.EventFinished, FinishReason: "stop"}
			close(in)
			var end chat.Event
			for ev := range out {
				end = ev
			}
			if !strings.Contains(end.NotStored, path+" "+tc.says) || !strings.Contains(end.NotStored, path+".recovery") {
				t.Errorf("ended %+v; want NotStored saying the file %s and naming the recovery file", end, tc.says)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if info, err := os.Stat(path + "-wal"); err == nil && info.Size() > 0 {
				t.Errorf("a log of %d bytes is left beside the file at the path, to be replayed onto it", info.Size())
			}
			again := openPath(t, path)
			var check string
			if err := again.pool().QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
				t.Fatalf("integrity_check of the file at the path: %q, %v", check, err)
			}
			list, err := again.Sessions()
			if err != nil || len(list) != tc.sessions {
				t.Fatalf("sessions %+v, %v; want %d", list, err, tc.sessions)
			}
			msgs, err := again.AllMessages(list[0].ID)
			if err != nil || len(msgs) != 2 || msgs[0].Content != "the question that streams" ||
				msgs[1].Content != "the first half, stored; the second half." || msgs[1].Status != chat.StatusSucceeded {
				t.Fatalf("the run back from the recovery file: %+v, %v", msgs, err)
			}
		})
	}
}

// A write that comes after Close (a screen's last draft, stored as its program ends), with the
// database's directory already gone, fails as a closed database does: it does not take the
// file's absence for a file that left its path.
func TestAWriteAfterCloseFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := Open(dir + "/history.db")
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	err = db.SetDraft(s.ID, "the last draft")
	if err == nil || strings.Contains(err.Error(), "deleted while parley had it open") {
		t.Fatalf("a write after Close: %v", err)
	}
}
