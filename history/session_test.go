package history

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
)

func TestCreateSession(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	seen := map[string]bool{}
	for range 20 {
		s := newSession(t, db)
		if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(s.ID) {
			t.Errorf("session id %q is not 8 lowercase hex characters", s.ID)
		}
		if seen[s.ID] {
			t.Errorf("session id %q handed out twice", s.ID)
		}
		seen[s.ID] = true
		if s.Title != "" || s.Messages != 0 || s.CreatedAt.IsZero() || !s.UpdatedAt.Equal(s.CreatedAt) {
			t.Errorf("new session = %+v", s)
		}
	}
}

func TestSessionPrefixLookup(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	tx, err := db.pool().Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"abcd1234", "abcd5678", "abce0000", "0123abcd"} {
		if _, err := tx.Exec(`INSERT INTO sessions (id, created_at, updated_at) VALUES (?, ?, ?)`, id, i+1, i+1); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	// A prefix of any length finds the one session it starts; of several, it says how many,
	// and how much of an id tells them apart.
	for _, c := range []struct {
		query, want string
		err         error
		matches     int
	}{
		{"abcd1234", "abcd1234", nil, 0},
		{"abcd5", "abcd5678", nil, 0},
		{"abce", "abce0000", nil, 0},
		{"0123", "0123abcd", nil, 0},
		{"0", "0123abcd", nil, 0},
		{"abcd", "", ErrAmbiguous, 2},
		{"abcd", "", ErrNotFound, 2}, // callers that only ask "found?" get no for an ambiguous prefix
		{"abc", "", ErrAmbiguous, 3},
		{"a", "", ErrAmbiguous, 3},
		{"abcd9", "", ErrNotFound, 0}, // no such session
		{"bcd1", "", ErrNotFound, 0},  // a prefix, not a substring
		{"abcd1234ff", "", ErrNotFound, 0},
		{"ab%d", "", ErrNotFound, 0},
		{"____", "", ErrNotFound, 0},
		{"_", "", ErrNotFound, 0},
		{"", "", ErrNotFound, 0},
	} {
		s, err := db.Session(c.query)
		var amb *AmbiguousError
		if errors.As(err, &amb) != (c.matches > 0) || amb != nil && (amb.Matches != c.matches || amb.Need != 5) {
			t.Errorf("Session(%q): %v; want %d matches, told apart by 5 characters", c.query, err, c.matches)
		}
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("Session(%q) = %+v, %v; want %v", c.query, s, err, c.err)
			}
			continue
		}
		if err != nil || s.ID != c.want {
			t.Errorf("Session(%q) = %q, %v; want %q", c.query, s.ID, err, c.want)
		}
	}
}

func TestLatestSessionAndOrdering(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	if _, err := db.LatestSession(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LatestSession on an empty database: %v, want ErrNotFound", err)
	}
	if ss, err := db.Sessions(); err != nil || len(ss) != 0 {
		t.Fatalf("Sessions on an empty database = %v, %v", ss, err)
	}
	a := newSession(t, db)
	b := newSession(t, db)
	c := newSession(t, db)
	ids := func() []string {
		ss, err := db.Sessions()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	latest := func() string {
		s, err := db.LatestSession()
		if err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	// Sessions nothing was said in are nobody's conversation: listed nowhere, never latest.
	if got := ids(); len(got) != 0 {
		t.Errorf("empty sessions listed: %v", got)
	}
	if _, err := db.LatestSession(); !errors.Is(err, ErrNotFound) {
		t.Errorf("latest of empty sessions: %v, want ErrNotFound", err)
	}
	post(t, db, c.ID, "to c")
	if got := latest(); got != c.ID {
		t.Errorf("latest = %s, want the only session with a message, %s", got, c.ID)
	}
	ra := post(t, db, a.ID, "to a")
	if got, want := ids(), []string{a.ID, c.ID}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("after posting to a: sessions %v, want %v", got, want)
	}
	post(t, db, b.ID, "to b")
	if got := latest(); got != b.ID {
		t.Errorf("after posting to b: latest = %s, want %s", got, b.ID)
	}
	// A run ending counts as an update too.
	answer(t, db, ra, "answer in a")
	if got, want := ids(), []string{a.ID, b.ID, c.ID}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("after a's run ended: sessions %v, want %v", got, want)
	}
	s, err := db.Session(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s.Messages != 2 || s.Title != "to a" || !s.UpdatedAt.After(s.CreatedAt) {
		t.Errorf("session a = %+v, want 2 live messages, title \"to a\", updated after created", s)
	}
}

func TestTitle(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 70)
	for _, c := range []struct{ in, want string }{
		{"hello", "hello"},
		{"  first line  \nsecond line", "first line"},
		{"\n\n  \r\nafter blanks\r\nmore", "after blanks"},
		{long, strings.Repeat("é", 60)},
		{strings.Repeat("a", 59) + " b", strings.Repeat("a", 59)},
	} {
		if got := title(c.in); got != c.want {
			t.Errorf("title(%q) = %q, want %q", c.in, got, c.want)
		}
	}

	db, s := openSession(t)
	post(t, db, s.ID, "  What is a monad?\nAsking for a friend.")
	post(t, db, s.ID, "Second question")
	got, err := db.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "What is a monad?" {
		t.Errorf("title = %q, want the first message's first line", got.Title)
	}
}

func TestSearchFindsLiveMessagesAndForgetsDeletedSessions(t *testing.T) {
	t.Parallel()
	db, old := openSession(t)
	r := exchange(t, db, old.ID, "How do zebras sleep?", "Zebras sleep standing up, in short naps.")
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
		if !strings.Contains(h.Excerpt, stored.HitStart+"zebras"+stored.HitEnd) && !strings.Contains(h.Excerpt, stored.HitStart+"Zebras"+stored.HitEnd) {
			t.Errorf("excerpt %q does not mark the match", h.Excerpt)
		}
	}
	if hits, _ := db.Search(`"standing" sleep(`, 10); len(hits) != 1 || hits[0].Role != chat.RoleAssistant {
		t.Errorf("words that look like query syntax are words: %+v", hits)
	}
	// The count is of the same messages, however many a search returns.
	if n, err := db.CountMatches("zebra"); n != 2 || err != nil {
		t.Errorf("CountMatches(zebra) = %d, %v; want 2", n, err)
	}
	if n, err := db.CountMatches("  "); n != 0 || err != nil {
		t.Errorf("CountMatches of no words = %d, %v", n, err)
	}

	// A regenerated reply leaves the results with the version it superseded.
	if _, err := db.Regenerate(r.AnchorID, "m", false); err != nil {
		t.Fatal(err)
	}
	if hits, _ := db.Search("naps", 10); len(hits) != 0 {
		t.Errorf("superseded reply still found: %+v", hits)
	}
	if n, _ := db.CountMatches("naps"); n != 0 {
		t.Errorf("superseded reply still counted: %d", n)
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
	t.Parallel()
	db, s := openSession(t)
	streaming(t, db, post(t, db, s.ID, "still streaming"), "Half a")
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

// A session whose every run ended without sending goes, whole, operator messages included; one
// that sent a request, or has a run still to end, stays.
func TestDiscardUnsent(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	unsent := func() stored.Receipt {
		r, err := db.Post("", "no key", "m", false)
		if err != nil {
			t.Fatal(err)
		}
		noKey := &chat.Classification{Class: chat.CredentialsUnresolved, Label: "API key not set"}
		if err := db.FinishRun(r.RunID, stored.Finish{Status: chat.StatusFailed, Retry: noKey}); err != nil {
			t.Fatal(err)
		}
		return r
	}
	gone := unsent()
	if ok, err := db.DiscardUnsent(gone.SessionID); !ok || err != nil {
		t.Fatalf("DiscardUnsent = %v, %v", ok, err)
	}
	if _, err := db.Session(gone.SessionID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the discarded session is still there: %v", err)
	}
	sent := unsent()
	answer(t, db, post(t, db, sent.SessionID, "with a key"), "Hello.")
	queued := post(t, db, "", "not yet sent")
	for _, id := range []string{sent.SessionID, queued.SessionID} {
		if ok, err := db.DiscardUnsent(id); ok || err != nil {
			t.Errorf("DiscardUnsent(%s) = %v, %v; want it kept", id, ok, err)
		}
		if _, err := db.Session(id); err != nil {
			t.Errorf("session %s: %v", id, err)
		}
	}
}

func TestPostWithoutSessionCreatesIt(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	db, s := openSession(t)
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
	t.Parallel()
	db := openCopy(t, "testdata/v1.db")
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
			db.FinishRun(r.RunID, stored.Finish{Status: "succeeded"})
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
