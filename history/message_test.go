package history

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
)

func TestPostCommitsBeforeReturning(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	r, err := db.Post(s.ID, "is this saved?", "model-a", true)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Queued || r.AnchorID == 0 || r.RunID == 0 || r.ReplyID == 0 || r.Superseded != nil {
		t.Errorf("receipt = %+v", r)
	}

	// A separate connection sees everything at once: it was committed before Post returned.
	raw := rawSQL(t, db.Path())
	var role, content, session string
	if err := raw.QueryRow(`SELECT role, content, session_id FROM messages WHERE id = ?`, r.AnchorID).
		Scan(&role, &content, &session); err != nil {
		t.Fatal(err)
	}
	if role != "user" || content != "is this saved?" || session != s.ID {
		t.Errorf("operator row = %q %q %q", role, content, session)
	}
	var status, model string
	var reply, anchor int64
	if err := raw.QueryRow(`SELECT status, model, reply_id, anchor_id FROM runs WHERE id = ?`, r.RunID).
		Scan(&status, &model, &reply, &anchor); err != nil {
		t.Fatal(err)
	}
	if status != "queued" || model != "model-a" || reply != r.ReplyID || anchor != r.AnchorID {
		t.Errorf("run row = %q %q reply %d anchor %d", status, model, reply, anchor)
	}

	got, err := openAgain(t, db).Transcript(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []stored.Message{
		{ID: r.AnchorID, SessionID: s.ID, Role: chat.RoleUser, Content: "is this saved?"},
		{ID: r.ReplyID, SessionID: s.ID, Role: chat.RoleAssistant, AnchorID: r.AnchorID, RunID: r.RunID,
			Status: chat.StatusQueued, Model: "model-a"},
	}
	for i := range got {
		if got[i].CreatedAt.IsZero() {
			t.Errorf("message %d has no time", got[i].ID)
		}
		got[i].CreatedAt = want[i].CreatedAt
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("second handle's transcript =\n%+v\nwant\n%+v", got, want)
	}
}

func TestPostRefusals(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	if _, err := db.Post("deadbeef", "hello", "m", false); !errors.Is(err, ErrNotFound) {
		t.Errorf("Post to a missing session: %v, want ErrNotFound", err)
	}
	s := newSession(t, db)
	if _, err := db.Post(s.ID, " \n\t", "m", false); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("Post of white space: %v, want ErrEmptyMessage", err)
	}
	if got, err := db.AllMessages(s.ID); err != nil || len(got) != 0 {
		t.Errorf("refused posts left %v, %v", got, err)
	}
}

func TestOperatorRowsAreImmutable(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	r := post(t, db, s.ID, "original words")
	raw := rawSQL(t, db.Path())
	for _, stmt := range []string{
		`UPDATE messages SET content = 'edited' WHERE id = ?`,
		`UPDATE messages SET role = 'assistant' WHERE id = ?`,
		`UPDATE messages SET created_at = 0 WHERE id = ?`,
		`DELETE FROM messages WHERE id = ?`,
	} {
		if _, err := raw.Exec(stmt, r.AnchorID); err == nil || !strings.Contains(err.Error(), "immutable") {
			t.Errorf("%s: err = %v, want the trigger to refuse", stmt, err)
		}
	}
	// Nor can a reply be turned into an operator message.
	if _, err := raw.Exec(`UPDATE messages SET role = 'user' WHERE id = ?`, r.ReplyID); err == nil {
		t.Error("a reply row was turned into an operator row")
	}
	// Reply rows are written as runs stream.
	if _, err := raw.Exec(`UPDATE messages SET content = 'streamed' WHERE id = ?`, r.ReplyID); err != nil {
		t.Errorf("updating a reply: %v", err)
	}
	msgs, err := db.AllMessages(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Content != "original words" || msgs[0].Role != chat.RoleUser || msgs[1].Content != "streamed" {
		t.Errorf("messages = %+v", msgs)
	}
}

// rowOf returns every column of a message row, as stored.
func rowOf(t *testing.T, raw *sql.DB, id int64) []any {
	t.Helper()
	rows, err := raw.Query(`SELECT * FROM messages WHERE id = ?`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !rows.Next() {
		t.Fatalf("no message %d", id)
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	return vals
}

func ids(msgs []stored.Message) []int64 {
	var out []int64
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

func TestRegenerate(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	other := newSession(t, db)
	r1 := exchange(t, db, s.ID, "one", "reply one")
	r2 := exchange(t, db, s.ID, "two", "reply two")
	r3 := exchange(t, db, s.ID, "three", "reply three")
	ro := post(t, db, other.ID, "elsewhere")
	raw := rawSQL(t, db.Path())

	// The newest reply.
	g3, err := db.Regenerate(r3.AnchorID, "model-b", false)
	if err != nil {
		t.Fatal(err)
	}
	if g3.AnchorID != r3.AnchorID || g3.RunID == r3.RunID || g3.Queued ||
		!reflect.DeepEqual(g3.Superseded, []int64{r3.ReplyID}) {
		t.Errorf("regenerating the newest reply: receipt %+v, want only %d superseded", g3, r3.ReplyID)
	}
	answer(t, db, g3, "reply three, again")

	// An earlier reply: everything after its anchor goes, operator messages included.
	ctxBefore, err := db.Context(r2.AnchorID)
	if err != nil {
		t.Fatal(err)
	}
	anchorBefore := rowOf(t, raw, r2.AnchorID)
	g2, err := db.Regenerate(r2.AnchorID, "model-c", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{r2.ReplyID, r3.AnchorID, g3.ReplyID}; !reflect.DeepEqual(g2.Superseded, want) {
		t.Errorf("superseded = %v, want %v", g2.Superseded, want)
	}
	if !g2.Queued || g2.AnchorID != r2.AnchorID {
		t.Errorf("receipt = %+v", g2)
	}
	if got := rowOf(t, raw, r2.AnchorID); !reflect.DeepEqual(got, anchorBefore) {
		t.Errorf("anchor row changed: %v, was %v", got, anchorBefore)
	}
	var users int
	if err := raw.QueryRow(`SELECT count(*) FROM messages WHERE role = 'user'`).Scan(&users); err != nil || users != 4 {
		t.Errorf("%d operator rows (%v), want 4: regenerating adds none", users, err)
	}
	var by int64
	if err := raw.QueryRow(`SELECT run_id FROM supersessions WHERE message_id = ?`, r3.AnchorID).Scan(&by); err != nil || by != g2.RunID {
		t.Errorf("message %d superseded by run %d (%v), want %d", r3.AnchorID, by, err, g2.RunID)
	}

	ctxAfter, err := db.Context(r2.AnchorID)
	if err != nil {
		t.Fatal(err)
	}
	wantCtx := []chat.Message{{Role: "user", Content: "one"}, {Role: "assistant", Content: "reply one"}, {Role: "user", Content: "two"}}
	if !reflect.DeepEqual(ctxBefore, wantCtx) || !reflect.DeepEqual(ctxAfter, ctxBefore) {
		t.Errorf("context before %v, after %v; want both %v", ctxBefore, ctxAfter, wantCtx)
	}

	live, err := db.Transcript(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{r1.AnchorID, r1.ReplyID, r2.AnchorID, g2.ReplyID}; !reflect.DeepEqual(ids(live), want) {
		t.Errorf("live transcript %v, want %v", ids(live), want)
	}
	if m := live[3]; m.Status != chat.StatusQueued || m.Model != "model-c" || m.RunID != g2.RunID || m.AnchorID != r2.AnchorID {
		t.Errorf("new reply = %+v", m)
	}

	all, err := db.AllMessages(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	superseded := map[int64]bool{r2.ReplyID: true, r3.AnchorID: true, r3.ReplyID: true, g3.ReplyID: true}
	if len(all) != 8 {
		t.Fatalf("all messages %v, want 8", ids(all))
	}
	for _, m := range all {
		if m.Superseded != superseded[m.ID] {
			t.Errorf("message %d superseded = %v", m.ID, m.Superseded)
		}
	}
	if oth, err := db.Transcript(other.ID); err != nil || !reflect.DeepEqual(ids(oth), []int64{ro.AnchorID, ro.ReplyID}) {
		t.Errorf("other session touched: %v, %v", ids(oth), err)
	}

	v2, err := db.Versions(r2.AnchorID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids(v2), []int64{r2.ReplyID, g2.ReplyID}) || v2[0].Content != "reply two" || !v2[0].Superseded {
		t.Errorf("versions of %d = %+v", r2.AnchorID, v2)
	}
	v3, err := db.Versions(r3.AnchorID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids(v3), []int64{r3.ReplyID, g3.ReplyID}) || v3[1].Content != "reply three, again" {
		t.Errorf("versions of %d = %+v", r3.AnchorID, v3)
	}

	// Only a live operator message can be regenerated from or sent.
	for _, id := range []int64{r3.AnchorID, r1.ReplyID, 9999} {
		if _, err := db.Regenerate(id, "m", false); !errors.Is(err, ErrNotFound) {
			t.Errorf("Regenerate(%d): %v, want ErrNotFound", id, err)
		}
		if _, err := db.Context(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Context(%d): %v, want ErrNotFound", id, err)
		}
	}
	if _, err := db.Versions(r1.ReplyID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Versions of a reply: %v, want ErrNotFound", err)
	}
}

func TestContextLeavesOutUnfinishedAndEmptyReplies(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	sys := func(content string) {
		if _, err := db.pool().Exec(`INSERT INTO messages (session_id, role, content, created_at) VALUES (?, 'system', ?, 1)`,
			s.ID, content); err != nil {
			t.Fatal(err)
		}
	}
	sys("older turns were left out")
	exchange(t, db, s.ID, "q1", "a1")
	r2 := post(t, db, s.ID, "q2") // fails before any text
	if err := db.FinishRun(r2.RunID, stored.Finish{Status: chat.StatusFailed, Retry: &interruptedClass}); err != nil {
		t.Fatal(err)
	}
	r3 := post(t, db, s.ID, "q3") // cancelled with partial text
	runTo(t, db, r3, "partial", stored.Finish{Status: chat.StatusCancelled})
	r4 := post(t, db, s.ID, "q4") // still running, with text
	streaming(t, db, r4, "streaming")
	r5 := post(t, db, s.ID, "q5") // queued behind it
	post(t, db, s.ID, "q6")       // after the anchor: not part of its context

	got, err := db.Context(r5.AnchorID)
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.Message{
		{Role: "system", Content: "older turns were left out"},
		{Role: "user", Content: "q1"}, {Role: "assistant", Content: "a1"},
		{Role: "user", Content: "q2"},
		{Role: "user", Content: "q3"}, {Role: "assistant", Content: "partial"},
		{Role: "user", Content: "q4"},
		{Role: "user", Content: "q5"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("context =\n%v\nwant\n%v", got, want)
	}
}

func TestTranscriptBeforeReadsTheEndFirst(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	var rs []stored.Receipt
	for i := 0; i < 4; i++ {
		r := post(t, db, s.ID, fmt.Sprintf("q%d", i))
		answer(t, db, r, fmt.Sprintf("a%d", i))
		rs = append(rs, r)
	}
	// A superseded reply is never part of a page.
	g := regenerate(t, db, rs[3].AnchorID)
	answer(t, db, g, "a3 again")
	full := liveIDs(t, db, s.ID)
	page := messageIDs(t)
	tail := page(db.TranscriptBefore(s.ID, 0, 3))
	if !slices.Equal(tail, full[len(full)-3:]) {
		t.Fatalf("tail %v, want %v", tail, full[len(full)-3:])
	}
	if older := page(db.TranscriptBefore(s.ID, tail[0], 0)); !slices.Equal(slices.Concat(older, tail), full) {
		t.Fatalf("older %v + tail %v, want %v", older, tail, full)
	}
	if all := page(db.TranscriptBefore(s.ID, 0, 100)); !slices.Equal(all, full) {
		t.Fatalf("a page larger than the session: %v, want %v", all, full)
	}
	if none := page(db.TranscriptBefore(s.ID, full[0], 0)); len(none) != 0 {
		t.Fatalf("before the first message: %v", none)
	}
}

// Editing an operator message supersedes its turn and what follows (system prompts aside),
// stores the new text as a new operator message and keeps the old turn as a version.
func TestEditSupersedesTheTurnAndKeepsItAsAVersion(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	r1 := exchange(t, db, s.ID, "first", "one")
	r2 := exchange(t, db, s.ID, "secnd", "two")
	if _, err := db.PostSystem(s.ID, stored.SystemPrompt{Text: "Be terse."}); err != nil {
		t.Fatal(err)
	}

	e, err := db.Edit(r2.AnchorID, "second", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	if e.SessionID != s.ID || !slices.Equal(e.Superseded, []int64{r2.AnchorID, r2.ReplyID}) || e.AnchorID <= r2.ReplyID {
		t.Fatalf("receipt %+v", e)
	}
	if got := contextOf(t, db, e.AnchorID); !slices.Equal(got, []string{"system: Be terse.", "user: first", "assistant: one", "user: second"}) {
		t.Fatalf("context %q", got)
	}
	old, err := db.Message(r2.AnchorID)
	if err != nil || old.Content != "secnd" || !old.Superseded {
		t.Fatalf("the old operator message: %+v, %v", old, err)
	}
	edited, err := db.Message(e.AnchorID)
	if err != nil || edited.EditOf != r2.AnchorID || edited.Superseded {
		t.Fatalf("the new operator message: %+v, %v", edited, err)
	}
	answer(t, db, e, "two, again")

	// Edited twice: every reply in the chain is a version, from either end.
	e2, err := db.Edit(e.AnchorID, "second, really", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, anchor := range []int64{r2.AnchorID, e.AnchorID, e2.AnchorID} {
		vs, err := db.Versions(anchor)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, v := range vs {
			ids = append(ids, v.ID)
		}
		if !slices.Equal(ids, []int64{r2.ReplyID, e.ReplyID, e2.ReplyID}) {
			t.Errorf("versions of %d: %v", anchor, ids)
		}
	}
	if vs, _ := db.Versions(r1.AnchorID); len(vs) != 1 {
		t.Errorf("an unedited message has %d versions", len(vs))
	}

	if _, err := db.Edit(r2.AnchorID, "again", "m", false); !errors.Is(err, ErrNotFound) {
		t.Errorf("editing a superseded message: %v", err)
	}
	if _, err := db.Edit(r1.ReplyID, "again", "m", false); !errors.Is(err, ErrNotFound) {
		t.Errorf("editing a reply: %v", err)
	}
	if _, err := db.Edit(r1.AnchorID, "  ", "m", false); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("an empty edit: %v", err)
	}
	// The session can still be deleted whole, edits and all.
	if err := db.DeleteSession(s.ID); err != nil {
		t.Fatal(err)
	}
}

// contents returns the role and content of each message, for comparing contexts.
func contents(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.Role)+": "+m.Content)
	}
	return out
}

func contextOf(t *testing.T, db *DB, anchor int64) []string {
	t.Helper()
	msgs, err := db.Context(anchor)
	if err != nil {
		t.Fatal(err)
	}
	return contents(msgs)
}

// A system prompt goes first, for the operator messages after it; a later one takes over for
// the messages after it, while regenerating an earlier reply keeps that reply's prompt.
func TestSystemPromptIsSentFirstAndKeptByRegenerate(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	poet := stored.SystemPrompt{Role: "poet", Text: "Answer in verse."}
	if m, err := db.PostSystem(s.ID, poet); err != nil || m.ID == 0 || m.SystemRole != "poet" {
		t.Fatalf("PostSystem: %+v, %v", m, err)
	}
	if m, err := db.PostSystem(s.ID, poet); err != nil || m.ID != 0 {
		t.Fatalf("the same prompt again was stored: %+v, %v", m, err)
	}
	r1 := exchange(t, db, s.ID, "first", "a rhyme")
	if got := contextOf(t, db, r1.AnchorID); !slices.Equal(got, []string{"system: Answer in verse.", "user: first"}) {
		t.Fatalf("context %q", got)
	}

	terse := stored.SystemPrompt{Text: "Be terse."}
	if _, err := db.PostSystem(s.ID, terse); err != nil {
		t.Fatal(err)
	}
	if got, err := db.SystemPrompt(s.ID); err != nil || got != terse {
		t.Fatalf("SystemPrompt = %+v, %v", got, err)
	}
	r2 := post(t, db, s.ID, "second")
	if got := contextOf(t, db, r2.AnchorID); !slices.Equal(got, []string{"system: Be terse.", "user: first", "assistant: a rhyme", "user: second"}) {
		t.Fatalf("context after a new prompt %q", got)
	}

	// Regenerating the first reply supersedes everything after it but the system prompt.
	rg := regenerate(t, db, r1.AnchorID)
	if !slices.Equal(rg.Superseded, []int64{r1.ReplyID, r2.AnchorID, r2.ReplyID}) {
		t.Fatalf("superseded %v", rg.Superseded)
	}
	if got := contextOf(t, db, r1.AnchorID); !slices.Equal(got, []string{"system: Answer in verse.", "user: first"}) {
		t.Fatalf("regenerated context %q", got)
	}
	live, err := db.Transcript(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var systems []string
	for _, m := range live {
		if m.Role == chat.RoleSystem {
			systems = append(systems, m.SystemRole+"|"+m.Content)
		}
	}
	if !slices.Equal(systems, []string{"poet|Answer in verse.", "|Be terse."}) {
		t.Fatalf("live system prompts %q", systems)
	}
}

func TestPostSystemRefusals(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	if _, err := db.PostSystem("nosuch", stored.SystemPrompt{Text: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	s := newSession(t, db)
	if _, err := db.PostSystem(s.ID, stored.SystemPrompt{Text: " \n"}); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("blank prompt: %v", err)
	}
	if p, err := db.SystemPrompt(s.ID); err != nil || p != (stored.SystemPrompt{}) {
		t.Errorf("a session without a prompt: %+v, %v", p, err)
	}
}

// Removing the system prompt stores the removal as an empty system message: the messages after
// it are sent with none, those before keep theirs, and a session with none stores nothing.
func TestRemoveSystem(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	if m, err := db.RemoveSystem(s.ID); err != nil || m.ID != 0 {
		t.Fatalf("removing a prompt the session does not have stored %+v, %v", m, err)
	}
	if _, err := db.PostSystem(s.ID, stored.SystemPrompt{Role: "poet", Text: "Answer in verse."}); err != nil {
		t.Fatal(err)
	}
	r1 := exchange(t, db, s.ID, "first", "a rhyme")
	removed, err := db.RemoveSystem(s.ID)
	if err != nil || removed.ID == 0 || removed.Role != chat.RoleSystem || removed.Content != "" {
		t.Fatalf("RemoveSystem: %+v, %v", removed, err)
	}
	if m, err := db.RemoveSystem(s.ID); err != nil || m.ID != 0 {
		t.Fatalf("removing it twice stored %+v, %v", m, err)
	}
	if p, err := db.SystemPrompt(s.ID); err != nil || p != (stored.SystemPrompt{}) {
		t.Fatalf("SystemPrompt after the removal: %+v, %v", p, err)
	}
	r2 := post(t, db, s.ID, "second")
	if got := contextOf(t, db, r2.AnchorID); !slices.Equal(got, []string{"user: first", "assistant: a rhyme", "user: second"}) {
		t.Fatalf("context after the removal %q", got)
	}
	if got, err := db.SessionContext(s.ID); err != nil || len(got) == 0 || got[0].Role == chat.RoleSystem {
		t.Fatalf("session context after the removal %+v, %v", got, err)
	}
	if got := contextOf(t, db, r1.AnchorID); !slices.Equal(got, []string{"system: Answer in verse.", "user: first"}) {
		t.Fatalf("the earlier message lost its prompt: %q", got)
	}
}

// Two windows on one session: a post by the one that has not seen the other's turns is refused.
func TestPostSeenRefusesWhatTheOtherProcessStored(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	mine, err := db.Post(s.ID, "my first question", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	other := openAgain(t, db)
	theirs, err := other.Post(s.ID, "their question", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.PostSeen(s.ID, mine.ReplyID, "my second question", "m", false)
	var unseen *UnseenError
	if !errors.As(err, &unseen) || unseen.Count != 2 {
		t.Fatalf("PostSeen after the other's turn: %v, want 2 unseen messages", err)
	}
	msgs, err := db.Transcript(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 {
		t.Fatalf("%d messages stored, want the 4 of the two turns: the refused one is not stored", len(msgs))
	}
	// Once shown, it posts.
	if _, err := db.PostSeen(s.ID, theirs.ReplyID, "my second question", "m", false); err != nil {
		t.Fatalf("PostSeen having seen everything: %v", err)
	}
	// What another process superseded is not counted: only live messages are context.
	if _, err := other.Regenerate(theirs.AnchorID, "m", false); err != nil {
		t.Fatal(err)
	}
	msgs, _ = db.Transcript(s.ID)
	last := msgs[len(msgs)-1].ID
	if _, err := db.PostSeen(s.ID, last, "third", "m", false); err != nil {
		t.Fatalf("PostSeen having seen the live messages: %v", err)
	}
}
