package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// shortBusy makes statements wait only d for a lock another handle holds, for the test. A
// test that calls it is not parallel: the timeout is the package's.
func shortBusy(t *testing.T, d time.Duration) {
	prev := busyTimeout
	busyTimeout = d
	t.Cleanup(func() { busyTimeout = prev })
}

// postUnderALock posts a question in a new database, then takes its write lock as another
// parley would, with statements waiting busy for the lock: the run is queued, and release frees
// the lock.
func postUnderALock(t *testing.T, busy time.Duration) (db *DB, r stored.Receipt, release func()) {
	t.Helper()
	shortBusy(t, busy)
	db = openTemp(t)
	r = post(t, db, newSession(t, db).ID, "q")
	return db, r, holdWriteLock(t, db.Path())
}

// fillAfter lets db's file grow by only a few more pages: the disk is full from then on. The
// handle keeps one connection in its pool beside the one it pins (held.go), so the limit, set
// on both, holds for every statement.
func fillAfter(t *testing.T, db *DB, pages int) {
	t.Helper()
	db.pool().SetMaxOpenConns(1)
	var n int
	if err := db.pool().QueryRow("PRAGMA page_count").Scan(&n); err != nil {
		t.Fatal(err)
	}
	limit := fmt.Sprintf("PRAGMA max_page_count = %d", n+pages)
	if _, err := db.pool().Exec(limit); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pin.ExecContext(context.Background(), limit); err != nil {
		t.Fatal(err)
	}
}

// stream records a run of text, sent in pieces of size, through db's recorder, and returns the
// terminal event.
func stream(t *testing.T, db *DB, runID int64, text string, size int) chat.Event {
	t.Helper()
	in := make(chan chat.Event, 16)
	out := db.Record(runID, in, chattest.NewInstant(chattest.Start))
	go func() {
		in <- chat.Event{Kind: chat.EventStarted, Attempt: 1}
		for i := 0; i < len(text); i += size {
			in <- chat.Event{Kind: chat.EventDelta, Text: text[i:min(i+size, len(text))]}
		}
		in <- chat.Event{Kind: chat.EventFinished, FinishReason: "stop"}
		close(in)
	}()
	var last chat.Event
	for ev := range out {
		last = ev
	}
	return last
}

// When the disk fills mid-stream the reply is not called stored: the end says so and where the
// text is, every byte is in the database or the recovery file, and the next open with room puts
// it all in the database, the run ended as it did.
func TestAFullDiskKeepsTheReplyInTheRecoveryFile(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	path := db.Path()
	r := post(t, db, newSession(t, db).ID, "write a long story")
	fillAfter(t, db, 40)
	text := strings.Repeat("Once upon a time there was a database that filled up. ", 20000) // ~1 MB
	end := stream(t, db, r.RunID, text, 4096)
	if end.Kind != chat.EventFinished || !strings.Contains(end.NotStored, "the disk is full") ||
		!strings.Contains(end.NotStored, path+".recovery") {
		t.Fatalf("ended %+v; want finished, with NotStored naming the full disk and the recovery file", end)
	}
	if run, _ := db.Run(r.RunID); run.Status == chat.StatusSucceeded {
		t.Fatal("the database calls a reply succeeded that it does not hold")
	}
	db.Close()

	again, err := Open(path) // space freed: the handle that limited it is gone
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got := replyText(t, again, r.RunID); got != text {
		t.Fatalf("after reopening the reply is %d bytes, want %d", len(got), len(text))
	}
	if run, _ := again.Run(r.RunID); run.Status != chat.StatusSucceeded || run.FinishReason != "stop" {
		t.Errorf("run %+v, want succeeded as it did", run)
	}
	if _, err := os.Stat(path + ".recovery"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the recovery file is left after folding it back: %v", err)
	}
}

// A write lock another parley holds briefly is waited out off the event path; one held past the
// run's end sends the rest to the recovery file, and the next open folds it in.
func TestALockHeldAcrossTheEndIsNotCalledStored(t *testing.T) {
	db, r, release := postUnderALock(t, 100*time.Millisecond)
	text := strings.Repeat("held ", 1000)
	end := stream(t, db, r.RunID, text, 100)
	if !strings.Contains(end.NotStored, "another parley is writing") || !strings.Contains(end.NotStored, ".recovery") {
		t.Fatalf("ended %+v; want NotStored naming the lock and the recovery file", end)
	}
	release()
	path := db.Path()
	db.Close()
	again := openPath(t, path)
	if got := replyText(t, again, r.RunID); got != text {
		t.Fatalf("after the lock freed and parley reopened: %d bytes, want %d", len(got), len(text))
	}
}

// Opening needs no write: with another parley in a write transaction, a database at this
// build's schema opens and reads.
func TestOpenReadsWhileAnotherWrites(t *testing.T) {
	shortBusy(t, 100*time.Millisecond)
	db := openTemp(t)
	s := newSession(t, db)
	post(t, db, s.ID, "hello")
	holdWriteLock(t, db.Path())
	reader, err := Open(db.Path())
	if err != nil {
		t.Fatalf("opening while another writes: %v", err)
	}
	defer reader.Close()
	if msgs, err := reader.AllMessages(s.ID); err != nil || len(msgs) != 2 {
		t.Fatalf("reading while another writes: %d messages, %v", len(msgs), err)
	}
	_, err = reader.Post(s.ID, "and now?", "m", false)
	var se *StorageError
	if !errors.As(err, &se) || se.Fault != FaultBusy || !strings.Contains(err.Error(), "another parley is writing "+db.Path()+"; try again") {
		t.Fatalf("posting under the lock: %v", err)
	}
}

// A database that cannot be written opens to read, and every write says why in plain words.
func TestReadOnlyDatabase(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	s := newSession(t, db)
	post(t, db, s.ID, "kept")
	path := db.Path()
	db.Close()
	ro, err := openReadOnly(path, chat.SystemClock{})
	if err != nil {
		t.Fatal(err)
	}
	ro.appendChunk, _ = ro.pool().Prepare(appendChunkSQL)
	defer ro.Close()
	if msgs, err := ro.AllMessages(s.ID); err != nil || len(msgs) != 2 || msgs[0].Content != "kept" {
		t.Fatalf("reading: %+v, %v", msgs, err)
	}
	_, err = ro.Post(s.ID, "more", "m", false)
	if FaultOf(err) != FaultReadOnly || !strings.Contains(err.Error(), path+" is read-only: reading works") {
		t.Fatalf("writing: %v", err)
	}
}

// A message the database cannot take is kept, with its run, in the recovery file, so that it
// can be sent; the next open with room stores both in a new session.
func TestPostToRecoveryIsFoldedBack(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	path := db.Path()
	r, err := db.PostToRecovery("", "what is a quokka?", "m", errors.New("database or disk is full"))
	if err != nil || r.RunID >= 0 {
		t.Fatalf("receipt %+v, %v", r, err)
	}
	end := stream(t, db, r.RunID, "A small wallaby.", 4)
	if !strings.HasPrefix(end.NotStored, "not saved: ") {
		t.Fatalf("ended %+v", end)
	}
	db.Close()
	again := openPath(t, path)
	session := onlySession(t, again)
	msgs, err := again.AllMessages(session.ID)
	if err != nil || len(msgs) != 2 || msgs[0].Content != "what is a quokka?" || msgs[1].Content != "A small wallaby." ||
		msgs[1].Status != chat.StatusSucceeded {
		t.Fatalf("folded back: %+v, %v", msgs, err)
	}
}

// noRoomEnv, when set, makes the test binary open the database it names where no file can
// grow, as on a full disk: see openWithNoRoom.
const noRoomEnv = "PARLEY_HISTORY_TEST_NO_ROOM_DB"

// openWithNoRoom opens the database at path in a process whose files cannot grow past 1 KiB
// (the -shm file needs 32 KiB, as on a full disk), and prints its sessions and whether it is
// read-only.
func openWithNoRoom(path string) error {
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 1024, Max: 1024}); err != nil {
		return err
	}
	db, err := Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := db.Sessions()
	if err != nil {
		return err
	}
	fmt.Println(len(list), db.ReadOnly())
	return nil
}

// A database in WAL mode on a disk with no room for its -shm file (SQLite says only "disk I/O
// error" then) opens read-only, and what it holds reads.
func TestOpenWithNoRoomForTheSharedMemoryReads(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	post(t, db, newSession(t, db).ID, "kept")
	path := db.Path()
	db.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), noRoomEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "1 true" {
		t.Fatalf("opened with no room: %v: %s; want one session, read-only", err, out)
	}
}

// A reply that succeeds forgets its endpoint's remembered wait; with none remembered that
// takes no write, so it never waits out another parley's lock at the end of every reply.
func TestForgettingNoWaitNeedsNoWrite(t *testing.T) {
	shortBusy(t, 100*time.Millisecond)
	db := openTemp(t)
	holdWriteLock(t, db.Path())
	if err := db.ForgetWait(chat.EndpointKey{BaseURL: "http://127.0.0.1:8080/v1", Model: "m"}); err != nil {
		t.Fatalf("forgetting no wait under another's lock: %v", err)
	}
}

// The end of a run never holds back the events before it: while the writer waits out another
// parley's lock, what already streamed is forwarded at once, and the end is stored once the
// lock is gone.
func TestTheEndWaitsOffTheEventPath(t *testing.T) {
	db, r, release := postUnderALock(t, 3*time.Second)
	in := make(chan chat.Event, 16)
	out := db.Record(r.RunID, in, chattest.NewInstant(chattest.Start))
	in <- chat.Event{Kind: chat.EventStarted, Attempt: 1}
	in <- chat.Event{Kind: chat.EventDelta, Text: "the first words"}
	// The writer is starting the run, waiting out the lock. SQLite shows no sign of a
	// connection in its busy wait, so no event marks the writer there: a pause lets it get
	// there. A writer not there yet makes the test prove less, never fail.
	time.Sleep(50 * time.Millisecond)
	in <- chat.Event{Kind: chat.EventDelta, Text: ", the last"}
	in <- chat.Event{Kind: chat.EventFinished, FinishReason: "stop"}
	close(in)
	start := time.Now()
	for ev := range out {
		if ev.Text == ", the last" {
			break
		}
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("the text before the end came %s late: the end waited for the lock on the event path", took)
	}
	release()
	var end chat.Event
	for ev := range out {
		end = ev
	}
	if end.Kind != chat.EventFinished || end.NotStored != "" || replyText(t, db, r.RunID) != "the first words, the last" {
		t.Fatalf("ended %+v, stored %q; want finished and stored", end, replyText(t, db, r.RunID))
	}
}
