package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"parley/internal/chat"
	"parley/internal/chat/chattest"
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
	if string(p) != "\n" || a.buf.Len() == 0 {
		// Not the line break print mode ends the reply with: that comes with the run's end,
		// once it is stored or given up, and is no part of the stream.
		a.times = append(a.times, time.Now())
	}
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
// command then stores it. Either way the database ends with every byte printed. Both run
// side by side, each on a database of its own: the holds are most of the test's time.
func TestStorageLockHeldAcrossTheEnd(t *testing.T) {
	t.Parallel()
	// The stream ends a few seconds into the lock, and parley tries twice for 5 s after that:
	// a lock freed within those tries is waited out.
	freed := &lockedStream{name: "freed before parley gives up", code: chat.ExitOK}
	gaveUp := &lockedStream{name: "held until parley gives up", code: chat.ExitNotStored}
	// 600 chunks 5 ms apart: about three seconds of reply.
	srv := demotest.Start(t, demo.Options{Tokens: 600, Pace: 5 * time.Millisecond})
	for _, s := range []*lockedStream{freed, gaveUp} {
		s.start(t, srv.URL())
	}
	for _, s := range []*lockedStream{freed, gaveUp} {
		chattest.WaitFor(t, s.name+": the reply to stream", func() bool { return len(s.stdout.String()) > 1000 })
		s.lock = holdWriteLock(t, s.u.home)
	}
	whole := len(demo.Generated(600, false))
	chattest.WaitFor(t, freed.name+": the whole reply", func() bool { return len(freed.stdout.String()) >= whole })
	// parley now waits for the lock to store the end. SQLite shows no sign of a connection in
	// its busy wait, so no event marks parley there: half a second puts the release inside
	// the first of its two 5 s tries.
	time.Sleep(500 * time.Millisecond)
	freed.release()
	select {
	case <-gaveUp.exited:
	case <-time.After(40 * time.Second):
		t.Fatal("parley still waits after 40 s of another's lock")
	}
	gaveUp.release()
	for _, s := range []*lockedStream{freed, gaveUp} {
		s.check(t)
	}
}

// lockedStream is a reply printed while another process holds the write lock.
type lockedStream struct {
	name   string
	code   int // the exit status it must end with
	u      storageUser
	cmd    *exec.Cmd
	stdout *arrivals
	stderr *chattest.Buffer
	exited chan struct{}
	lock   *writeLock
	held   time.Duration
}

func (s *lockedStream) start(t *testing.T, baseURL string) {
	s.u = newStorageUser(t, t.TempDir())
	s.cmd = s.u.command("-p", "tell me everything", "--base-url", baseURL, "--model", "m")
	s.stdout, s.stderr, s.exited = new(arrivals), new(chattest.Buffer), make(chan struct{})
	s.cmd.Stdout, s.cmd.Stderr = s.stdout, s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.exited) }()
}

func (s *lockedStream) release() {
	s.held = time.Since(s.lock.at)
	s.lock.release()
}

// check checks, once the lock is freed, that parley ended as it must, that stdout never
// stalled while the lock was held, and that the database holds every byte printed.
func (s *lockedStream) check(t *testing.T) {
	t.Helper()
	select {
	case <-s.exited:
	case <-time.After(3 * busyTimeout):
		t.Fatalf("%s: parley did not end once the lock was freed", s.name)
	}
	gap, last := s.stdout.since(s.lock.at)
	into, code := last.Sub(s.lock.at), s.cmd.ProcessState.ExitCode()
	t.Logf("%s: lock held %s; the stream ended %s into it; longest gap in stdout %s; exit %d; %d bytes", s.name,
		s.held.Round(time.Millisecond), into.Round(time.Millisecond), gap.Round(time.Millisecond), code, len(s.stdout.String()))
	// A write waiting for the lock would stall stdout for the 5 s busy timeout: 2 s is
	// more than twice what a loaded machine takes between two writes.
	if gap > 2*time.Second {
		t.Errorf("%s: stdout stalled %s while the lock was held", s.name, gap)
	}
	if into < time.Second || into > s.held {
		t.Errorf("%s: the stream ended %s into a lock held %s: not across its end", s.name, into, s.held)
	}
	if code != s.code {
		t.Errorf("%s: exit %d, want %d; stderr %q", s.name, code, s.code, s.stderr.String())
	}
	if s.code == chat.ExitNotStored && !strings.Contains(s.stderr.String(), "not saved: another parley is writing") {
		t.Errorf("%s: stderr does not say why the reply was not saved: %q", s.name, s.stderr.String())
	}
	s.u.checkFoldedBack(s.stdout.String(), "succeeded")
}

// Reading needs no write: while another process holds the write lock, and on a read-only
// mount, sessions, search and export answer at once (the chat screen's -c is in
// storage_tmux_test.go).
func TestStorageReadingNeedsNoWrite(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	for _, c := range writeBlocks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := tmpfs(t, "16m")
			u := newStorageUser(t, home)
			printed := u.must("-p", "where do quokkas live", "--base-url", srv.URL(), "--model", "m")
			c.block(t, home)
			start := time.Now()
			id, msgs := u.stored() // sessions and export
			if len(msgs) != 2 || msgs[0].Content != "where do quokkas live" || printedAs(msgs[1].Content) != printed {
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
