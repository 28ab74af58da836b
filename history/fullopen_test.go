package history

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"parley/internal/testenv"
)

// A database opened on a full disk reads but refuses to store, as full; once space is freed
// the next write through the same handle is stored, another handle reads it, and the handle
// is an owner as any writable one (its lock file held) with its WAL set up.
func TestAFullDiskAtOpenStoresOnceSpaceIsFreed(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		testenv.Missing(t, "root (mounting a tmpfs needs it)", "run as root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if exec.Command("umount", dir).Run() != nil {
			exec.Command("umount", "-l", dir).Run()
		}
	})
	path := filepath.Join(dir, "history.db")
	first, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	session := newSession(t, first).ID
	post(t, first, session, "before the disk filled")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(dir, "filler")
	exec.Command("dd", "if=/dev/zero", "of="+filler, "bs=4k").Run() // fails when the disk is full, as meant

	db := openPath(t, path)
	if !db.ReadOnly() {
		t.Fatal("opened writable on a full disk; the test needs the read-only fallback it exercises")
	}
	if _, err := db.Post(session, "refused", "test-model", false); FaultOf(err) != FaultFull {
		t.Fatalf("a write on the full disk: %v; want it refused as full", err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	// The screen reads while it sends: the swap to the writable handle is safe under reads.
	stop, reading := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				reading <- nil
				return
			default:
			}
			if _, err := db.Sessions(); err != nil {
				reading <- err
				return
			}
		}
	}()
	r, err := db.Post(session, "after space was freed", "test-model", false)
	close(stop)
	if readErr := <-reading; readErr != nil {
		t.Errorf("reading while the handle became writable: %v", readErr)
	}
	if err != nil {
		t.Fatalf("the first write once space was freed: %v", err)
	}
	if db.ReadOnly() {
		t.Error("still read-only after a write was stored")
	}
	if !ownerAlive(path, db.token, map[string]bool{}) {
		t.Error("another parley does not see the upgraded handle as an owner: its lock file is not held")
	}
	var mode string
	if err := db.pool().QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q, %v; want wal", mode, err)
	}
	if err := db.StartRun(r.RunID); err != nil {
		t.Fatalf("starting the run the write queued: %v", err)
	}

	other := openPath(t, path)
	msgs, err := other.AllMessages(session)
	if err != nil {
		t.Fatal(err)
	}
	var contents []string
	for _, m := range msgs {
		if m.Content != "" { // each post's reply, not begun
			contents = append(contents, m.Content)
		}
	}
	if len(contents) != 2 || contents[0] != "before the disk filled" || contents[1] != "after space was freed" {
		t.Fatalf("another handle reads %q; want the message from before and the one stored after space was freed", contents)
	}
}
