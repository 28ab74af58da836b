package cli

import (
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := u.run(args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "parley ") || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, "go1.") {
			t.Errorf("%v: exit %d, %q %q", args, r.code, r.stdout, r.stderr)
		}
	}
}
