package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A home or history.db parley cannot use at all is one line naming it once, with the fix, and
// nothing is made or changed on the way. (Mode 0000 is refused the same way, but root reads
// through it: it was checked by hand as another user.)
func TestOpenRefusesAnUnusablePlace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		make func(t *testing.T, dir string) (path, named string)
		says string
	}{
		{"a file where the home should be", func(t *testing.T, dir string) (string, string) {
			home := filepath.Join(dir, "home")
			writeLines(t, home, []byte("notes\n"))
			return filepath.Join(home, "history.db"), home
		}, "is not a directory, so it cannot hold history.db: move it aside"},
		{"a home that is a symbolic link loop", func(t *testing.T, dir string) (string, string) {
			home := filepath.Join(dir, "home")
			os.Symlink(home, home)
			return filepath.Join(home, "history.db"), home
		}, "is a symbolic link that leads back to itself: fix the link"},
		{"a directory as history.db", func(t *testing.T, dir string) (string, string) {
			path := filepath.Join(dir, "history.db")
			os.Mkdir(path, 0o700)
			return path, path
		}, "is a directory, not a database: move it aside"},
		{"history.db a symbolic link loop", func(t *testing.T, dir string) (string, string) {
			path := filepath.Join(dir, "history.db")
			os.Symlink(path, path)
			return path, path
		}, "is a symbolic link that leads back to itself: remove it"},
		{"history.db linked to /dev/null", func(t *testing.T, dir string) (string, string) {
			path := filepath.Join(dir, "history.db")
			os.Symlink(os.DevNull, path)
			return path, path
		}, "is a device, not a database: remove it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path, named := tc.make(t, dir)
			before, _ := os.ReadDir(dir)
			db, err := Open(path)
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, named+" "+tc.says) || !strings.HasSuffix(msg, "or set PARLEY_HOME to another directory") ||
				strings.Count(msg, dir) != 1 || strings.Contains(msg, "\n") {
				t.Errorf("error %q; want one line naming %s once, saying %q, with the fix", msg, named, tc.says)
			}
			if after, _ := os.ReadDir(dir); len(after) != len(before) {
				t.Errorf("opening made files: %v, before %v", after, before)
			}
		})
	}
}
