package e2e

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/history/pathtest"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// history.db replaced (a backup restored by renaming it into place, as restore and sync tools
// do) or deleted while print mode streams a reply: parley says the reply was not saved and
// why (exit 4), leaves no log at the path to be replayed onto the file there, whose
// integrity_check stays ok, and the next command puts the whole run, message and reply, into
// the database at the path.
func TestStorageDatabaseLeavesThePathMidStream(t *testing.T) {
	t.Parallel()
	// 600 chunks 5 ms apart: about three seconds of reply.
	srv := demotest.Start(t, demo.Options{Tokens: 600, Pace: 5 * time.Millisecond})
	endpoint := []string{"--base-url", srv.URL(), "--model", "m"}
	for _, tc := range pathtest.Leavings {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			u := newStorageUser(t, t.TempDir())
			u.must(append([]string{"-p", "an earlier question"}, endpoint...)...)
			path := filepath.Join(u.home, "history.db")
			backup := filepath.Join(u.home, "backup.db")
			raw, err := sql.Open("sqlite", path)
			if err == nil {
				_, err = raw.Exec(`VACUUM INTO ?`, backup)
				raw.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			cmd, stdout, stderr := u.start(append([]string{"-p", "the question that streams"}, endpoint...)...)
			chattest.WaitFor(t, "the reply to stream", func() bool { return len(stdout.String()) > 1000 })
			tc.Leave(t, path, backup)
			cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			t.Logf("exit %d, %d bytes printed; stderr: %s", code, len(stdout.String()), stderr.String())
			if code != chat.ExitNotStored || !strings.Contains(stderr.String(), "not saved: "+path+" "+tc.Says) {
				t.Errorf("exit %d, stderr %q; want %d, saying the reply was not saved because history.db %s",
					code, stderr.String(), chat.ExitNotStored, tc.Says)
			}
			if printed := stdout.String(); printed != printedAs(demo.Generated(600, false)) {
				t.Errorf("printed %d bytes, want the whole reply", len(printed))
			}
			if info, err := os.Stat(path + "-wal"); err == nil && info.Size() > 0 {
				t.Errorf("a log of %d bytes is left at the path, to be replayed onto the file there", info.Size())
			}
			if tc.Name == "replaced" {
				var check string
				raw, _ := sql.Open("sqlite", path)
				err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&check)
				raw.Close()
				if err != nil || check != "ok" {
					t.Fatalf("integrity_check of the file put in place: %q, %v", check, err)
				}
			}
			list := decode[[]struct{ ID string }](t, u.must("sessions", "--json"))
			if len(list) != tc.Sessions {
				t.Fatalf("%d sessions, want %d", len(list), tc.Sessions)
			}
			_, msgs := u.stored()
			if len(msgs) != 2 || msgs[0].Content != "the question that streams" || printedAs(msgs[1].Content) != stdout.String() ||
				msgs[1].Status != "succeeded" {
				t.Errorf("the run back from the recovery file: %d messages; want the message and the %d bytes printed", len(msgs),
					len(stdout.String()))
			}
			if left := u.recoveryFiles(); len(left) > 0 {
				t.Errorf("recovery files left after folding back: %v", left)
			}
		})
	}
}
