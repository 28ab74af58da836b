package history

import (
	"database/sql"
	"errors"
	"fmt"

	"parley/internal/chat"
)

// storeImages stores the images of the operator message messageID, in order: each image's
// bytes once, by hash, however many messages carry it. An image without Data must be stored
// already (an edit carries the images of the message it replaces).
func storeImages(tx *sql.Tx, messageID int64, images []chat.Image) error {
	for i, im := range images {
		if im.Data != nil {
			if _, err := tx.Exec(`INSERT OR IGNORE INTO images (hash, mime, width, height, data) VALUES (?, ?, ?, ?, ?)`,
				im.Hash, im.MIME, im.Width, im.Height, im.Data); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(`INSERT INTO message_images (message_id, position, hash, name) VALUES (?, ?, ?, ?)`,
			messageID, i, im.Hash, im.Name); err != nil {
			return err
		}
	}
	return nil
}

// querier is what reads: the database or a transaction.
type querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

// imagesOf returns the images of the messages whose ids lie between first and last (of one
// session: ids are the session's order), by message, in the order attached; with their bytes
// when withData is set, else only what they are.
func imagesOf(q querier, sessionID string, first, last int64, withData bool) (map[int64][]chat.Image, error) {
	data := "NULL"
	if withData {
		data = "i.data"
	}
	rows, err := q.Query(`SELECT mi.message_id, mi.hash, mi.name, i.mime, i.width, i.height, length(i.data), `+data+`
		FROM message_images mi JOIN images i ON i.hash = mi.hash JOIN messages m ON m.id = mi.message_id
		WHERE m.session_id = ? AND mi.message_id BETWEEN ? AND ? ORDER BY mi.message_id, mi.position`, sessionID, first, last)
	if err != nil {
		return nil, err
	}
	type row struct {
		message int64
		image   chat.Image
	}
	all, err := readRows(rows, func(rows *sql.Rows, r *row) error {
		im := &r.image
		return rows.Scan(&r.message, &im.Hash, &im.Name, &im.MIME, &im.Width, &im.Height, &im.Bytes, &im.Data)
	})
	if err != nil || len(all) == 0 {
		return nil, err
	}
	out := map[int64][]chat.Image{}
	for _, r := range all {
		out[r.message] = append(out[r.message], r.image)
	}
	return out, nil
}

// ImageData returns the bytes of the stored image with this hash.
func (db *DB) ImageData(hash string) ([]byte, error) {
	var b []byte
	err := db.pool().QueryRow(`SELECT data FROM images WHERE hash = ?`, hash).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("image %s: %w", hash, ErrNotFound)
	}
	return b, err
}
