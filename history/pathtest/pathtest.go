// Package pathtest holds what history's tests and the end-to-end tests both do to a database
// file while a parley has it open: the ways the file leaves its path.
package pathtest

import (
	"os"
	"testing"
)

// Leaving is one way the file at a database's path stops being the file parley opened.
type Leaving struct {
	Name string
	// Says is what parley says of the file, after its path.
	Says string
	// Leave makes the file leave path; backup is a copy of the database taken before.
	Leave func(t *testing.T, path, backup string)
	// Sessions is how many sessions the database at the path holds once the run is folded
	// back into it: the backup's and the run's, or the run's alone.
	Sessions int
}

// Leavings are the ways: a backup restored by renaming it into place, and the file deleted.
var Leavings = []Leaving{
	{"replaced", "was replaced while parley had it open", func(t *testing.T, path, backup string) {
		if err := os.Rename(backup, path); err != nil {
			t.Fatal(err)
		}
	}, 2},
	{"deleted", "was deleted while parley had it open", func(t *testing.T, path, _ string) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}, 1},
}
