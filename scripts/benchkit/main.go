// Command benchkit helps scripts/bench.sh drive the built parley as a user would:
//
//	benchkit wait HOME     waits until the newest reply in HOME's history has ended and prints
//	                       its status, its length in bytes and its run's seconds from start to end
//	benchkit seed HOME N   stores a session of N messages (N/2 exchanges with markdown replies)
//	                       in HOME's history and prints its id
//
// wait and seed open the database through parley's history package, as a second parley
// process would. The latency commands (latency.go) drive parley in a tmux pane and time what
// reaches its screen.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"parley/history"
	"parley/history/stored"
	"parley/internal/chat"
)

func main() {
	if len(os.Args) < 3 {
		fail("usage: benchkit wait HOME | seed HOME N | " + latencyUsage())
	}
	if cmd, ok := latencyCommands[os.Args[1]]; ok {
		if err := runLatency(os.Args[1], cmd, os.Args[2:]); err != nil {
			fail(err.Error())
		}
		return
	}
	db, err := history.Open(filepath.Join(os.Args[2], "history.db"))
	if err != nil {
		fail(err.Error())
	}
	defer db.Close()
	switch os.Args[1] {
	case "wait":
		err = wait(db, 3*time.Minute)
	case "seed":
		var n int
		if len(os.Args) > 3 {
			n, err = strconv.Atoi(os.Args[3])
		}
		if n < 2 || err != nil {
			fail("benchkit seed: N must be a number of messages, at least 2")
		}
		err = seed(db, n)
	default:
		err = errors.New("unknown command " + os.Args[1])
	}
	if err != nil {
		db.Close()
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "benchkit:", msg)
	os.Exit(1)
}

// wait polls until the newest session's last reply has a run that ended. Only the run's row is
// read while it streams, so polling costs next to nothing.
func wait(db *history.DB, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var runID, replyID int64
	var sessionID string
	for ; ; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			return errors.New("timed out waiting for the reply to end")
		}
		if runID == 0 {
			s, err := db.LatestSession()
			if errors.Is(err, history.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			msgs, err := db.Transcript(s.ID)
			if err != nil {
				return err
			}
			if n := len(msgs); n > 0 && msgs[n-1].Role == chat.RoleAssistant {
				runID, replyID, sessionID = msgs[n-1].RunID, msgs[n-1].ID, s.ID
			}
			continue
		}
		r, err := db.Run(runID)
		if err != nil {
			return err
		}
		switch r.Status {
		case chat.StatusQueued, chat.StatusRunning:
			continue
		}
		msgs, err := db.Transcript(sessionID)
		if err != nil {
			return err
		}
		size := 0
		for _, m := range msgs {
			if m.ID == replyID {
				size = len(m.Content)
			}
		}
		fmt.Printf("%s %d %.3f\n", r.Status, size, r.FinishedAt.Sub(r.StartedAt).Seconds())
		return nil
	}
}

// seed stores n messages in a new session, each reply a few markdown blocks, and prints the
// session's id.
func seed(db *history.DB, n int) error {
	s, err := db.CreateSession()
	if err != nil {
		return err
	}
	for i := range n / 2 {
		rc, err := db.Post(s.ID, fmt.Sprintf("Question %d: how does the retry banner count down?", i+1), "seed", false)
		if err != nil {
			return err
		}
		if err := db.StartRun(rc.RunID); err != nil {
			return err
		}
		if err := db.AppendReply(rc.RunID, seedReply(i+1), ""); err != nil {
			return err
		}
		if err := db.FinishRun(rc.RunID, stored.Finish{Status: chat.StatusSucceeded, Attempts: 1}); err != nil {
			return err
		}
	}
	fmt.Println(s.ID)
	return nil
}

func seedReply(i int) string {
	return strings.Join([]string{
		fmt.Sprintf("Answer **%d**: the banner counts down on the injected clock and `esc` stops it.", i),
		"- the wait doubles after each attempt\n- it is capped at five minutes",
		"```go\nfor attempt := 1; ; attempt++ {\n\twait = min(2*wait, limit)\n}\n```",
		fmt.Sprintf("That is all for reply %d.", i),
	}, "\n\n")
}
