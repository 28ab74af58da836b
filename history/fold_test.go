package history

import (
	"slices"
	"testing"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// pendingText and pendingThought are a reply's streamed text and thinking whose run has ended
// and whose chunks are not folded yet.
const (
	pendingText    = "the answer names a zebra"
	pendingThought = "thinking of stripes"
)

// endUnfolded streams a reply to a new question in session sessionID and stores its run's end
// as cancelled without folding its chunks: the state between the end being reported and the
// fold, and the one a parley that stopped between the two leaves.
func endUnfolded(t *testing.T, db *DB, sessionID string) stored.Receipt {
	t.Helper()
	r := post(t, db, sessionID, "name an animal")
	streaming(t, db, r, "the answer ")
	if err := db.AppendReply(r.RunID, "names a zebra", pendingThought); err != nil {
		t.Fatal(err)
	}
	if err := db.endRun(r.RunID, stored.Finish{Status: chat.StatusCancelled, Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	if n := chunksOf(t, db, r.RunID); n == 0 {
		t.Fatal("the run's end folded its chunks: nothing is pending")
	}
	return r
}

// chunksOf counts run runID's chunks not folded into its reply.
func chunksOf(t *testing.T, db *DB, runID int64) int {
	t.Helper()
	var n int
	if err := db.pool().QueryRow(`SELECT count(*) FROM reply_chunks WHERE run_id = ?`, runID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// storedText is reply replyID's text as its row holds it, without chunks, and whether the
// full-text index finds word in it.
func storedText(t *testing.T, db *DB, replyID int64, word string) (string, bool) {
	t.Helper()
	var content string
	if err := db.pool().QueryRow(`SELECT content FROM messages WHERE id = ?`, replyID).Scan(&content); err != nil {
		t.Fatal(err)
	}
	var indexed bool
	if err := db.pool().QueryRow(`SELECT EXISTS (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? AND rowid = ?)`,
		word, replyID).Scan(&indexed); err != nil {
		t.Fatal(err)
	}
	return content, indexed
}

// lastOf returns the last message of msgs, failing the test when there is none.
func lastOf(t *testing.T, msgs []chat.Message) chat.Message {
	t.Helper()
	if len(msgs) == 0 {
		t.Fatal("no messages")
	}
	return msgs[len(msgs)-1]
}

// Every reader of a reply's text reads it whole while its fold is pending, in the parley that
// ended the run and in another one (a second handle, opened before the end, as a second
// process is): the transcript, export, a message, the contexts sent, continuing, forking,
// versions and restoring, and search.
func TestReadersWhileAFoldIsPending(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	other := openAgain(t, db)
	exchanges(t, db, s.ID, 1)
	r := endUnfolded(t, db, s.ID)

	for name, h := range map[string]*DB{"this parley": db, "another parley": other} {
		msgs, err := h.Transcript(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if m := msgs[len(msgs)-1]; m.ID != r.ReplyID || m.Content != pendingText || m.Reasoning != pendingThought {
			t.Errorf("%s: transcript ends with %d %q (thinking %q), want %d %q (%q)", name, m.ID, m.Content, m.Reasoning,
				r.ReplyID, pendingText, pendingThought)
		}
		all, err := h.AllMessages(s.ID)
		if err != nil || all[len(all)-1].Content != pendingText {
			t.Errorf("%s: export's messages end with %+v, %v", name, all[len(all)-1], err)
		}
		if m, err := h.Message(r.ReplyID); err != nil || m.Content != pendingText {
			t.Errorf("%s: message %d is %q, %v", name, r.ReplyID, m.Content, err)
		}
		next, err := h.SessionContext(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if m := lastOf(t, next); m.Content != pendingText || m.Reasoning != pendingThought {
			t.Errorf("%s: the next send ends with %q (%q), want the pending reply", name, m.Content, m.Reasoning)
		}
		if ctx, _, err := h.NextContext(s.ID); err != nil || lastOf(t, ctx).Content != pendingText {
			t.Errorf("%s: the plan's context ends with %+v, %v", name, lastOf(t, ctx), err)
		}
	}
	later := post(t, other, s.ID, "and another")
	ctx, err := other.Context(later.AnchorID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx) < 2 || ctx[len(ctx)-2].Content != pendingText {
		t.Errorf("a later run's context %+v does not carry the pending reply", ctx)
	}
	if err := other.FinishRun(later.RunID, stored.Finish{Status: chat.StatusCancelled}); err != nil {
		t.Fatal(err)
	}

	// Another parley forks at the reply, continues it, and finds its versions and restores it.
	fork, err := other.Fork(s.ID, r.ReplyID)
	if err != nil {
		t.Fatal(err)
	}
	forked, err := other.Transcript(fork.ID)
	if err != nil || forked[len(forked)-1].Content != pendingText || forked[len(forked)-1].Reasoning != pendingThought {
		t.Errorf("the fork ends with %+v, %v; want the pending reply", forked[len(forked)-1], err)
	}
	// The question posted above is later than the reply; continuing it supersedes it.
	cont, err := other.Continue(r.ReplyID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	if cont.Prefix != pendingText {
		t.Errorf("continuing goes on from %q, want %q", cont.Prefix, pendingText)
	}
	sent, _, err := other.RunContext(cont.RunID)
	if err != nil || lastOf(t, sent).Content != pendingText {
		t.Errorf("the continuation sends %+v, %v", sent, err)
	}
	if err := other.FinishRun(cont.RunID, stored.Finish{Status: chat.StatusCancelled}); err != nil {
		t.Fatal(err)
	}
	marks, err := other.VersionMarks(s.ID)
	if err != nil || marks[r.ReplyID].Of != 2 {
		t.Errorf("version marks %+v, %v: the pending reply is not one of two versions", marks, err)
	}
	if err := other.Restore(r.ReplyID); err != nil {
		t.Errorf("restoring the pending reply: %v", err)
	}

	// Search reads the index, kept on folded text: it folds what has ended first. It finds the
	// reply and the fork's copy of it.
	hits, err := other.Search("zebra", 10)
	if err != nil || len(hits) != 2 || !slices.ContainsFunc(hits, func(h stored.Hit) bool { return h.MessageID == r.ReplyID }) {
		t.Errorf("search for zebra: %+v, %v; want reply %d and its fork's copy", hits, err, r.ReplyID)
	}
	if n, err := db.CountMatches("zebra"); err != nil || n != 2 {
		t.Errorf("%d matches, %v; want 2", n, err)
	}
	if content, indexed := storedText(t, db, r.ReplyID, "zebra"); content != pendingText || !indexed || chunksOf(t, db, r.RunID) != 0 {
		t.Errorf("after search the reply holds %q (indexed %v) with %d chunks left; want it folded", content, indexed,
			chunksOf(t, db, r.RunID))
	}
}

// A parley that stopped after storing a run's end and before folding its text leaves the
// chunks; the next open folds them into the reply and its index, once, and every reader reads
// the reply as it was.
func TestAnEndNotFoldedIsFoldedAtOpen(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	r := endUnfolded(t, db, s.ID)
	path := db.Path()
	db.Close() // as a crash between the end and the fold leaves the file: nothing else is written

	again := openPath(t, path)
	content, indexed := storedText(t, again, r.ReplyID, "zebra")
	if content != pendingText || !indexed || chunksOf(t, again, r.RunID) != 0 {
		t.Fatalf("after open the reply holds %q (indexed %v), %d chunks left; want it folded", content, indexed,
			chunksOf(t, again, r.RunID))
	}
	m, err := again.Message(r.ReplyID)
	if err != nil || m.Content != pendingText || m.Reasoning != pendingThought || m.Status != chat.StatusCancelled {
		t.Errorf("the reply reads %q (%q) %s, %v", m.Content, m.Reasoning, m.Status, err)
	}
	openAgain(t, again) // a second open finds nothing to fold
	if content, _ := storedText(t, again, r.ReplyID, "zebra"); content != pendingText {
		t.Errorf("a second open left %q", content)
	}
}

// recordedAnswer records a run that streams pendingText and finishes, on a new session of a new
// database, and returns the events Record forwards.
func recordedAnswer(t *testing.T) (*DB, stored.Receipt, <-chan chat.Event) {
	t.Helper()
	db, s := openSession(t)
	r := post(t, db, s.ID, "name an animal")
	in := make(chan chat.Event, 4)
	in <- chat.Event{Kind: chat.EventStarted, Attempt: 1}
	in <- chat.Event{Kind: chat.EventDelta, Text: pendingText}
	in <- chat.Event{Kind: chat.EventFinished, FinishReason: "stop"}
	close(in)
	return db, r, db.Record(r.RunID, in, chattest.New(time.Unix(0, 0)))
}

// Record reports a run's end once it is stored and folds the reply's text after it; a handle
// closed as soon as the end is shown waits for the fold.
func TestRecordFoldsAfterTheEnd(t *testing.T) {
	t.Parallel()
	db, r, out := recordedAnswer(t)
	var last chat.Event
	for ev := range out {
		last = ev
	}
	if last.Kind != chat.EventFinished || last.NotStored != "" {
		t.Fatalf("the run ended with %+v", last)
	}
	run, err := db.Run(r.RunID)
	if err != nil || run.Status != chat.StatusSucceeded {
		t.Fatalf("the run is stored %s, %v, once its end is shown", run.Status, err)
	}
	if m, err := db.Message(r.ReplyID); err != nil || m.Content != pendingText {
		t.Errorf("the reply reads %q, %v, once its end is shown", m.Content, err)
	}
	db.Close()
	raw := rawSQL(t, db.Path())
	var content string
	var chunks int
	if err := raw.QueryRow(`SELECT content, (SELECT count(*) FROM reply_chunks) FROM messages WHERE id = ?`, r.ReplyID).
		Scan(&content, &chunks); err != nil {
		t.Fatal(err)
	}
	if content != pendingText || chunks != 0 {
		t.Errorf("after Close the reply's row holds %q with %d chunks left; want it folded", content, chunks)
	}
}

// A run whose end is stored while no one reads its events (a program that quit without taking
// them) does not hold Close: Close folds the reply's text and returns.
func TestCloseDoesNotWaitForAReaderThatIsGone(t *testing.T) {
	t.Parallel()
	db, r, out := recordedAnswer(t)
	chattest.WaitFor(t, "the run's end to be stored", func() bool {
		run, err := db.Run(r.RunID)
		return err == nil && run.Status == chat.StatusSucceeded
	})
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for a reader that never came")
	}
	for range out { // what the reader would have found: the channel closed
	}
	var content string
	if err := rawSQL(t, db.Path()).QueryRow(`SELECT content FROM messages WHERE id = ?`, r.ReplyID).Scan(&content); err != nil || content != pendingText {
		t.Fatalf("after Close the reply's row holds %q, %v; want it folded", content, err)
	}
}
