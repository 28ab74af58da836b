package history

import (
	"database/sql"
	"errors"
	"fmt"

	"parley/internal/chat"
)

// This file holds what a request carries: the context of a run, of the next send, and the
// rules of what in a session is sent (live, not compacted, pinned kept).

// SessionContext is the conversation of session sessionID as it would be sent before a new
// operator message: its live messages, under its latest system prompt. A session not stored
// (sessionID "") has none.
func (db *DB) SessionContext(sessionID string) ([]chat.Message, error) {
	msgs, _, err := db.sessionContext(sessionID, true)
	return msgs, err
}

// NextContext is SessionContext with the id of each message, and its images without their
// bytes: the chat screen weighs it against the model's window before the send (an image by
// its size), and names what the send would leave out.
func (db *DB) NextContext(sessionID string) ([]chat.Message, []int64, error) {
	return db.sessionContext(sessionID, false)
}

// sessionContext is SessionContext with each message's id, and the images' bytes withData.
func (db *DB) sessionContext(sessionID string, withData bool) ([]chat.Message, []int64, error) {
	if sessionID == "" {
		return nil, nil, nil
	}
	rows, err := db.pool().Query(`
		SELECT m.id, m.role, `+liveContent+`, `+liveReasoning+`, `+pinned+` FROM messages m
		LEFT JOIN runs r ON r.reply_id = m.id
		WHERE m.session_id = ?1 AND `+sendable+`
			AND (m.role != 'system' OR (m.content != '' AND m.id = (SELECT max(s.id) FROM messages s
				WHERE s.session_id = m.session_id AND s.role = 'system')))
		ORDER BY m.role != 'system', m.id`, sessionID)
	if err != nil {
		return nil, nil, err
	}
	return db.contextRows(rows, sessionID, withData)
}

// CompactedBefore returns the message /compact cut session sessionID at: the messages before
// it, pinned ones and system prompts aside, are left out of every request. 0 when it was
// never compacted.
func (db *DB) CompactedBefore(sessionID string) (int64, error) {
	var before int64
	err := db.pool().QueryRow(`SELECT before FROM compactions WHERE session_id = ?`, sessionID).Scan(&before)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return before, err
}

// Context returns what a run answering anchorID sends to the model: the system prompt in
// effect for the anchor (the session's last before it, unless that is a removal), then the live transcript of the
// anchor's session up to and including the anchor, leaving out empty replies and replies
// whose run is still queued or running. The anchor must be a live operator message.
func (db *DB) Context(anchorID int64) ([]chat.Message, error) {
	// One statement, so the anchor check and the transcript read the same snapshot. The anchor
	// is itself in the result, so an empty result means it is not a live operator message.
	rows, err := db.pool().Query(`
		SELECT m.id, m.role, `+liveContent+`, `+liveReasoning+`, `+pinned+` FROM messages m
		LEFT JOIN runs r ON r.reply_id = m.id
		WHERE m.session_id = (SELECT a.session_id FROM messages a WHERE a.id = ?1 AND a.role = 'user'
				AND NOT EXISTS (SELECT 1 FROM supersessions y WHERE y.message_id = a.id))
			AND m.id <= ?1 AND `+sendable+`
			AND (m.role != 'system' OR (m.content != '' AND m.id = (SELECT max(s.id) FROM messages s
				WHERE s.session_id = m.session_id AND s.role = 'system' AND s.id < ?1)))
		ORDER BY m.role != 'system', m.id`, anchorID)
	if err != nil {
		return nil, err
	}
	out, _, err := db.contextRows(rows, "", true)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no live operator message %d: %w", anchorID, ErrNotFound)
	}
	return out, nil
}

// sendable keeps a message m (joined to its run r) that a request carries: live, neither a
// reply with nothing to send (no text and no tool calls) nor one still being written, and not
// left out by /compact.
const sendable = `NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)
	AND NOT (m.role = 'assistant' AND (coalesce(r.status, '') IN ('queued', 'running')
		OR m.content = '' AND NOT EXISTS (SELECT 1 FROM reply_chunks c WHERE c.run_id = r.id AND c.kind = 'content')
			AND NOT EXISTS (SELECT 1 FROM tool_calls t WHERE t.run_id = r.id)))
	AND ` + notCompacted

// pinned selects whether message m is pinned.
const pinned = `EXISTS (SELECT 1 FROM pins p WHERE p.message_id = m.id)`

// notCompacted keeps message m in a context unless /compact left it out: before the session's
// compaction point, and neither a system prompt nor pinned.
const notCompacted = `(m.role = 'system' OR ` + pinned + ` OR m.id >= coalesce(
	(SELECT c.before FROM compactions c WHERE c.session_id = m.session_id), 0))`

// contextRows reads the messages of a context query (id, role, content, reasoning, pinned), of
// session sessionID ("": the anchor's), with the images of each, bytes and all, and their ids.
func (db *DB) contextRows(rows *sql.Rows, sessionID string, withData bool) ([]chat.Message, []int64, error) {
	var ids []int64
	out, err := readRows(rows, func(rows *sql.Rows, m *chat.Message) error {
		var id int64
		err := rows.Scan(&id, &m.Role, &m.Content, &m.Reasoning, &m.Pinned)
		ids = append(ids, id)
		return err
	})
	if err != nil || len(out) == 0 {
		return out, ids, err
	}
	if sessionID == "" {
		if err := db.pool().QueryRow(`SELECT session_id FROM messages WHERE id = ?`, ids[len(ids)-1]).Scan(&sessionID); err != nil {
			return nil, nil, err
		}
	}
	first, last := ids[0], ids[0]
	for _, id := range ids {
		first, last = min(first, id), max(last, id)
	}
	images, err := imagesOf(db.pool(), sessionID, first, last, withData)
	if err != nil {
		return nil, nil, err
	}
	calls, err := toolCallsOfReplies(db.pool(), sessionID, first, last)
	if err != nil {
		return nil, nil, err
	}
	// A reply that called tools is sent as the turns it was, each under the reply's id.
	var sent []chat.Message
	var sentIDs []int64
	for i, id := range ids {
		out[i].Images = images[id]
		turns := withTools(out[i], calls[id])
		sent = append(sent, turns...)
		for range turns {
			sentIDs = append(sentIDs, id)
		}
	}
	return sent, sentIDs, nil
}
