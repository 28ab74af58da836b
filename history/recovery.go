package history

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// What the database could not take is appended, and synced, to a recovery file beside it
// (history.db.recovery), or, when that cannot be written either (the disk beside it is full),
// to one in the system's temporary directory named after the database. Open folds both back
// into the database once it can write, and removes them.

// recoveryRecord is one line of a recovery file.
type recoveryRecord struct {
	// DB is the database the record belongs to, Owner the handle that wrote it: its records
	// are folded back only once that handle is gone.
	DB    string `json:"db"`
	Owner string `json:"owner"`
	// Kind is "post" (an operator message and the run answering it, which the database does not
	// have), "text" (streamed text of a run) or "end" (how a run ended).
	Kind string `json:"kind"`
	// Run is the run, when the database has it; Ref names a run of a "post" record otherwise.
	Run int64  `json:"run,omitempty"`
	Ref string `json:"ref,omitempty"`
	// Session, Content and Model are a post's: the session ("" for a new one), the operator's
	// text and the model asked.
	Session string `json:"session,omitempty"`
	Content string `json:"content,omitempty"`
	Model   string `json:"model,omitempty"`
	// Images are a post's images, with their bytes.
	Images []recoveredImage `json:"images,omitempty"`
	// Reasoning is a text record's thinking (Content its answer).
	Reasoning string `json:"reasoning,omitempty"`
	// End is an end record's outcome; Cause why the run could not be stored.
	End   *recoveredEnd `json:"end,omitempty"`
	Cause string        `json:"cause,omitempty"`
	At    time.Time     `json:"at"`
}

// recoveredImage is an image as a recovery file keeps it: with its bytes, which chat.Image
// leaves out of JSON.
type recoveredImage struct {
	chat.Image
	Data []byte `json:"data"`
}

// recoveredImages puts images as a recovery file keeps them, and back.
func recoveredImages(images []chat.Image) []recoveredImage {
	var out []recoveredImage
	for _, im := range images {
		out = append(out, recoveredImage{im, im.Data})
	}
	return out
}

func (r recoveryRecord) images() []chat.Image {
	var out []chat.Image
	for _, im := range r.Images {
		im.Image.Data = im.Data
		out = append(out, im.Image)
	}
	return out
}

// recoveredEnd is a Finish as a recovery file keeps it.
type recoveredEnd struct {
	Status       chat.Status          `json:"status"`
	Retry        *chat.Classification `json:"retry,omitempty"`
	Attempts     int                  `json:"attempts"`
	Usage        chat.Usage           `json:"usage"`
	FinishReason string               `json:"finish_reason,omitempty"`
	Model        string               `json:"model,omitempty"`
	Thought      time.Duration        `json:"thought,omitempty"`
	FirstWord    time.Duration        `json:"first_word,omitempty"`
}

// recovery appends to a database's recovery files; it is safe for concurrent use.
type recovery struct {
	mu sync.Mutex
	// beside and fallback are the two places, tried in that order.
	beside, fallback string
}

func newRecovery(dbPath string) *recovery {
	sum := sha256.Sum256([]byte(dbPath))
	return &recovery{beside: dbPath + ".recovery",
		fallback: filepath.Join(os.TempDir(), "parley-recovery-"+hex.EncodeToString(sum[:6])+".jsonl")}
}

// append writes recs, synced, to the first recovery file that takes them, and returns its
// path; the error is the last place's when none did.
func (r *recovery) append(recs ...recoveryRecord) (string, error) {
	var buf bytes.Buffer
	for _, rec := range recs {
		b, err := json.Marshal(rec)
		if err != nil {
			return "", err
		}
		buf.Write(append(b, '\n'))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	for _, path := range []string{r.beside, r.fallback} {
		if err = appendSynced(path, buf.Bytes()); err == nil {
			return path, nil
		}
	}
	return "", err
}

// appendSynced appends b to the file at path, created 0600, and syncs it. A write cut short
// (a full disk) is truncated away, so a half line never follows.
func appendSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	info, statErr := f.Stat()
	if _, err = f.Write(b); err == nil {
		err = f.Sync()
	}
	if err != nil && statErr == nil {
		f.Truncate(info.Size())
	}
	return errors.Join(err, f.Close())
}

// readRecovery reads the records of a recovery file that belong to the database at dbPath.
func readRecovery(path, dbPath string) ([]recoveryRecord, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []recoveryRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var rec recoveryRecord
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.DB != dbPath {
			continue // a line cut short, or another database's
		}
		recs = append(recs, rec)
	}
	return recs, sc.Err()
}

// recoveredMessage is stored on a run whose text came back from a recovery file without an end:
// its process stopped while storage was failing.
const recoveredMessage = "the database could not store this reply as it streamed (%s); its text was kept in %s and is back"

// foldRecovery folds the recovery files back into the database, the records of handles that are
// gone, and removes what it folded. It needs the write lock: busy, it leaves them for the next
// open.
func (db *DB) foldRecovery() error {
	for _, path := range []string{db.recovery.beside, db.recovery.fallback} {
		recs, err := readRecovery(path, db.path)
		if err != nil {
			continue
		}
		if len(recs) == 0 {
			if info, err := os.Stat(path); err == nil && info.Size() == 0 {
				os.Remove(path) // a write cut short by a full disk left it empty
			}
			continue
		}
		var kept []recoveryRecord
		live := map[string]bool{}
		err = db.write(func(tx *sql.Tx) error {
			kept = kept[:0]
			runs := map[string]int64{} // a post's ref → its run
			ended := map[int64]bool{}
			var touched []int64
			causes := map[int64]string{}
			for _, rec := range recs {
				if rec.Owner != db.token && ownerAlive(db.path, rec.Owner, live) {
					kept = append(kept, rec)
					continue
				}
				run := rec.Run
				if rec.Ref != "" {
					run = runs[rec.Ref]
				}
				switch rec.Kind {
				case "post":
					r := stored.Receipt{SessionID: rec.Session}
					now := nanos(rec.At)
					if r.SessionID == "" {
						if r.SessionID, err = insertSession(tx, now); err != nil {
							return err
						}
					}
					if _, err := tx.Exec(`UPDATE sessions SET updated_at = ?2, title = CASE title WHEN '' THEN ?3 ELSE title END
						WHERE id = ?1`, r.SessionID, now, title(titleText(rec.Content, rec.images()))); err != nil {
						return err
					}
					if err := db.newTurn(tx, &r, rec.Content, rec.images(), 0, rec.Model, now); err != nil {
						return err
					}
					if _, err := tx.Exec(`UPDATE runs SET status = 'running', started_at = ? WHERE id = ?`, now, r.RunID); err != nil {
						return err
					}
					runs[rec.Ref] = r.RunID
				case "text":
					if run == 0 {
						continue
					}
					if err := foldChunks(tx, run); err != nil {
						return err
					}
					if _, err := tx.Exec(`UPDATE messages SET content = content || ?, reasoning = reasoning || ?
						WHERE id = (SELECT reply_id FROM runs WHERE id = ?)`, rec.Content, rec.Reasoning, run); err != nil {
						return err
					}
					touched, causes[run] = append(touched, run), rec.Cause
				case "end":
					if run == 0 || rec.End == nil {
						continue
					}
					if err := finishRecovered(tx, run, *rec.End, nanos(rec.At)); err != nil {
						return err
					}
					ended[run] = true
				}
			}
			for _, run := range touched {
				if ended[run] {
					continue
				}
				msg := fmt.Sprintf(recoveredMessage, causes[run], path)
				if _, err := tx.Exec(`UPDATE runs SET status = 'interrupted', finished_at = ?, retryable = 1, retry_class = ?,
					retry_label = ?, retry_message = ? WHERE id = ? AND status IN ('running', 'queued')`,
					nanos(db.clock.Now()), string(chat.Interrupted), chat.Label(chat.Interrupted), msg, run); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			if FaultOf(err).Transient() {
				return nil // another parley writes: the next open folds them
			}
			return err
		}
		if err := rewriteRecovery(path, kept); err != nil {
			return err
		}
	}
	return nil
}

// finishRecovered ends run as a recovery file says it ended, whoever owned it.
func finishRecovered(tx *sql.Tx, run int64, e recoveredEnd, at int64) error {
	if err := foldChunks(tx, run); err != nil {
		return err
	}
	c := storedOf(e.Retry)
	_, err := tx.Exec(`UPDATE runs SET status = ?1, attempts = ?2, prompt_tokens = ?3, completion_tokens = ?4,
		retryable = ?5, retry_class = ?6, retry_after_until = ?7, retry_label = ?8, retry_message = ?9, finished_at = ?10,
		reasoning_tokens = ?11, finish_reason = ?12, retry_rule = ?13, thought_ms = ?15, first_word_ms = ?16
		WHERE id = ?14 AND status IN ('running', 'queued', 'interrupted')`,
		e.Status, e.Attempts, e.Usage.PromptTokens, e.Usage.CompletionTokens, c.retryable, c.class, c.after, c.label,
		c.message, at, e.Usage.ReasoningTokens, e.FinishReason, c.rule, run, e.Thought.Milliseconds(), firstWordMS(e.FirstWord))
	if err == nil && e.Model != "" {
		_, err = tx.Exec(`UPDATE runs SET model = ? WHERE id = ?`, e.Model, run)
	}
	return err
}

// rewriteRecovery leaves only recs in the recovery file at path, removing it when none are left.
func rewriteRecovery(path string, recs []recoveryRecord) error {
	if len(recs) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	var buf bytes.Buffer
	for _, rec := range recs {
		b, _ := json.Marshal(rec)
		buf.Write(append(b, '\n'))
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// PostToRecovery keeps an operator message that the database could not store (Post failed with
// cause) in the recovery file, synced, with a run to answer it: the message may then be sent,
// and its reply is kept too (Record, with the receipt's RunID, below 0). Open folds both into
// the database when it can. It fails when the recovery file cannot be written either.
func (db *DB) PostToRecovery(sessionID, content, model string, cause error, images ...chat.Image) (stored.Receipt, error) {
	var b [7]byte
	rand.Read(b[:])
	var n int64
	for _, c := range b {
		n = n<<8 | int64(c)
	}
	r := stored.Receipt{SessionID: sessionID, RunID: -(n + 1)}
	rec := recoveryRecord{DB: db.path, Owner: db.token, Kind: "post", Ref: refOf(r.RunID), Session: sessionID,
		Content: content, Images: recoveredImages(images), Model: model, Cause: db.storageError(cause).Error(), At: db.clock.Now()}
	if _, err := db.recovery.append(rec); err != nil {
		return stored.Receipt{}, fmt.Errorf("%w; and the recovery file could not be written either: %v", db.storageError(cause), err)
	}
	db.unsaved.Store(r.RunID, rec.Cause)
	return r, nil
}

// refOf names the run runID, below 0, in the recovery file.
func refOf(runID int64) string { return strconv.FormatInt(-runID, 36) }
