package history

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
)

// liveIDs returns the ids of a session's live messages, in order.
func liveIDs(t *testing.T, db *DB, sessionID string) []int64 {
	return messageIDs(t)(db.Transcript(sessionID))
}

// carriedIDs returns the ids of the messages reply id carried.
func carriedIDs(t *testing.T, db *DB, id int64) []int64 {
	return messageIDs(t)(db.Carried(id))
}

// messageIDs returns what lists the ids of messages as read, failing t if reading failed.
func messageIDs(t *testing.T) func([]stored.Message, error) []int64 {
	return func(msgs []stored.Message, err error) []int64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ids(msgs)
	}
}

// fail starts run r and fails it as a network error after text (empty: before any).
func fail(t *testing.T, db *DB, r stored.Receipt, text string) {
	t.Helper()
	c := chat.Classification{Retryable: true, Class: chat.Network, Label: "Network error"}
	runTo(t, db, r, text, stored.Finish{Status: chat.StatusFailed, Retry: &c, Attempts: 1})
}

func TestRetryReplacesTheReplyOnlyWithOutput(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	q := post(t, db, "", "write an essay")
	sid := q.SessionID
	fail(t, db, q, "The first half of an essay")

	// A retry that fails before any output: the partial reply stays the live one, and the
	// attempt is hidden, never sent again and carries nothing.
	r1, err := db.Retry(q.AnchorID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Superseded) != 0 {
		t.Fatalf("Retry superseded %v at once", r1.Superseded)
	}
	if got := liveIDs(t, db, sid); !slices.Equal(got, []int64{q.AnchorID, q.ReplyID}) {
		t.Fatalf("live during the retry %v, want the partial reply %d", got, q.ReplyID)
	}
	fail(t, db, r1, "")
	if got := liveIDs(t, db, sid); !slices.Equal(got, []int64{q.AnchorID, q.ReplyID}) {
		t.Fatalf("live after an empty retry %v", got)
	}
	ctx, err := db.Context(q.AnchorID)
	if err != nil || len(ctx) != 1 {
		t.Fatalf("context %v, %v: want the anchor alone", ctx, err)
	}

	// A message posted while the next retry runs is not the retry's to replace.
	r2, err := db.Retry(q.AnchorID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.StartRun(r2.RunID); err != nil {
		t.Fatal(err)
	}
	later := post(t, db, sid, "and a title?")
	if err := db.AppendReply(r2.RunID, "A whole essay", ""); err != nil {
		t.Fatal(err)
	}
	want := []int64{q.AnchorID, r2.ReplyID, later.AnchorID, later.ReplyID}
	if got := liveIDs(t, db, sid); !slices.Equal(got, want) {
		t.Fatalf("live after the retry's first text %v, want %v", got, want)
	}
	if err := db.FinishRun(r2.RunID, stored.Finish{Status: chat.StatusSucceeded, Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	all, err := db.AllMessages(sid)
	if err != nil {
		t.Fatal(err)
	}
	superseded := map[int64]bool{}
	for _, m := range all {
		superseded[m.ID] = m.Superseded
	}
	if !superseded[q.ReplyID] || !superseded[r1.ReplyID] || superseded[r2.ReplyID] {
		t.Fatalf("superseded %v: want the partial reply and the empty attempt", superseded)
	}
	if got := carriedIDs(t, db, r1.ReplyID); len(got) != 0 {
		t.Fatalf("the empty attempt carried %v", got)
	}
}

func TestRestoreBringsBackAVersionAndItsTurns(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	sid := s.ID
	turns := exchanges(t, db, sid, 2)
	q1, q2 := turns[0], turns[1]

	g := regenerate(t, db, q1.AnchorID)
	answer(t, db, g, "answer 1, again")
	if got, want := carriedIDs(t, db, q1.ReplyID), []int64{q2.AnchorID, q2.ReplyID}; !slices.Equal(got, want) {
		t.Fatalf("the first version carried %v, want %v", got, want)
	}
	if got := carriedIDs(t, db, g.ReplyID); len(got) != 0 {
		t.Fatalf("the live reply carries %v", got)
	}

	if err := db.Restore(q1.ReplyID); err != nil {
		t.Fatal(err)
	}
	if got, want := liveIDs(t, db, sid), []int64{q1.AnchorID, q1.ReplyID, q2.AnchorID, q2.ReplyID}; !slices.Equal(got, want) {
		t.Fatalf("live after restoring %v, want %v", got, want)
	}
	// A turn posted after the restore goes with this version when the other is restored.
	q3 := exchange(t, db, sid, "question 3", "answer 3")
	if err := db.Restore(g.ReplyID); err != nil {
		t.Fatal(err)
	}
	if got, want := liveIDs(t, db, sid), []int64{q1.AnchorID, g.ReplyID}; !slices.Equal(got, want) {
		t.Fatalf("live after restoring the second version %v, want %v", got, want)
	}
	if got, want := carriedIDs(t, db, q1.ReplyID), []int64{q2.AnchorID, q2.ReplyID, q3.AnchorID, q3.ReplyID}; !slices.Equal(got, want) {
		t.Fatalf("the first version carried %v, want %v", got, want)
	}
	ctx, err := db.Context(q1.AnchorID)
	if err != nil || len(ctx) != 1 || ctx[0].Content != "question 1" {
		t.Fatalf("context %+v, %v", ctx, err)
	}

	// Versions superseded by different events keep what each carried.
	g2 := regenerate(t, db, q1.AnchorID)
	answer(t, db, g2, "answer 1, a third time")
	if err := db.Restore(q1.ReplyID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{g.ReplyID, g2.ReplyID} {
		if got := carriedIDs(t, db, id); len(got) != 0 {
			t.Fatalf("reply %d carried %v, want nothing", id, got)
		}
	}
	versions, err := db.Versions(q1.AnchorID)
	if err != nil || len(versions) != 3 {
		t.Fatalf("versions %+v, %v", versions, err)
	}
}

func TestRestoreRefusals(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	q := post(t, db, "", "question")
	answer(t, db, q, "answer")
	if err := db.Restore(q.ReplyID); !errors.Is(err, ErrNotFound) {
		t.Errorf("restoring the live reply: %v, want ErrNotFound", err)
	}
	g := regenerate(t, db, q.AnchorID)
	answer(t, db, g, "answer again")
	r, err := db.Retry(q.AnchorID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Restore(q.ReplyID); !errors.Is(err, ErrStreaming) {
		t.Errorf("restoring while a run is queued: %v, want ErrStreaming", err)
	}
	fail(t, db, r, "")
	if err := db.Restore(r.ReplyID); err == nil {
		t.Error("an attempt that produced nothing was restored")
	}
}

func TestDrafts(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	q := post(t, db, "", "question")
	answer(t, db, q, "answer")
	for _, c := range []struct{ session, text, want string }{
		{q.SessionID, "half a thought", "half a thought"},
		{q.SessionID, "half a thought, finished", "half a thought, finished"},
		{"", "for a new session", "for a new session"},
		{q.SessionID, " \n", ""},
	} {
		if err := db.SetDraft(c.session, c.text); err != nil {
			t.Fatal(err)
		}
		if got, err := openAgain(t, db).Draft(c.session); err != nil || got != c.want {
			t.Fatalf("draft of %q after %q: %q, %v", c.session, c.text, got, err)
		}
	}
	if got, _ := db.Draft(""); got != "for a new session" {
		t.Fatalf("the new session's draft is %q", got)
	}
	if err := db.SetDraft(q.SessionID, "gone with the session"); err != nil {
		t.Fatal(err)
	}
	g := regenerate(t, db, q.AnchorID)
	answer(t, db, g, "again")
	if err := db.Restore(q.ReplyID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteSession(q.SessionID); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Draft(q.SessionID); got != "" {
		t.Fatalf("a deleted session's draft is %q", got)
	}
}

// Files attached to a draft are kept with it: through a quit, apart from its text, and gone
// only when both are.
func TestDraftFilesAreKept(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	files := []stored.DraftFile{{Path: "notes.md", Text: "# notes\n"}, {Path: "main.go", Text: "package main\n"}}
	if err := db.SetDraftFiles("", files); err != nil {
		t.Fatal(err)
	}
	if err := db.SetDraft("", "see the files"); err != nil {
		t.Fatal(err)
	}
	again := openAgain(t, db)
	got, err := again.DraftFiles("")
	if err != nil || !reflect.DeepEqual(got, files) {
		t.Fatalf("files %+v, %v", got, err)
	}
	if text, _ := again.Draft(""); text != "see the files" {
		t.Fatalf("text %q", text)
	}
	db.SetDraft("", "")
	if got, _ := db.DraftFiles(""); len(got) != 2 {
		t.Fatal("clearing the text dropped the files")
	}
	db.SetDraftFiles("", nil)
	var n int
	db.pool().QueryRow(`SELECT count(*) FROM drafts`).Scan(&n)
	if n != 0 {
		t.Errorf("%d drafts left with neither text nor files", n)
	}
}
