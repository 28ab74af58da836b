// Package testenv says what a test needs from the machine beyond Go. On a machine with only
// Go such a test skips with one line naming what to install; where everything must run (CI,
// which sets CI=true, or PARLEY_TEST_ALL=1) a missing tool fails it, so a skip never hides
// that nothing ran.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// NodeModule returns the absolute path of file in the npm package pkg that the package.json of
// dir pins (dir is a folder of the repository, such as scripts/mcp, that .ci/run installs with
// npm ci). A test that needs one skips under -short, which needs only Go; a missing node or
// package skips it on a machine with only Go, naming the install, and fails it under Strict.
func NodeModule(t testing.TB, dir, pkg, file string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs node and the npm packages of " + dir + "; -short needs only Go")
	}
	Tool(t, "node", "apt-get install nodejs npm, then npm ci --prefix "+dir)
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "..", dir, "node_modules", pkg, file)
	if _, err := os.Stat(path); err != nil {
		Missing(t, pkg, "npm ci --prefix "+dir+" from the repository's root")
	}
	return path
}
