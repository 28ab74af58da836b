package history

import (
	"errors"
	"slices"
	"testing"

	"parley/agent/chat"
)

// contents returns the role and content of each message, for comparing contexts.
func contents(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role+": "+m.Content)
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
	db := openTemp(t)
	s := newSession(t, db)
	poet := SystemPrompt{Role: "poet", Text: "Answer in verse."}
	if m, err := db.PostSystem(s.ID, poet); err != nil || m.ID == 0 || m.SystemRole != "poet" {
		t.Fatalf("PostSystem: %+v, %v", m, err)
	}
	if m, err := db.PostSystem(s.ID, poet); err != nil || m.ID != 0 {
		t.Fatalf("the same prompt again was stored: %+v, %v", m, err)
	}
	r1 := post(t, db, s.ID, "first")
	answer(t, db, r1, "a rhyme")
	if got := contextOf(t, db, r1.AnchorID); !slices.Equal(got, []string{"system: Answer in verse.", "user: first"}) {
		t.Fatalf("context %q", got)
	}

	terse := SystemPrompt{Text: "Be terse."}
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
	rg, err := db.Regenerate(r1.AnchorID, "m", false)
	if err != nil {
		t.Fatal(err)
	}
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
		if m.Role == RoleSystem {
			systems = append(systems, m.SystemRole+"|"+m.Content)
		}
	}
	if !slices.Equal(systems, []string{"poet|Answer in verse.", "|Be terse."}) {
		t.Fatalf("live system prompts %q", systems)
	}
}

func TestPostSystemRefusals(t *testing.T) {
	db := openTemp(t)
	if _, err := db.PostSystem("nosuch", SystemPrompt{Text: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	s := newSession(t, db)
	if _, err := db.PostSystem(s.ID, SystemPrompt{Text: " \n"}); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("blank prompt: %v", err)
	}
	if p, err := db.SystemPrompt(s.ID); err != nil || p != (SystemPrompt{}) {
		t.Errorf("a session without a prompt: %+v, %v", p, err)
	}
}
