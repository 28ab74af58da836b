package history

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestSearchFindsLiveMessagesAndForgetsDeletedSessions(t *testing.T) {
	db := openTemp(t)
	old := newSession(t, db)
	r := post(t, db, old.ID, "How do zebras sleep?")
	answer(t, db, r, "Zebras sleep standing up, in short naps.")
	other := newSession(t, db)
	post(t, db, other.ID, "what is TCP")

	hits, err := db.Search("zebra", 10) // the last word is a prefix
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].SessionID != old.ID || hits[0].Title != "How do zebras sleep?" {
		t.Fatalf("hits %+v", hits)
	}
	for _, h := range hits {
		if !strings.Contains(h.Excerpt, HitStart+"zebras"+HitEnd) && !strings.Contains(h.Excerpt, HitStart+"Zebras"+HitEnd) {
			t.Errorf("excerpt %q does not mark the match", h.Excerpt)
		}
	}
	if hits, _ := db.Search(`"standing" sleep(`, 10); len(hits) != 1 || hits[0].Role != RoleAssistant {
		t.Errorf("words that look like query syntax are words: %+v", hits)
	}

	// A regenerated reply leaves the results with the version it superseded.
	if _, err := db.Regenerate(r.AnchorID, "m", false); err != nil {
		t.Fatal(err)
	}
	if hits, _ := db.Search("naps", 10); len(hits) != 0 {
		t.Errorf("superseded reply still found: %+v", hits)
	}

	if err := db.DeleteSession(old.ID); err != nil {
		t.Fatal(err)
	}
	if hits, _ := db.Search("zebras", 10); len(hits) != 0 {
		t.Errorf("deleted session still found: %+v", hits)
	}
	if _, err := db.Session(old.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted session still there: %v", err)
	}
	if hits, _ := db.Search("tcp", 10); len(hits) != 1 {
		t.Errorf("the other session's message: %+v", hits)
	}
}

func TestDeleteSessionRules(t *testing.T) {
	db := openTemp(t)
	s := newSession(t, db)
	r := post(t, db, s.ID, "still streaming")
	if err := db.StartRun(r.RunID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteSession(s.ID); !errors.Is(err, ErrStreaming) {
		t.Errorf("deleting a session whose reply streams: %v, want ErrStreaming", err)
	}
	if err := db.DeleteSession("nosuchid"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting no session: %v", err)
	}
	// Outside DeleteSession, operator messages stay immutable, whoever runs the SQL.
	if _, err := rawSQL(t, db.Path()).Exec(`DELETE FROM messages WHERE role = 'user'`); err == nil ||
		!strings.Contains(err.Error(), "immutable") {
		t.Errorf("raw delete of an operator message: %v", err)
	}
}

func TestPostWithoutSessionCreatesIt(t *testing.T) {
	db := openTemp(t)
	r, err := db.Post("", "first words", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.LatestSession()
	if err != nil || s.ID != r.SessionID || s.Title != "first words" || s.Messages != 2 {
		t.Errorf("session %+v (%v), receipt %+v", s, err, r)
	}
}

func TestSetTitle(t *testing.T) {
	db := openTemp(t)
	s := newSession(t, db)
	post(t, db, s.ID, "first message")
	if err := db.SetTitle(s.ID, "  Networking notes\nsecond line"); err != nil {
		t.Fatal(err)
	}
	post(t, db, s.ID, "another message")
	if got, _ := db.Session(s.ID); got.Title != "Networking notes" {
		t.Errorf("title %q", got.Title)
	}
	if err := db.SetTitle(s.ID, "  "); err == nil {
		t.Error("a blank title was taken")
	}
}

// The migration indexes what an older database already holds.
func TestSearchFindsMigratedMessages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	copyFile(t, "testdata/v1.db", path)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if hits, err := db.Search("retries", 10); err != nil || len(hits) == 0 {
		t.Errorf("hits %+v, %v", hits, err)
	}
}

// BenchmarkSearch is a search over 10,000 messages in 100 sessions, for a word in one old
// session: go test ./history -run '^$' -bench Search
func BenchmarkSearch(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for i := range 100 {
		s, err := db.CreateSession()
		if err != nil {
			b.Fatal(err)
		}
		for j := range 50 {
			word := "ordinary"
			if i == 3 && j == 7 {
				word = "quokka"
			}
			r, err := db.Post(s.ID, fmt.Sprintf("question %d about %s things, with some more words to index", j, word), "m", false)
			if err != nil {
				b.Fatal(err)
			}
			db.StartRun(r.RunID)
			db.AppendReply(r.RunID, strings.Repeat("An answer of some length with many common words. ", 20), "")
			db.FinishRun(r.RunID, Finish{Status: "succeeded"})
		}
	}
	b.ResetTimer()
	for range b.N {
		hits, err := db.Search("quokka", 20)
		if err != nil || len(hits) != 1 {
			b.Fatalf("%+v %v", hits, err)
		}
	}
}
