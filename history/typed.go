package history

// Typed returns what the operator sent on the chat screen (sessions it sent in, see
// SetInteractive) in sessions other than except, newest first, each text once, at most limit:
// the screen's walk through earlier messages goes on into them after the open session's.
// Print mode's prompts (a piped diff) are left out.
func (db *DB) Typed(except string, limit int) ([]string, error) {
	rows, err := db.pool().Query(`SELECT m.content FROM messages m JOIN sessions s ON s.id = m.session_id
		WHERE m.role = 'user' AND m.session_id != ? AND m.content != '' AND s.last_interactive_at IS NOT NULL
		ORDER BY m.id DESC`, except)
	if err != nil {
		return nil, db.readError(err)
	}
	defer rows.Close()
	var out []string
	seen := map[string]bool{}
	for len(out) < limit && rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return nil, db.readError(err)
		}
		if !seen[text] {
			seen[text] = true
			out = append(out, text)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, db.readError(err)
	}
	return out, nil
}
