package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/chat/chattest"
	"parley/internal/demo"
)

// The chat screen, under tmux, when storage fails: a reply the disk cannot take, messages
// sent under another parley's lock, reading a session that cannot be written, a kill.

// waitScreenWithin waits until the pane shows text, for up to d.
func (p *pane) waitScreenWithin(text string, d time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := p.screen()
		if strings.Contains(s, text) || time.Now().After(deadline) {
			if !strings.Contains(s, text) {
				p.t.Fatalf("timed out waiting for %q; screen:\n%s", text, s)
			}
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// quit quits the chat screen with ctrl+c, and waits until it has gone. Soon after a reply
// ends ctrl+c asks first (it was likely meant to stop that reply): then it presses it again.
// The notice of a ctrl+c that cleared a draft also ends "again quits", but it is no question:
// while it shows, the press has not been read yet, and a second press would reach the shell
// after parley and close the pane.
func (p *pane) quit() {
	p.t.Helper()
	p.key("C-c")
	asked := false
	deadline := time.Now().Add(15 * time.Second)
	for s := p.screen(); strings.Contains(s, headerStart); s = p.screen() {
		if strings.Contains(s, "again quits") && !strings.Contains(s, "draft cleared") && !asked {
			p.key("C-c") // once: a third would reach the shell after parley
			asked = true
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for parley to quit; screen:\n%s", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// storagePane is a pane whose PARLEY_HOME is home, and the user at its shell.
func storagePane(t *testing.T, home string, opts demo.Options) (*pane, storageUser) {
	t.Helper()
	p := newPane(t, "m", opts)
	p.home = home
	return p, newStorageUser(t, home)
}

// A 1.4 MB reply onto a 1 MiB disk: the screen shows it to its end with the not-saved line
// under it; reopened once the disk has room, the session holds every byte.
func TestStorageTmuxFullDiskMidStream(t *testing.T) {
	t.Parallel()
	home := tmpfs(t, "1m")
	p, u := storagePane(t, home, demo.Options{Tokens: bigReply})
	full := demo.Generated(bigReply, false)
	lines := strings.Split(strings.TrimRight(full, "\n"), "\n")
	end := strings.NewReplacer("**", "", "- ", "").Replace(lines[len(lines)-1]) // as the list item shows
	env := []string{"TMPDIR=" + u.tmp}
	p.start(100, 30, env)
	p.send("write it all down")
	// Past the disk's end each piece goes to the recovery file, synced: on a machine as loaded
	// as a full race run makes it, the 1.4 MB take tens of seconds.
	s := p.waitScreenWithin("not saved: the disk is full", 3*time.Minute)
	if !strings.Contains(s, end) || !strings.Contains(s, "idle") {
		t.Errorf("the reply's end %q, or idle, is not shown:\n%s", end, s)
	}
	p.quit() // soon after the reply's end: ctrl+c asks first
	p.tmux("kill-session", "-t", "parley")

	mount(t, "-o", "remount,size=64m", home)
	p.start(100, 30, env, "-c") // opening folds the recovery file back
	p.waitScreen(end)
	if s := p.screen(); strings.Contains(s, "not saved") {
		t.Errorf("reopened with room, the reply still shows not saved:\n%s", s)
	}
	p.key("C-c")
	u.checkFoldedBack(printedAs(full), "succeeded") // what was shown, as checkFoldedBack compares it
	t.Logf("%d bytes shown and stored", len(full))
}

// Three quick enters under another process's write lock, held until parley has given up
// storing them, and typing meanwhile: every text comes back into the input, in order, and is
// sent once the lock is gone.
func TestStorageTmuxEntersUnderALock(t *testing.T) {
	t.Parallel()
	p, u := storagePane(t, t.TempDir(), demo.Options{})
	p.start(100, 30, []string{"TMPDIR=" + u.tmp})
	lock := holdWriteLock(t, p.home)
	texts := []string{"first message", "second message", "third message"}
	for _, text := range texts {
		p.send(text)
		time.Sleep(typingGap)
	}
	p.typeText("typed meanwhile")
	texts = append(texts, "typed meanwhile")
	// Back in the input, all of them, once storing the first gives up (the outbox is not shown):
	// parley has waited out the lock, and only then is it released.
	deadline := time.Now().Add(3 * busyTimeout)
	for s := p.screen(); !containsAll(s, texts); s = p.screen() {
		if time.Now().After(deadline) {
			t.Fatalf("not every text is back in the input:\n%s", s)
		}
		time.Sleep(50 * time.Millisecond)
	}
	lock.release()
	p.press("Enter", "offline demo endpoint")
	p.waitScreen("idle")
	_, msgs := u.stored()
	if want := strings.Join(texts, "\n\n"); len(msgs) != 2 || msgs[0].Content != want {
		t.Errorf("stored %+v; want one message of %q", msgs, want)
	}
}

func containsAll(s string, texts []string) bool {
	for _, text := range texts {
		if !strings.Contains(s, text) {
			return false
		}
	}
	return true
}

// With another process in a write transaction, and on a read-only mount, -c opens the
// latest session to read.
func TestStorageTmuxReadsWithoutWriting(t *testing.T) {
	t.Parallel()
	for _, c := range writeBlocks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := tmpfs(t, "16m")
			p, u := storagePane(t, home, demo.Options{})
			u.must("-p", "where do quokkas live", "--base-url", p.srv.URL(), "--model", "m")
			c.block(t, home)
			p.start(100, 30, []string{"TMPDIR=" + u.tmp}, "-c")
			p.waitScreen("where do quokkas live\n") // in the transcript, not only the title
			p.waitScreen("this canned reply shows")
			p.key("C-c")
		})
	}
}

// SIGTERM to the chat screen while a reply streams: parley stores the reply as cancelled and
// exits 143, as a shell sees it.
func TestStorageTmuxSIGTERM(t *testing.T) {
	t.Parallel()
	p, u := storagePane(t, t.TempDir(), pacedReply)
	// exec: the pane's process is parley itself, and its exit status the pane's.
	p.newSession("-d", "-s", "parley", "-x", "100", "-y", "30", fmt.Sprintf("exec env PARLEY_HOME=%s TMPDIR=%s %s --base-url %s --model m",
		p.home, u.tmp, p.bin, p.srv.URL()))
	p.tmux("set-option", "-w", "-t", "parley", "remain-on-exit", "on")
	p.waitScreen("idle")
	p.send("a long story")
	chattest.WaitFor(t, "some of the reply stored", func() bool {
		if len(decode[[]struct{ ID string }](t, u.must("sessions", "--json"))) == 0 {
			return false // the message is not stored yet
		}
		_, msgs := u.stored()
		return len(msgs) == 2 && len(msgs[1].Content) > 1000
	})
	pid, err := strconv.Atoi(strings.TrimSpace(p.tmux("display-message", "-p", "-t", "parley", "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	// tmux 3.3 often misses the SIGCHLD of a pane whose terminal closed before its process
	// ended: the pane shows dead, with no status, until another SIGCHLD makes tmux reap it.
	server, err := strconv.Atoi(strings.TrimSpace(p.tmux("display-message", "-p", "#{pid}")))
	if err != nil {
		t.Fatal(err)
	}
	var status string
	chattest.WaitFor(t, "parley's exit status", func() bool {
		status = strings.TrimSpace(p.tmux("display-message", "-p", "-t", "parley", "#{pane_dead_status}"))
		if status == "" {
			syscall.Kill(server, syscall.SIGCHLD)
		}
		return status != ""
	})
	_, msgs := u.stored()
	got := reply(t, msgs)
	t.Logf("exit %s; stored %s, %d bytes", status, got.Status, len(got.Content))
	if status != "143" {
		t.Errorf("exit %s, want 143", status)
	}
	if got.Status != "cancelled" || got.Content == "" {
		t.Errorf("stored %s with %d bytes; want cancelled, with the text so far", got.Status, len(got.Content))
	}
}

// The chat screen opened on a full disk refuses to send, the text back in the input; once the
// filler is deleted, the next enter sends it and it is stored.
func TestStorageTmuxFullAtOpenSendsOnceSpaceIsFreed(t *testing.T) {
	t.Parallel()
	home := tmpfs(t, "1m")
	p, u := storagePane(t, home, demo.Options{})
	u.must("-p", "before the disk filled", "--base-url", p.srv.URL(), "--model", "m")
	filler := filepath.Join(home, "filler")
	exec.Command("dd", "if=/dev/zero", "of="+filler, "bs=4k").Run() // fails when the disk is full, as meant
	p.start(100, 30, []string{"TMPDIR=" + u.tmp})
	p.send("sent once there is room")
	p.waitScreen("the disk is full")
	p.waitScreen("┃ sent once there is room") // back in the input
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	p.press("Enter", "offline demo endpoint")
	p.waitScreen("idle")
	p.key("C-c")
	_, msgs := u.stored()
	if len(msgs) != 2 || msgs[0].Content != "sent once there is room" {
		t.Errorf("stored %+v; want the message sent once there was room, and its reply", msgs)
	}
}
