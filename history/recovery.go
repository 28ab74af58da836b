package history

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// What the database could not take is appended, and synced, to a recovery file beside it
// (history.db.recovery), or, when that cannot be written either (the disk beside it is full),
// to one named after the database in a folder of the user's own under the system's temporary
// directory (recoveryfile.go says how both are kept the user's). Open folds both back into the
// database once it can write, and removes them; a file it could not read every line of is kept.

// recoveryRecord is one line of a recovery file.
type recoveryRecord struct {
	// DB is the database the record belongs to, Owner the handle that wrote it: its records
	// are folded back only once that handle is gone. Seq numbers the handle's records from 1.
	DB    string `json:"db"`
	Owner string `json:"owner"`
	Seq   int64  `json:"seq"`
	// Kind is "post" (an operator message and the run answering it, which the database does not
	// have), "text" (streamed text of a run) or "end" (how a run ended).
	Kind string `json:"kind"`
	// Run is the run, when the database has it; Ref names a run of a "post" record otherwise.
	Run int64  `json:"run,omitempty"`
	Ref string `json:"ref,omitempty"`
	// Session and Model are a post's: the session ("" for a new one) and the model asked.
	Session string `json:"session,omitempty"`
	Model   string `json:"model,omitempty"`
	// Images are a post's images, with their bytes.
	Images []recoveredImage `json:"images,omitempty"`
	// End is an end record's outcome; Cause why the run could not be stored.
	End   *recoveredEnd `json:"end,omitempty"`
	Cause string        `json:"cause,omitempty"`
	At    time.Time     `json:"at"`
	// Reasoning and Content are a text record's thinking and answer, or a post's operator
	// text (Content). They come last: a line cut short keeps the text before the cut.
	Reasoning string `json:"reasoning,omitempty"`
	Content   string `json:"content,omitempty"`
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
	// seq is the number of the last record appended.
	seq int64
}

func newRecovery(dbPath string) *recovery {
	sum := sha256.Sum256([]byte(dbPath))
	return &recovery{beside: dbPath + ".recovery",
		fallback: filepath.Join(fallbackDir(), "recovery-"+hex.EncodeToString(sum[:6])+".jsonl")}
}

// append writes recs, numbered and synced, to the first recovery file that takes them, and
// returns its path; the error says why neither did. Records that could not be written keep
// their numbers: folding back, the gap says they are missing.
func (r *recovery) append(recs ...recoveryRecord) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var buf bytes.Buffer
	for _, rec := range recs {
		r.seq++
		rec.Seq = r.seq
		line, err := encodeLine(rec)
		if err != nil {
			return "", err
		}
		buf.Write(line)
	}
	besideErr := appendSynced(r.beside, buf.Bytes())
	if besideErr == nil {
		return r.beside, nil
	}
	err := ownDir(filepath.Dir(r.fallback))
	if err == nil {
		err = appendSynced(r.fallback, buf.Bytes())
	}
	if err != nil {
		return "", fmt.Errorf("%v; %v", besideErr, err)
	}
	return r.fallback, nil
}

// recoveredMessage is stored on a run whose text came back from a recovery file without an end:
// its process stopped while storage was failing.
const recoveredMessage = "the database could not store this reply as it streamed (%s); its text was kept in %s and is back"

// incompleteMessage is stored, interrupted, on a run whose lines in the recovery file could not
// all be read, with what is missing: never called succeeded with a hole in it.
const incompleteMessage = "the database could not store this reply as it streamed (%s); its text was kept in %s, " +
	"but %s: what could be read is back, and the file is kept as %s"

// foldLine is a line of a recovery file being folded back, with the file it is in.
type foldLine struct {
	readLine
	path string
	// gapBefore is set when a record of its handle before it is missing.
	gapBefore bool
}

// foldRecovery folds the recovery files back into the database, the records of handles that are
// gone, each once however often it was written, and removes what it folded. A file with a line
// that could not be read, or missing one, is kept under another name, and the runs it leaves
// incomplete are stored interrupted, saying what is missing. It needs the write lock: busy, it
// leaves the files for the next open. A file that is not the user's own fails it, naming it.
func (db *DB) foldRecovery() error {
	type file struct {
		path    string
		lines   []readLine
		damaged int
		kept    string
	}
	var files []*file
	for _, path := range []string{db.recovery.beside, db.recovery.fallback} {
		if path == db.recovery.fallback {
			if _, err := os.Lstat(filepath.Dir(path)); err != nil || ownDir(filepath.Dir(path)) != nil {
				continue // nothing of the user's can be in a folder that is not theirs
			}
		}
		lines, damaged, err := readRecoveryFile(path)
		if err != nil {
			return err
		}
		if len(lines) == 0 && damaged == 0 {
			if info, err := os.Lstat(path); err == nil && info.Size() == 0 {
				os.Remove(path) // a write cut short by a full disk left it empty
			}
			continue
		}
		files = append(files, &file{path: path, lines: lines, damaged: damaged})
	}
	if len(files) == 0 {
		return nil
	}
	// The records of gone handles, each once, in the order each handle wrote them; the others
	// stay for later.
	type key struct {
		owner string
		seq   int64
	}
	seen := map[key]bool{}
	leave := map[string][][]byte{}
	live := map[string]bool{}
	owners := map[string]int{}
	var fold []foldLine
	for _, f := range files {
		for _, l := range f.lines {
			k := key{l.rec.Owner, l.rec.Seq}
			if seen[k] {
				continue // written twice: applied once
			}
			seen[k] = true
			if l.rec.DB != db.path || l.rec.Owner != db.token && ownerAlive(db.path, l.rec.Owner, live) {
				leave[f.path] = append(leave[f.path], l.raw)
				continue
			}
			if _, ok := owners[l.rec.Owner]; !ok {
				owners[l.rec.Owner] = len(owners)
			}
			fold = append(fold, foldLine{readLine: l, path: f.path})
		}
	}
	slices.SortStableFunc(fold, func(a, b foldLine) int {
		return cmp.Or(cmp.Compare(owners[a.rec.Owner], owners[b.rec.Owner]), cmp.Compare(a.rec.Seq, b.rec.Seq))
	})
	var damaged int
	incomplete := false
	for i := range fold {
		prev := int64(0)
		if i > 0 && fold[i-1].rec.Owner == fold[i].rec.Owner {
			prev = fold[i-1].rec.Seq
		}
		fold[i].gapBefore = fold[i].rec.Seq != prev+1
		incomplete = incomplete || fold[i].gapBefore || fold[i].cut
	}
	for _, f := range files {
		damaged += f.damaged
		if f.damaged > 0 || incomplete {
			var err error
			if f.kept, err = keepAside(f.path); err != nil {
				return err
			}
		}
	}
	keptAs := func(path string) string {
		for _, f := range files {
			if f.path == path {
				return cmp.Or(f.kept, path)
			}
		}
		return path
	}
	err := db.write(func(tx *sql.Tx) error {
		runs := map[string]int64{} // a post's ref → its run
		var touched, endedRuns []int64
		ends := map[int64]recoveryRecord{}
		causes := map[int64]string{}
		where := map[int64]string{}
		missing := map[int64][]string{}
		lastRun := map[string]int64{} // a handle → the run of its last record
		var err error
		for _, l := range fold {
			rec := l.rec
			run := rec.Run
			if rec.Ref != "" {
				run = runs[rec.Ref]
			}
			if l.gapBefore {
				// The missing records were the previous run's, unless it had ended, or this
				// one's, unless it starts here.
				if p := lastRun[rec.Owner]; p != 0 {
					if _, ended := ends[p]; !ended {
						missing[p] = append(missing[p], "a piece of it could not be read")
					}
				}
				if rec.Kind != "post" && run != 0 {
					missing[run] = append(missing[run], "a piece of it could not be read")
				}
			}
			switch rec.Kind {
			case "post":
				r := stored.Receipt{SessionID: rec.Session}
				now := nanos(rec.At)
				var known bool
				if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?)`, r.SessionID).Scan(&known); err != nil {
					return err
				}
				if !known { // a new session, or one of a file that left the path
					r.SessionID = ""
				}
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
				runs[rec.Ref], run = r.RunID, r.RunID
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
				touched, causes[run], where[run] = append(touched, run), rec.Cause, l.path
				if l.cut {
					missing[run] = append(missing[run], "its last piece was cut short")
				}
			case "end":
				if run == 0 || rec.End == nil {
					continue
				}
				if _, ok := ends[run]; !ok {
					endedRuns = append(endedRuns, run)
				}
				ends[run] = rec
				causes[run], where[run] = cmp.Or(causes[run], rec.Cause), cmp.Or(where[run], l.path)
			}
			lastRun[rec.Owner] = run
		}
		ended := map[int64]bool{}
		for _, run := range endedRuns {
			if len(missing[run]) > 0 {
				continue
			}
			if err := finishRecovered(tx, run, *ends[run].End, nanos(ends[run].At)); err != nil {
				return err
			}
			ended[run] = true
		}
		if damaged > 0 {
			lost := chat.Plural(damaged, "line") + " of the file could not be read"
			for _, run := range append(touched, endedRuns...) {
				if !ended[run] {
					missing[run] = append(missing[run], lost)
				}
			}
		}
		for _, run := range append(touched, slices.Collect(maps.Keys(missing))...) {
			if ended[run] {
				continue
			}
			ended[run] = true
			msg := fmt.Sprintf(recoveredMessage, causes[run], where[run])
			if len(missing[run]) > 0 {
				msg = fmt.Sprintf(incompleteMessage, causes[run], where[run], strings.Join(slices.Compact(missing[run]), ", "),
					keptAs(where[run]))
			}
			if _, err := tx.Exec(`UPDATE runs SET status = 'interrupted', finished_at = ?, retryable = 1, retry_class = ?,
				retry_label = ?, retry_message = ? WHERE id = ? AND status IN ('running', 'queued')`,
				nanos(db.clock.Now()), string(chat.Interrupted), chat.Label(chat.Interrupted), msg, run); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for _, f := range files {
			if f.kept != "" {
				os.Remove(f.kept)
			}
		}
		if FaultOf(err).Transient() {
			return nil // another parley writes: the next open folds them
		}
		return err
	}
	for _, f := range files {
		if err := writeRecoveryFile(f.path, leave[f.path]); err != nil {
			return err
		}
	}
	return nil
}

// keepAside links the recovery file at path under a new name beside it, which no open folds
// back, and returns that name.
func keepAside(path string) (string, error) {
	for n := 1; ; n++ {
		kept := fmt.Sprintf("%s.kept-%d", path, n)
		err := os.Link(path, kept)
		if !errors.Is(err, os.ErrExist) {
			return kept, err
		}
	}
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

// PostToRecovery keeps an operator message that the database could not store (Post failed with
// cause) in the recovery file, synced, with a run to answer it: the message may then be sent,
// and its reply is kept too (Record, with the receipt's RunID, below 0). Open folds both into
// the database when it can. It fails when the recovery file cannot be written either.
func (db *DB) PostToRecovery(sessionID, content, model string, cause error, images ...chat.Image) (stored.Receipt, error) {
	r := stored.Receipt{SessionID: sessionID, RunID: newRef()}
	rec := recoveryRecord{DB: db.path, Owner: db.token, Kind: "post", Ref: refOf(r.RunID), Session: sessionID,
		Content: content, Images: recoveredImages(images), Model: model, Cause: db.storageError(cause).Error(), At: db.clock.Now()}
	if _, err := db.recovery.append(rec); err != nil {
		return stored.Receipt{}, fmt.Errorf("%w; and the recovery file could not be written either: %v", db.storageError(cause), err)
	}
	db.unsaved.Store(r.RunID, rec.Cause)
	return r, nil
}

// newRef returns a new id, below 0, for a run the database does not have.
func newRef() int64 {
	var b [7]byte
	rand.Read(b[:])
	var n int64
	for _, c := range b {
		n = n<<8 | int64(c)
	}
	return -(n + 1)
}

// refOf names the run runID, below 0, in the recovery file.
func refOf(runID int64) string { return strconv.FormatInt(-runID, 36) }
