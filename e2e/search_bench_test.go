package e2e

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"parley/history"
	"parley/history/stored"
	"parley/internal/chat"
)

// vocabulary is what the seeded conversations are made of: ordinary words, so that the index
// holds many rows for each.
var vocabulary = strings.Fields(`the a of to and in is it that for on with as was at by this be are from or
have an they which one you had not but what all were when we there can your more if out so said
about than into them only its some could time these two may first then do any like my now over
such our man me even most made after also did many before must through back years where much way
well down should because each just those how too little state good very make world still own see
men work long get here between both life being under never day same another know while last might
us great old year off come since against go came right used take three retry network timeout model
server request reply stream token window buffer socket kernel thread memory cache disk packet`)

// seedSearchHistory stores sessions × exchanges × 2 messages of generated prose in the
// history database under home, the first session first, and says the word marker once, in
// the first session's first question. It returns that session's id.
func seedSearchHistory(b *testing.B, home string, sessions, exchanges int, marker string) string {
	b.Helper()
	db, err := history.Open(filepath.Join(home, "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	prose := func(words int) string {
		w := make([]string, words)
		for i := range w {
			w[i] = vocabulary[rng.IntN(len(vocabulary))]
		}
		return strings.Join(w, " ") + "."
	}
	first := ""
	for s := range sessions {
		sess, err := db.CreateSession()
		if err != nil {
			b.Fatal(err)
		}
		if s == 0 {
			first = sess.ID
		}
		for e := range exchanges {
			q := prose(12)
			if s == 0 && e == 0 {
				q = "tell me about the " + marker + " " + q
			}
			r, err := db.Post(sess.ID, q, "m", false)
			if err == nil {
				err = db.StartRun(r.RunID)
			}
			if err == nil {
				err = db.AppendReply(r.RunID, prose(60)+"\n\n"+prose(40), "")
			}
			if err == nil {
				err = db.FinishRun(r.RunID, stored.Finish{Status: chat.StatusSucceeded, Attempts: 1})
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	return first
}

// BenchmarkSearch runs `parley search` as a user would, on a history of 10,000 messages in
// 100 sessions: for a word said once, in the oldest session, and for two words said in most
// messages (ranking thousands of matches). Each operation is the whole process, start to
// exit, opening the database included. Afterwards the oldest session is deleted with
// `parley sessions rm`, and the rare word is no longer found.
//
//	go test -run '^$' -bench Search -benchtime 20x ./e2e
func BenchmarkSearch(b *testing.B) {
	bin := binary(b)
	home := b.TempDir()
	old := seedSearchHistory(b, home, 100, 50, "quokka")
	env := []string{"PARLEY_HOME=" + home, "HOME=" + home}
	parley := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("parley %v: %v %s", args, err, out)
		}
		return string(out)
	}
	b.Run("rare word", func(b *testing.B) {
		for b.Loop() {
			if out := parley("search", "quokka"); !strings.HasPrefix(out, old+"  ") || strings.Count(out, "\n") != 1 {
				b.Fatalf("search found %q, want the oldest session %s", out, old)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/search")
	})
	b.Run("common words", func(b *testing.B) {
		for b.Loop() {
			if out := parley("search", "retry", "network"); strings.Count(out, "\n") != 20 {
				b.Fatalf("a common word found %q", out)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/search")
	})
	parley("sessions", "rm", old)
	cmd := exec.Command(bin, "search", "quokka")
	cmd.Env = env
	if out, err := cmd.Output(); cmd.ProcessState.ExitCode() != 1 || len(out) != 0 {
		b.Fatalf("found in a deleted session: %v %q", err, out) // grep's exit 1: nothing found
	}
	fmt.Fprintf(b.Output(), "10,000 messages in 100 sessions; after sessions rm %s the rare word is no longer found\n", old)
}
