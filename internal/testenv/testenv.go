// Package testenv says what a test needs from the machine beyond Go. On a machine with only
// Go such a test skips with one line naming what to install; where everything must run (CI,
// which sets CI=true, or PARLEY_TEST_ALL=1) a missing tool fails it, so a skip never hides
// that nothing ran.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Strict reports whether a missing tool fails a test rather than skipping it.
func Strict() bool {
	return os.Getenv("CI") == "true" || os.Getenv("PARLEY_TEST_ALL") == "1"
}

// Missing skips t, or fails it under Strict, saying what is missing and how to install it.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	msg := what + " is missing: " + install + " (.ci/run does)"
	if Strict() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Tool returns the path of the program name, or skips t (fails it under Strict) naming the
// install.
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name, install)
	}
	return path
}
