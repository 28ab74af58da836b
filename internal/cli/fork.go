package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"parley/history"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
)

// forkSession is `parley fork SESSION[:MSG] [--json]`: a new session holding the conversation
// of SESSION up to its message MSG (an id as export shows it; the whole conversation without
// one), linked to it; SESSION is not changed.
func forkSession(ctx context.Context, args []string, ios *IO) (int, error) {
	pos, jsonOut, err := parseJSONFlag("fork", args)
	if err != nil || len(pos) != 1 {
		return chat.ExitUsage, usagef("usage: parley fork SESSION[:MSG] [--json] (MSG: a message id, as parley export shows them)")
	}
	id, at, hasAt := strings.Cut(pos[0], ":")
	db, sess, err := openSession(ios, id)
	if err != nil {
		return chat.ExitUsage, err
	}
	defer db.Close()
	through, err := forkPoint(db, sess, at, hasAt)
	if err != nil {
		return chat.ExitUsage, err
	}
	fork, err := db.Fork(sess.ID, through)
	if err != nil {
		return chat.ExitFailed, err
	}
	if jsonOut {
		return chat.ExitOK, chat.WriteJSON(ios.Out, toSessionJSON(fork))
	}
	fmt.Fprintf(ios.Out, "%s  forked from %s %q at message %d · %s — parley --session %s goes on from it\n",
		fork.ID, sess.ID, sanitize.String(sess.Title), through, chat.Plural(fork.Messages, "message"), fork.ID)
	return chat.ExitOK, nil
}

// forkPoint is the message a fork of sess holds the conversation up to: at, a live message
// of the session, or without one the session's last.
func forkPoint(db *history.DB, sess stored.Session, at string, hasAt bool) (int64, error) {
	msgs, err := db.Transcript(sess.ID)
	if err != nil {
		return 0, err
	}
	if len(msgs) == 0 {
		return 0, usagef("session %s holds no messages to fork", sess.ID)
	}
	if !hasAt {
		return msgs[len(msgs)-1].ID, nil
	}
	n, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return 0, usagef("%q is no message id: parley export %s lists them", at, sess.ID)
	}
	for _, m := range msgs {
		if m.ID == n {
			return n, nil
		}
	}
	return 0, usagef("session %s has no live message %d: parley export %s lists them", sess.ID, n, sess.ID)
}
