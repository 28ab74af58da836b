package history

import (
	"database/sql"
	"fmt"
	"slices"

	"parley/history/stored"
	"parley/internal/chat"
)

// This file reads the versions of replies: every reply to one turn (Versions), and their
// numbering across a session, for the mark a reply with other versions shows (‹ 2/3 ›).

// Versions returns every reply ever made to the operator message anchorID, superseded ones
// too, oldest first: the replies to the operator messages it was edited from or into (Edit)
// are versions of it as well.
func (db *DB) Versions(anchorID int64) ([]stored.Message, error) {
	out, err := db.queryMessages(`WHERE m.anchor_id IN (`+editChain+`) AND m.role = 'assistant'`, anchorID)
	if err == nil && len(out) == 0 {
		// Every operator message has at least the reply Post made for it.
		return nil, fmt.Errorf("operator message %d: %w", anchorID, ErrNotFound)
	}
	return out, err
}

// VersionMarks returns the place of each reply of the session that has other versions, by
// message id: the replies to one operator message and to the messages it was edited from or
// into (as Versions counts them), oldest first. A reply that produced nothing (a retry that
// failed before its first word) is not a version, unless it is the live one. One query reads
// the session's messages; the chains are followed here.
func (db *DB) VersionMarks(sessionID string) (map[int64]stored.Mark, error) {
	rows, err := db.pool().Query(`SELECT m.id, m.role, coalesce(m.anchor_id, 0), coalesce(m.edit_of, 0),
		`+withText+` OR NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)
		FROM messages m WHERE m.session_id = ? AND m.role IN ('user', 'assistant') ORDER BY m.id`, sessionID)
	if err != nil {
		return nil, err
	}
	type msg struct {
		id, anchor, editOf int64
		role               chat.Role
		counts             bool
	}
	msgs, err := readRows(rows, func(rows *sql.Rows, m *msg) error {
		return rows.Scan(&m.id, &m.role, &m.anchor, &m.editOf, &m.counts)
	})
	if err != nil {
		return nil, err
	}
	editOf := map[int64]int64{}
	for _, m := range msgs {
		if m.role == chat.RoleUser && m.editOf != 0 {
			editOf[m.id] = m.editOf
		}
	}
	root := func(id int64) int64 {
		for seen := 0; editOf[id] != 0 && seen < len(msgs); seen++ {
			id = editOf[id]
		}
		return id
	}
	turns := map[int64][]int64{}
	for _, m := range msgs {
		if m.role == chat.RoleAssistant && m.counts {
			r := root(m.anchor)
			turns[r] = append(turns[r], m.id)
		}
	}
	marks := map[int64]stored.Mark{}
	for _, ids := range turns {
		if len(ids) < 2 {
			continue
		}
		slices.Sort(ids)
		for i, id := range ids {
			marks[id] = stored.Mark{N: i + 1, Of: len(ids)}
		}
	}
	return marks, nil
}
