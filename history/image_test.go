package history

import (
	"bytes"
	"errors"
	"testing"

	"parley/internal/chat"
)

// photo is an image as attach makes one: bytes (a real PNG's first bytes are enough for the
// history, which never decodes), type, size and hash.
func photo(name string, fill byte) chat.Image {
	data := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{fill}, 4096)...)
	return chat.NewImage(name, "image/png", data, 64, 48)
}

// An image is stored once however many messages carry it, goes with its message into every
// later context with its bytes, shows in the transcript without them, and stays with an edit.
func TestImagesStoredOnceAndSentWithTheirMessage(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	a, b := photo("a.png", 1), photo("b.png", 2)
	first, err := db.Post(s.ID, "what is in these?", "m", false, a, b)
	if err != nil {
		t.Fatal(err)
	}
	answer(t, db, first, "two squares")
	second, err := db.Post(s.ID, "and this one again?", "m", false, a)
	if err != nil {
		t.Fatal(err)
	}
	var stored int
	db.pool().QueryRow(`SELECT count(*) FROM images`).Scan(&stored)
	if stored != 2 {
		t.Fatalf("%d images stored for two distinct ones", stored)
	}

	ctx, err := db.Context(second.AnchorID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx) != 3 || len(ctx[0].Images) != 2 || len(ctx[1].Images) != 0 || len(ctx[2].Images) != 1 {
		t.Fatalf("context %+v", ctx)
	}
	if got := ctx[0].Images[1]; !bytes.Equal(got.Data, b.Data) || got.Name != "b.png" || got.Hash != b.Hash || got.Width != 64 {
		t.Errorf("second image of the first message: %+v", got)
	}
	sess, err := db.SessionContext(s.ID)
	if err != nil || len(sess[2].Images) != 1 || !bytes.Equal(sess[2].Images[0].Data, a.Data) {
		t.Errorf("session context %+v, %v", sess, err)
	}

	msgs, err := db.Transcript(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if im := msgs[0].Images; len(im) != 2 || im[0].Data != nil || im[0].Bytes != a.Bytes || im[0].Name != "a.png" {
		t.Errorf("transcript images %+v: what they are, not their bytes", im)
	}
	if data, err := db.ImageData(a.Hash); err != nil || !bytes.Equal(data, a.Data) {
		t.Errorf("ImageData: %d bytes, %v", len(data), err)
	}

	edit, err := db.Edit(second.AnchorID, "and this one, once more?", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err = db.Context(edit.AnchorID)
	if err != nil || len(ctx[len(ctx)-1].Images) != 1 || !bytes.Equal(ctx[len(ctx)-1].Images[0].Data, a.Data) {
		t.Errorf("an edit keeps its message's images: %+v, %v", ctx, err)
	}
}

// A message may be an image alone; the session is titled by it.
func TestAnImageAloneIsAMessage(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	r, err := db.Post("", " ", "m", false, photo("shot.png", 3))
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Session(r.SessionID)
	if err != nil || got.Title != "▣ shot.png" {
		t.Errorf("session %+v, %v", got, err)
	}
	if _, err := db.Post(r.SessionID, " ", "m", false); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("no text and no image: %v", err)
	}
}

// Deleting a session deletes the images only it carried.
func TestDeletingASessionDeletesItsOwnImages(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	shared, own := photo("shared.png", 4), photo("own.png", 5)
	keep, err := db.Post("", "keep", "m", false, shared)
	if err != nil {
		t.Fatal(err)
	}
	answer(t, db, keep, "ok")
	gone, err := db.Post("", "delete me", "m", false, shared, own)
	if err != nil {
		t.Fatal(err)
	}
	answer(t, db, gone, "ok")
	if err := db.DeleteSession(gone.SessionID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ImageData(own.Hash); !errors.Is(err, ErrNotFound) {
		t.Errorf("the deleted session's own image: %v", err)
	}
	if _, err := db.ImageData(shared.Hash); err != nil {
		t.Errorf("the image another session carries: %v", err)
	}
}

// A message the database could not take keeps its images in the recovery file, bytes and all,
// and they are folded back with it.
func TestRecoveredPostKeepsItsImages(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	path := db.Path()
	im := photo("receipt.png", 6)
	r, err := db.PostToRecovery("", "what does this say?", "m", errors.New("database or disk is full"), im)
	if err != nil {
		t.Fatal(err)
	}
	stream(t, db, r.RunID, "A receipt.", 2)
	db.Close()
	again := openPath(t, path)
	session := onlySession(t, again)
	ctx, err := again.SessionContext(session.ID)
	if err != nil || len(ctx) != 2 || len(ctx[0].Images) != 1 || !bytes.Equal(ctx[0].Images[0].Data, im.Data) {
		t.Fatalf("folded back: %+v, %v", ctx, err)
	}
}

// testdata/v9.db was made by the release before images (the built binary, in print mode
// against the demo endpoint, with -c and -f): it migrates without loss and then takes images.
func TestSchema9DatabaseTakesImages(t *testing.T) {
	t.Parallel()
	db := openCopy(t, "testdata/v9.db")
	sessions := mustSessions(t, db)
	if len(sessions) != 2 {
		t.Fatalf("sessions %+v", sessions)
	}
	var texts []string
	for _, s := range sessions {
		msgs, err := db.AllMessages(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Status != "" && m.Status != chat.StatusSucceeded || len(m.Images) != 0 {
				t.Errorf("message %d: %s, %d images", m.ID, m.Status, len(m.Images))
			}
			texts = append(texts, m.Content)
		}
	}
	if len(texts) != 6 || texts[0] != "review this\n\n/tmp/a.go\n```go\npackage main\n```" || texts[2] != "hello there" || texts[4] != "what are the keys?" {
		t.Fatalf("messages %q", texts)
	}
	r, err := db.Post(sessions[1].ID, "and this?", "m", false, photo("new.png", 7))
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := db.Context(r.AnchorID)
	if err != nil || len(ctx) != 5 || len(ctx[4].Images) != 1 {
		t.Fatalf("context after migrating: %+v, %v", ctx, err)
	}
}
