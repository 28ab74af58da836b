package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A missing tool skips on a machine with only Go and fails where everything must run: the
// test runs itself in a child process to see each.
func TestMissingSkipsOrFails(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		Tool(t, "parley-no-such-tool", "apt-get install parley-no-such-tool")
		t.Fatal("Tool returned for a program that is not on PATH")
	}
	for _, c := range []struct {
		env  []string
		fail bool
	}{
		{[]string{"CI=", "PARLEY_TEST_ALL="}, false},
		{[]string{"CI=true", "PARLEY_TEST_ALL="}, true},
		{[]string{"CI=", "PARLEY_TEST_ALL=1"}, true},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingSkipsOrFails$", "-test.v")
		cmd.Env = append(append(os.Environ(), "TESTENV_CHILD=1"), c.env...)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != c.fail {
			t.Errorf("%v: failed %v, want %v:\n%s", c.env, failed, c.fail, out)
		}
		if !strings.Contains(string(out), "parley-no-such-tool is missing: apt-get install parley-no-such-tool (.ci/run does)") {
			t.Errorf("%v: the line names neither the tool nor its install:\n%s", c.env, out)
		}
		if !c.fail && !strings.Contains(string(out), "--- SKIP") {
			t.Errorf("%v: not skipped:\n%s", c.env, out)
		}
	}
}
