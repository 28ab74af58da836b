package history

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
)

// helperEnv, when set, makes the test binary act as a second parley process on the database
// it names: see runHelper.
const helperEnv = "PARLEY_HISTORY_TEST_HELPER_DB"

func TestMain(m *testing.M) {
	if path := os.Getenv(noRoomEnv); path != "" {
		if err := openWithNoRoom(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if path := os.Getenv(helperEnv); path != "" {
		if err := runHelper(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runHelper opens the database, starts a run that streams some text, prints the run id and
// then waits, with the run still running, until its stdin closes or it is killed.
func runHelper(path string) error {
	db, err := Open(path)
	if err != nil {
		return err
	}
	s, err := db.CreateSession()
	if err != nil {
		return err
	}
	r, err := db.Post(s.ID, "question from the other process", "m", false)
	if err != nil {
		return err
	}
	if err := db.StartRun(r.RunID); err != nil {
		return err
	}
	if err := db.AppendReply(r.RunID, "half an answer", ""); err != nil {
		return err
	}
	fmt.Println(r.RunID, db.token)
	io.Copy(io.Discard, os.Stdin)
	return nil
}

// startRunning posts to a new session and starts the run, with some text streamed.
func startRunning(t *testing.T, db *DB, text string) stored.Receipt {
	t.Helper()
	r := post(t, db, newSession(t, db).ID, "q")
	streaming(t, db, r, text)
	return r
}

// assertInterrupted checks that run id was interrupted with its text kept.
func assertInterrupted(t *testing.T, db *DB, id int64, text string) {
	t.Helper()
	run, err := db.Run(id)
	if err != nil {
		t.Fatal(err)
	}
	want := chat.Classification{Retryable: true, Class: chat.Interrupted, Label: "Interrupted",
		Message: "parley stopped while this reply was streaming"}
	if run.Status != chat.StatusInterrupted || run.Retry == nil || *run.Retry != want || run.FinishedAt.IsZero() {
		t.Errorf("run %d = %+v, want interrupted with %+v", id, run, want)
	}
	if got := replyText(t, db, id); got != text {
		t.Errorf("reply of run %d = %q, want its partial text %q kept", id, got, text)
	}
}

func TestRecoveryLeavesLiveOwnersAlone(t *testing.T) {
	t.Parallel()
	a := openTemp(t)
	r := startRunning(t, a, "still going")
	b := openAgain(t, a) // Open recovers: a is alive

	if ids, err := b.RecoverInterrupted(); err != nil || len(ids) != 0 {
		t.Errorf("RecoverInterrupted with the owner alive = %v, %v", ids, err)
	}
	if ids, err := a.RecoverInterrupted(); err != nil || len(ids) != 0 {
		t.Errorf("the owner recovered its own run: %v, %v", ids, err)
	}
	run, err := b.Run(r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != chat.StatusRunning || run.Retry != nil {
		t.Errorf("run of a live owner = %+v, want untouched", run)
	}
	// The owner carries on.
	if err := a.AppendReply(r.RunID, ", and done", ""); err != nil {
		t.Fatal(err)
	}
	if err := a.FinishRun(r.RunID, stored.Finish{Status: chat.StatusSucceeded}); err != nil {
		t.Fatal(err)
	}
}

func TestRecoveryAfterOwnerClosed(t *testing.T) {
	t.Parallel()
	a := openTemp(t)
	b := openAgain(t, a)
	r := startRunning(t, a, "partial")
	other := startRunning(t, b, "b's own") // b's runs are not b's to recover
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	ids, err := b.RecoverInterrupted()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []int64{r.RunID}) {
		t.Errorf("recovered %v, want [%d]", ids, r.RunID)
	}
	assertInterrupted(t, b, r.RunID, "partial")
	if run, _ := b.Run(other.RunID); run.Status != chat.StatusRunning {
		t.Errorf("b's own run = %s, want running", run.Status)
	}
	if ids, err := b.RecoverInterrupted(); err != nil || len(ids) != 0 {
		t.Errorf("second recovery = %v, %v; want nothing", ids, err)
	}
}

func TestRecoveryAfterOwnerCrashed(t *testing.T) {
	t.Parallel()
	a := openTemp(t)
	r1 := startRunning(t, a, "first")
	r2 := startRunning(t, a, "second")
	lock := lockPath(a.Path(), a.token)
	b := crash(t, a) // the lock file stays
	assertInterrupted(t, b, r1.RunID, "first")
	assertInterrupted(t, b, r2.RunID, "second")
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale lock file: %v, want it removed", err)
	}
	// Interrupted is final: it cannot be resumed, only regenerated.
	if err := b.FinishRun(r1.RunID, stored.Finish{Status: chat.StatusSucceeded}); !errors.Is(err, ErrTransition) {
		t.Errorf("finishing an interrupted run: %v, want ErrTransition", err)
	}
	if _, err := b.Regenerate(r1.AnchorID, "m", false); err != nil {
		t.Errorf("regenerating an interrupted reply: %v", err)
	}
}

func TestRecoveryWithSecondProcess(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+db.Path())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper process: %v", err)
	}
	idText, token, _ := strings.Cut(strings.TrimSpace(line), " ")
	runID, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		t.Fatalf("helper printed %q", line)
	}

	// The other process is alive: its run is not ours to touch, now or on a fresh Open.
	if ids, err := db.RecoverInterrupted(); err != nil || len(ids) != 0 {
		t.Errorf("recovered %v, %v while the owner lives", ids, err)
	}
	openAgain(t, db)
	run, err := db.Run(runID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != chat.StatusRunning || run.Owner != token {
		t.Errorf("live process's run = %+v", run)
	}

	// It dies without a word.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	ids, err := db.RecoverInterrupted()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []int64{runID}) {
		t.Errorf("recovered %v, want [%d]", ids, runID)
	}
	assertInterrupted(t, db, runID, "half an answer")
	if _, err := os.Stat(lockPath(db.Path(), token)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dead process's lock file: %v, want it removed", err)
	}
}

func TestRecoveryInterruptsRunsLeftQueued(t *testing.T) {
	t.Parallel()
	a := openTemp(t)
	s := newSession(t, a)
	running := startRunning(t, a, "half")
	queued := post(t, a, s.ID, "asked while another reply streamed")
	b := openAgain(t, a)
	if run, _ := b.Run(queued.RunID); run.Status != chat.StatusQueued {
		t.Fatalf("a live owner's queued run = %s, want queued", run.Status)
	}
	// A crash: the kernel drops the lock and nothing is finished.
	a.lock.Close()
	a.lock = nil
	ids, err := b.RecoverInterrupted()
	if err != nil || !reflect.DeepEqual(ids, []int64{running.RunID, queued.RunID}) {
		t.Fatalf("recovered %v (%v), want [%d %d]", ids, err, running.RunID, queued.RunID)
	}
	run, err := b.Run(queued.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != chat.StatusInterrupted || run.Retry == nil || !run.Retry.Retryable ||
		run.Retry.Message != "parley stopped before this reply was requested" {
		t.Fatalf("queued run after recovery = %+v", run)
	}
	if _, err := b.Regenerate(queued.AnchorID, "m", false); err != nil {
		t.Fatalf("regenerating the unanswered message: %v", err)
	}
}
