package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/testenv"
)

// Storage on real mounts, with the built binary: a disk that fills mid-reply or is full
// before the first one, another parley's write lock, a read-only mount. What parley shows is
// what it stored, or it says it was not stored and where the text is kept; nothing is lost.
// Mounting needs root: these tests skip without it, fail without it in CI (which runs as
// root), and skip under -short.

// bigReply is a demo reply of 1.4 MB of markdown, over what a 1 MiB disk holds beside a new
// database (about 800 KB): it fills the disk mid-reply, and costs a third of what streaming
// 4 MB onto 3 MiB did.
const bigReply = 350_000

// tmpfs mounts a tmpfs of size (as mount(8) says it: "3m") on a new directory, and unmounts it
// when the test ends, lazily when something still has it open.
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	binary(t) // skips under -short
	if os.Geteuid() != 0 {
		testenv.Missing(t, "root (mounting a tmpfs needs it)", "run as root")
	}
	dir := t.TempDir()
	mount(t, "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir)
	t.Cleanup(func() {
		if exec.Command("umount", dir).Run() != nil {
			exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir
}

// mount runs mount(8) with args.
func mount(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		t.Fatalf("mount %v: %v: %s", args, err, out)
	}
}

// storageUser is a user whose PARLEY_HOME is home, and whose TMPDIR, where the recovery file
// goes when the disk beside the database is full, is a directory of the test's own.
type storageUser struct {
	*user
	tmp string
}

func newStorageUser(t *testing.T, home string) storageUser {
	tmp := t.TempDir()
	env := []string{"PARLEY_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp}
	return storageUser{&user{t: t, bin: binary(t), home: home, env: env}, tmp}
}

// must runs parley and fails the test unless it exits 0.
func (u storageUser) must(args ...string) string {
	u.t.Helper()
	r := u.run(args...)
	if r.code != 0 {
		u.t.Fatalf("parley %v: exit %d: %s", args, r.code, r.stderr)
	}
	return r.stdout
}

// writeBlocks are the two ways a history cannot be written while it is read: another process
// holding the write lock, and a read-only mount.
var writeBlocks = []struct {
	name  string
	block func(t *testing.T, home string)
}{
	{"another process writes", func(t *testing.T, home string) { holdWriteLock(t, home) }},
	{"a read-only mount", func(t *testing.T, home string) { mount(t, "-o", "remount,ro", home) }},
}

// printedAs is what print mode writes to stdout for reply: the reply, its last line ended.
func printedAs(reply string) string {
	if reply == "" || strings.HasSuffix(reply, "\n") {
		return reply
	}
	return reply + "\n"
}

// stored returns the newest session's id and messages as `parley export --json` prints them.
func (u storageUser) stored() (string, []exported) {
	u.t.Helper()
	list := decode[[]struct{ ID string }](u.t, u.must("sessions", "--json"))
	if len(list) == 0 {
		u.t.Fatal("no session stored")
	}
	out := decode[struct{ Messages []exported }](u.t, u.must("export", list[0].ID, "--json"))
	return list[0].ID, out.Messages
}

// recoveryFiles lists the recovery files left beside the database and in TMPDIR.
func (u storageUser) recoveryFiles() []string {
	beside, _ := filepath.Glob(filepath.Join(u.home, "history.db.recovery*"))
	fallback, _ := filepath.Glob(filepath.Join(u.tmp, "parley-*", "recovery-*"))
	return append(beside, fallback...)
}

// reply returns the last message of msgs, which must be a reply.
func reply(t *testing.T, msgs []exported) exported {
	t.Helper()
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "assistant" {
		t.Fatalf("no reply stored last: %+v", msgs)
	}
	return msgs[len(msgs)-1]
}

// checkFoldedBack checks that the reply stored last is what was printed, byte for byte, ended as status,
// and that no recovery file is left: reading the database folded it back.
func (u storageUser) checkFoldedBack(printed, status string) {
	u.t.Helper()
	_, msgs := u.stored()
	got := reply(u.t, msgs)
	if printedAs(got.Content) != printed || got.Status != status {
		u.t.Errorf("stored %s, %d bytes; want %s, the %d bytes printed", got.Status, len(got.Content), status, len(printed))
	}
	if left := u.recoveryFiles(); len(left) > 0 {
		u.t.Errorf("recovery files left after folding back: %v", left)
	}
}

// A 1.4 MB reply onto a 1 MiB disk: print mode prints it all, says it was not saved and why,
// exits 4, and does not call it stored; once the disk has room, the next command puts every
// byte printed into the database. (--json's "stored": false is checked on a disk full before
// the first run, below: the same field, at a tenth of the cost.)
func TestStorageFullDiskMidStream(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{Tokens: bigReply})
	home := tmpfs(t, "1m")
	u := newStorageUser(t, home)
	r := u.run("-p", "write it all down", "--base-url", srv.URL(), "--model", "m")
	t.Logf("exit %d, %d bytes printed; stderr: %s", r.code, len(r.stdout), r.stderr)
	if r.code != chat.ExitNotStored {
		t.Errorf("exit %d, want %d (not stored)", r.code, chat.ExitNotStored)
	}
	if sent := demo.Generated(bigReply, false); r.stdout != printedAs(sent) {
		t.Fatalf("printed %d bytes, want the %d sent", len(r.stdout), len(sent))
	}
	if !strings.Contains(r.stderr, "not saved: the disk is full") || !strings.Contains(r.stderr, "the text is kept in ") {
		t.Errorf("stderr does not say the reply was not saved, why and where it is: %q", r.stderr)
	}
	// Still full: read as it is, the database does not call the reply succeeded.
	if _, msgs := u.stored(); reply(t, msgs).Status == "succeeded" {
		t.Error("the full database calls a reply succeeded that it does not hold")
	}
	mount(t, "-o", "remount,size=64m", home)
	u.checkFoldedBack(r.stdout, "succeeded")
}

// A disk full before parley's first run: the reply still prints, with the not-saved line,
// exit 4, and sessions, search and export answer, with nothing and with an earlier session.
func TestStorageFullDiskBeforeTheFirstRun(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	endpoint := []string{"--base-url", srv.URL(), "--model", "m"}
	fill := func(t *testing.T, home string) {
		// Bigger than the disk: dd stops when it is full, as a log that ran away does.
		out, err := exec.Command("dd", "if=/dev/zero", "of="+filepath.Join(home, "filler"), "bs=64k", "count=100").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "No space left") {
			t.Fatalf("filling the disk: %v: %s", err, out)
		}
	}
	notSaved := func(t *testing.T, r result) {
		t.Helper()
		t.Logf("exit %d, %d bytes printed; stderr: %s", r.code, len(r.stdout), r.stderr)
		if r.code != chat.ExitNotStored || !strings.Contains(r.stdout, "offline demo endpoint") {
			t.Errorf("exit %d, printed %q; want the reply and exit %d", r.code, r.stdout, chat.ExitNotStored)
		}
		if !strings.Contains(r.stderr, "not saved: the disk is full") {
			t.Errorf("stderr does not say the reply was not saved: %q", r.stderr)
		}
	}
	t.Run("no database yet", func(t *testing.T) {
		t.Parallel()
		home := tmpfs(t, "3m")
		u := newStorageUser(t, home)
		fill(t, home)
		r := u.run(append([]string{"-p", "hello on a full disk", "--json"}, endpoint...)...)
		out := decode[struct {
			printJSON
			Stored    bool   `json:"stored"`
			NotStored string `json:"not_stored"`
		}](t, r.stdout)
		if out.Stored || !strings.Contains(out.NotStored, "the disk is full") {
			t.Errorf("--json says stored %v, not_stored %q; want false, the disk is full", out.Stored, out.NotStored)
		}
		r.stdout = out.Text
		notSaved(t, r)
		if got := u.must("sessions", "--json"); strings.TrimSpace(got) != "[]" {
			t.Errorf("sessions: %q, want none yet", got)
		}
		if r := u.run("search", "hello"); r.code != chat.ExitFailed || !strings.Contains(r.stderr, "no matches") {
			t.Errorf("search with nothing stored: exit %d, %q; want exit 1, no matches", r.code, r.stderr)
		}
		if r := u.run("export", "0123abcd"); r.code != chat.ExitUsage || !strings.Contains(r.stderr, "no session") {
			t.Errorf("export of an unknown session: exit %d, %q; want it named as unknown", r.code, r.stderr)
		}
		os.Remove(filepath.Join(home, "filler"))
		_, msgs := u.stored()
		if len(msgs) != 2 || msgs[0].Content != "hello on a full disk" || msgs[1].Content != out.Text {
			t.Errorf("after freeing space the database holds %+v; want the message and its reply", msgs)
		}
	})
	t.Run("an earlier session", func(t *testing.T) {
		t.Parallel()
		home := tmpfs(t, "3m")
		u := newStorageUser(t, home)
		u.must(append([]string{"-p", "an earlier question"}, endpoint...)...)
		fill(t, home)
		r := u.run(append([]string{"-p", "a later question", "-c"}, endpoint...)...)
		notSaved(t, r)
		if s := u.must("sessions"); !strings.Contains(s, "an earlier question") {
			t.Errorf("sessions: %q", s)
		}
		if s := u.must("search", "earlier"); !strings.Contains(s, "an earlier question") {
			t.Errorf("search: %q", s)
		}
		if _, msgs := u.stored(); len(msgs) != 2 || msgs[0].Content != "an earlier question" {
			t.Errorf("export: %+v", msgs)
		}
		os.Remove(filepath.Join(home, "filler"))
		_, msgs := u.stored()
		if len(msgs) != 4 || msgs[2].Content != "a later question" || printedAs(msgs[3].Content) != r.stdout {
			t.Errorf("after freeing space the database holds %d messages; want the later message and its reply too", len(msgs))
		}
	})
}

// A fresh home on a disk with only a few pages free: parley calls it full, not read-only, and
// once space is freed the next command stores what could be kept.
func TestStorageFreshHomeOnANearlyFullDisk(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	for _, free := range []int64{8 << 10, 100 << 10} {
		t.Run(strconv.FormatInt(free>>10, 10)+" KB free", func(t *testing.T) {
			t.Parallel()
			disk := tmpfs(t, "1m")
			var st syscall.Statfs_t
			if err := syscall.Statfs(disk, &st); err != nil {
				t.Fatal(err)
			}
			filler := filepath.Join(disk, "filler")
			if err := os.WriteFile(filler, make([]byte, int64(st.Bavail)*st.Bsize-free), 0o600); err != nil {
				t.Fatal(err)
			}
			home := filepath.Join(disk, "parley")
			u := newStorageUser(t, home)
			u.env = append(u.env, "TMPDIR="+disk) // the fallback is on the full disk too
			r := u.run("-p", "hello on a nearly full disk", "--base-url", srv.URL(), "--model", "m")
			t.Logf("exit %d; stderr: %s", r.code, r.stderr)
			if !strings.Contains(r.stderr, "the disk is full") || strings.Contains(r.stderr, "read-only") || r.code == chat.ExitOK {
				t.Errorf("exit %d, stderr %q; want the disk called full, not read-only", r.code, r.stderr)
			}
			os.Remove(filler)
			if r.code == chat.ExitNotStored {
				u.checkFoldedBack(r.stdout, "succeeded")
			} else if _, err := os.Stat(filepath.Join(home, "history.db")); err == nil {
				u.must("sessions") // nothing was kept: what is there opens
			}
		})
	}
}
