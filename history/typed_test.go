package history

import (
	"reflect"
	"testing"
)

func TestTypedWalksEarlierScreenSessionsNewestFirst(t *testing.T) {
	t.Parallel()
	db, _ := openSession(t)
	printed := openAgain(t, db) // print mode's handle: its sessions are not the screen's
	if _, err := printed.Post("", "a piped diff", "m", false); err != nil {
		t.Fatal(err)
	}
	db.SetInteractive()
	post := func(session, text string) string {
		t.Helper()
		r, err := db.Post(session, text, "m", false)
		if err != nil {
			t.Fatal(err)
		}
		return r.SessionID
	}
	first := post("", "oldest")
	post(first, "again")
	second := post("", "again")
	post(second, "newest elsewhere")
	open := post("", "in the open session")

	got, err := db.Typed(open, 10)
	if want := []string{"newest elsewhere", "again", "oldest"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Typed = %q, %v; want %q", got, err, want)
	}
	if got, _ := db.Typed(open, 2); len(got) != 2 {
		t.Fatalf("Typed with limit 2 = %q", got)
	}
}
