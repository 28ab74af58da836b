package budget

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"parley/retry"
)

// Two handles on one file count against one budget; the file and its directory are the
// user's alone, and a file open to others is refused, naming the fix.
func TestOneBudgetInOneFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "parley")
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	budget := retry.DefaultRetryBudget()
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	for i := range 20 {
		if err := a.RecordSend("u", now, false, budget.Window); err != nil {
			t.Fatal(i, err)
		}
	}
	taken := 0
	for _, h := range []*File{a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b} {
		ok, _, err := h.TakeRetry("u", now, budget.Window, budget.Next)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			taken++
		}
	}
	if taken != 12 {
		t.Errorf("%d retries taken through two handles, want the budget's 12", taken)
	}
	if ok, _, _ := b.TakeRetry("other", now, budget.Window, budget.Next); !ok {
		t.Error("another route shares the budget")
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, FileName): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %o", path, fi, err, want)
		}
	}
	os.Chmod(filepath.Join(dir, FileName), 0o644)
	if _, err := Open(dir); err == nil {
		t.Error("a budget file open to other users was used")
	}
}
