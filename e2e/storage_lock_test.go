package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// busyTimeout is how long parley waits for another process's write lock before it gives up
// on one try.
const busyTimeout = 5 * time.Second

// writeLock is another process's write transaction on a parley database: BEGIN IMMEDIATE on
// a connection of its own, from this test process, held until release.
type writeLock struct {
	db   *sql.DB
	conn *sql.Conn
	at   time.Time // when it was taken
	once sync.Once
}

// holdWriteLock takes the write lock of the database in home, and releases it when the test
// ends if it has not been released by then.
func holdWriteLock(t *testing.T, home string) *writeLock {
	t.Helper()
	ctx := context.Background()
	// Waiting a while for the lock: parley may be in the middle of a write.
	db, err := sql.Open("sqlite", filepath.Join(home, "history.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	l := &writeLock{db: db}
	if l.conn, err = db.Conn(ctx); err == nil {
		_, err = l.conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	}
	if err != nil {
		db.Close()
		t.Fatalf("taking the write lock: %v", err)
	}
	l.at = time.Now()
	t.Cleanup(l.release)
	return l
}

func (l *writeLock) release() {
	l.once.Do(func() {
		l.conn.ExecContext(context.Background(), "ROLLBACK")
		l.conn.Close()
		l.db.Close()
	})
}

// arrivals is a stdout that notes when each piece of it arrived.
type arrivals struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	times []time.Time
}

func (a *arrivals) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.times = append(a.times, time.Now())
	return a.buf.Write(p)
}

func (a *arrivals) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.buf.String()
}

// since returns the longest time without output from t to the last output, and when that
// last output came.
func (a *arrivals) since(t time.Time) (gap time.Duration, last time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	last = t
	for _, at := range a.times {
		if at.After(last) {
			gap, last = max(gap, at.Sub(last)), at
		}
	}
	return gap, last
}

// Another process holds the write lock while a reply streams to its end. stdout keeps
// streaming all the while, and parley either stores the reply once the lock is freed, or,
// the lock held past its two tries at the end, says it was not stored (exit 4); the next
// command then stores it. Either way the database ends with every byte printed.
func TestStorageLockHeldAcrossTheEnd(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		// hold is how long the lock is held; 0 holds it until parley gives up.
		hold time.Duration
		code int
	}{
		// The stream ends 2 to 3 s into the lock, and parley tries twice for 5 s after that:
		// a lock freed at 6 s is waited out.
		{name: "freed before parley gives up", hold: 6 * time.Second, code: chat.ExitOK},
		{name: "held until parley gives up", code: chat.ExitNotStored},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// 600 chunks 5 ms apart: about three seconds of reply.
			srv := demotest.Start(t, demo.Options{Tokens: 600, Pace: 5 * time.Millisecond})
			u := newStorageUser(t, t.TempDir())
			cmd := u.command("-p", "tell me everything", "--base-url", srv.URL(), "--model", "m")
			stdout, stderr := new(arrivals), new(syncBuffer)
			cmd.Stdout, cmd.Stderr = stdout, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			waitFor(t, "the reply to stream", func() bool { return len(stdout.String()) > 1000 })
			lock := holdWriteLock(t, u.home)
			if c.hold > 0 {
				time.Sleep(c.hold) // the hold is the test
			} else {
				select {
				case <-exited:
				case <-time.After(40 * time.Second):
					t.Fatal("parley still waits after 40 s of another's lock")
				}
			}
			held := time.Since(lock.at)
			lock.release()
			select {
			case <-exited:
			case <-time.After(3 * busyTimeout):
				t.Fatal("parley did not end once the lock was freed")
			}
			gap, last := stdout.since(lock.at)
			code := cmd.ProcessState.ExitCode()
			t.Logf("lock held %s; the stream ended %s into it; longest gap in stdout %s; exit %d; %d bytes",
				held.Round(time.Millisecond), last.Sub(lock.at).Round(time.Millisecond), gap.Round(time.Millisecond), code, len(stdout.String()))
			if gap > 500*time.Millisecond {
				t.Errorf("stdout stalled %s while the lock was held", gap)
			}
			if last.Sub(lock.at) < time.Second || last.Sub(lock.at) > held {
				t.Errorf("the stream ended %s into a lock held %s: not across its end", last.Sub(lock.at), held)
			}
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, stderr.String())
			}
			if c.code == chat.ExitNotStored && !strings.Contains(stderr.String(), "not saved: another parley is writing") {
				t.Errorf("stderr does not say why the reply was not saved: %q", stderr.String())
			}
			u.checkFoldedBack(stdout.String(), "succeeded")
		})
	}
}

// Reading needs no write: while another process holds the write lock, and on a read-only
// mount, sessions, search and export answer at once (the chat screen's -c is in
// storage_tmux_test.go).
func TestStorageReadingNeedsNoWrite(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	for _, c := range []struct {
		name  string
		block func(t *testing.T, home string)
	}{
		{"another process writes", func(t *testing.T, home string) { holdWriteLock(t, home) }},
		{"a read-only mount", func(t *testing.T, home string) { mount(t, "-o", "remount,ro", home) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := tmpfs(t, "16m")
			u := newStorageUser(t, home)
			printed := u.must("-p", "where do quokkas live", "--base-url", srv.URL(), "--model", "m")
			c.block(t, home)
			start := time.Now()
			id, msgs := u.stored() // sessions and export
			if len(msgs) != 2 || msgs[0].Content != "where do quokkas live" || msgs[1].Content != printed {
				t.Errorf("export: %+v", msgs)
			}
			if s := u.must("search", "quokkas"); !strings.Contains(s, id) {
				t.Errorf("search: %q", s)
			}
			took := time.Since(start)
			t.Logf("sessions, export and search took %s", took.Round(time.Millisecond))
			if took > busyTimeout {
				t.Errorf("reading took %s: it waited for the lock", took)
			}
		})
	}
}
