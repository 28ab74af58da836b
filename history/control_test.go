package history

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
)

var cut = chat.Classification{Retryable: true, Class: chat.Network, Label: chat.Label(chat.Network),
	Message: "connection reset by peer"}

// A cut reply is continued as a new version that begins with its text: the old version is
// kept, the seam is where the new text begins, and the stitched text is one reply everywhere.
func TestContinueMakesOneReplyFromTheCut(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	first := post(t, db, s.ID, "tell me about quokkas")
	runTo(t, db, first, "Quokkas are small marsupials that live on", stored.Finish{Status: chat.StatusFailed, Retry: &cut, Attempts: 1})

	r, err := db.Continue(first.ReplyID, "m", false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Prefix != "Quokkas are small marsupials that live on" || r.AnchorID != first.AnchorID || len(r.Superseded) != 1 || r.Superseded[0] != first.ReplyID {
		t.Fatalf("receipt %+v", r)
	}
	// Its request ends with the cut text as the assistant's turn, to be gone on from.
	if sent, _, err := db.RunContext(r.RunID); err != nil || len(sent) != 2 || sent[1].Role != chat.RoleAssistant || sent[1].Content != r.Prefix {
		t.Fatalf("the continuation sends %+v, %v", sent, err)
	}
	runTo(t, db, r, " Rottnest Island.", stored.Finish{Status: chat.StatusSucceeded, Attempts: 1, FinishReason: "stop"})
	msgs, err := db.Transcript(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	reply := msgs[1]
	if len(msgs) != 2 || reply.Content != "Quokkas are small marsupials that live on Rottnest Island." || reply.Seam != len(r.Prefix) {
		t.Fatalf("transcript %+v", msgs)
	}
	versions, err := db.Versions(first.AnchorID)
	if err != nil || len(versions) != 2 || versions[0].Content != r.Prefix || versions[0].Status != chat.StatusFailed {
		t.Fatalf("versions %+v, %v", versions, err)
	}
	next := post(t, db, s.ID, "and their diet?")
	ctx, err := db.Context(next.AnchorID)
	if err != nil || ctx[1].Content != reply.Content {
		t.Errorf("later context carries %q, want the joined reply", ctx[1].Content)
	}

	// Nothing to go on from: a reply still running, and one with no text.
	streaming(t, db, next, "")
	if _, err := db.Continue(next.ReplyID, "m", false); !errors.Is(err, ErrNothingToContinue) {
		t.Errorf("a running reply: %v", err)
	}
}

// A fork holds the conversation up to the message it was made at, linked to its origin, which
// is not changed.
func TestForkAtTheThirdOfSixTurns(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	replies := exchanges(t, db, s.ID, 6)
	if err := db.SetPinned(replies[0].AnchorID, true); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSessionModel(s.ID, "work", "gpt-4o"); err != nil {
		t.Fatal(err)
	}
	fork, err := db.Fork(s.ID, replies[2].ReplyID)
	if err != nil {
		t.Fatal(err)
	}
	if fork.ID == s.ID || fork.Title != "question 1" || fork.Messages != 6 || fork.Profile != "work" || fork.Model != "gpt-4o" {
		t.Fatalf("fork %+v", fork)
	}
	msgs, err := db.Transcript(fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 6 || msgs[5].Content != "answer 3" || msgs[5].Status != chat.StatusSucceeded || msgs[5].Model != "test-model" ||
		msgs[5].AnchorID != msgs[4].ID || !msgs[0].Pinned {
		t.Fatalf("forked transcript %+v", msgs)
	}
	origin, err := db.Transcript(s.ID)
	if err != nil || len(origin) != 12 {
		t.Fatalf("origin has %d messages, %v", len(origin), err)
	}
	link, ok, err := db.ForkOf(fork.ID)
	if err != nil || !ok || link.Origin != s.ID || link.AtMessage != replies[2].ReplyID || link.OriginTitle != "question 1" ||
		!link.At.Equal(origin[5].CreatedAt) {
		t.Fatalf("fork link %+v %v %v", link, ok, err)
	}
	if _, ok, _ := db.ForkOf(s.ID); ok {
		t.Error("the origin is no fork")
	}
	// The fork goes on by itself.
	r := post(t, db, fork.ID, "question 4, asked again")
	ctx, err := db.Context(r.AnchorID)
	if err != nil || len(ctx) != 7 || ctx[5].Content != "answer 3" {
		t.Fatalf("fork context %+v, %v", ctx, err)
	}
	// Deleting the origin leaves the fork standing, and saying so.
	if err := db.DeleteSession(s.ID); err != nil {
		t.Fatal(err)
	}
	if link, ok, err := db.ForkOf(fork.ID); err != nil || !ok || link.OriginTitle != "" {
		t.Errorf("after the origin is deleted: %+v %v %v", link, ok, err)
	}
}

// A fork keeps a reply's tool calls with their results, so it sends the same turns on. One
// taken while the reply still runs has its pending call failed, as a resume has: the fork
// does not own that call, and never runs it again.
func TestForkKeepsToolCalls(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	r := echoThenSum(t, db, s.ID, chat.ToolResult{Status: chat.ToolPending, Server: "everything", Tool: "get-sum"})
	fork, err := db.Fork(s.ID, r.ReplyID)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := db.Transcript(fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	calls := msgs[1].ToolCalls
	if len(msgs) != 2 || msgs[1].Status != chat.StatusInterrupted || len(calls) != 2 ||
		calls[0].Call != echoCall || calls[0].Result != echoRan || calls[1].Call != sumCall ||
		calls[1].Result.Status != chat.ToolFailed || calls[1].Result.Text != stored.PendingText {
		t.Fatalf("forked transcript %+v", msgs)
	}
	next := post(t, db, fork.ID, "thanks")
	got, err := db.Context(next.AnchorID)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(echoThenSumSent(stored.PendingText), chat.Message{Role: chat.RoleUser, Content: "thanks"}); !reflect.DeepEqual(got, want) {
		t.Errorf("the fork sends\n%+v\nwant\n%+v", got, want)
	}
	// The origin's call is its own still: pending, for its run to end.
	if origin, _ := db.Transcript(s.ID); origin[1].ToolCalls[1].Result.Status != chat.ToolPending {
		t.Errorf("the origin's call became %+v", origin[1].ToolCalls[1].Result)
	}
}

// A pinned message, and the system prompt, stay in the context past a /compact; the rest
// before the point is left out.
func TestPinsAndCompactionPoint(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	if _, err := db.PostSystem(s.ID, stored.SystemPrompt{Text: "You are terse."}); err != nil {
		t.Fatal(err)
	}
	rs := exchanges(t, db, s.ID, 4)
	if err := db.SetPinned(rs[0].AnchorID, true); err != nil {
		t.Fatal(err)
	}
	if err := db.CompactBefore(s.ID, rs[2].AnchorID); err != nil {
		t.Fatal(err)
	}
	last := post(t, db, s.ID, "question 5")
	ctx, err := db.Context(last.AnchorID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ctx {
		got = append(got, m.Content)
	}
	want := fmt.Sprint([]string{"You are terse.", "question 1", "question 3", "answer 3", "question 4", "answer 4", "question 5"})
	if fmt.Sprint(got) != want || !ctx[1].Pinned || ctx[2].Pinned {
		t.Fatalf("context %q, want %s", got, want)
	}
	if err := db.SetPinned(rs[0].AnchorID, false); err != nil {
		t.Fatal(err)
	}
	if ctx, _ := db.Context(last.AnchorID); len(ctx) != 6 {
		t.Errorf("unpinned, the message is left out: %d messages", len(ctx))
	}
	if err := db.SetPinned(9999, true); !errors.Is(err, ErrNotFound) {
		t.Errorf("pinning no message: %v", err)
	}
}

// NextContext names each message a new message would be sent with, the compaction point and
// the pins read back after reopening.
func TestNextContextNamesItsMessages(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	rs := exchanges(t, db, s.ID, 3)
	if before, err := db.CompactedBefore(s.ID); before != 0 || err != nil {
		t.Fatalf("never compacted: %d, %v", before, err)
	}
	if err := db.SetPinned(rs[0].ReplyID, true); err != nil {
		t.Fatal(err)
	}
	if err := db.CompactBefore(s.ID, rs[1].AnchorID); err != nil {
		t.Fatal(err)
	}
	db = openAgain(t, db)
	msgs, ids, err := db.NextContext(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{rs[0].ReplyID, rs[1].AnchorID, rs[1].ReplyID, rs[2].AnchorID, rs[2].ReplyID}
	if fmt.Sprint(ids) != fmt.Sprint(want) || len(msgs) != len(ids) || !msgs[0].Pinned || msgs[0].Content != "answer 1" {
		t.Fatalf("ids %v, want %v; messages %+v", ids, want, msgs)
	}
	if before, err := db.CompactedBefore(s.ID); before != rs[1].AnchorID || err != nil {
		t.Errorf("compacted before %d, %v; want %d", before, err, rs[1].AnchorID)
	}
	list, err := db.Transcript(s.ID)
	if err != nil || !list[1].Pinned || list[0].Pinned {
		t.Errorf("the transcript reopened does not show the pin: %+v, %v", list[:2], err)
	}
}
