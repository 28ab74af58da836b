package clipboard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// env is an environment of the variables given, name=value.
func env(vars ...string) func(string) string {
	return func(name string) string {
		for _, v := range vars {
			if n, val, _ := strings.Cut(v, "="); n == name {
				return val
			}
		}
		return ""
	}
}

// have finds the tools named, and no other.
func have(names ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		if slices.Contains(names, name) {
			return "/usr/bin/" + name, nil
		}
		return "", errors.New("not found")
	}
}

func TestChooseMatchesTheSession(t *testing.T) {
	for _, c := range []struct {
		name  string
		env   func(string) string
		have  func(string) (string, error)
		tool  string
		osc52 bool
	}{
		{"wayland", env("WAYLAND_DISPLAY=wayland-0", "DISPLAY=:0"), have("wl-copy", "xclip"), "wl-copy", false},
		{"x without wl-copy", env("WAYLAND_DISPLAY=wayland-0", "DISPLAY=:0"), have("xclip"), "xclip", false},
		{"x with xsel only", env("DISPLAY=:0"), have("xsel"), "xsel", false},
		{"a tool but no display", env(), have("xclip", "wl-copy"), "", true},
		{"no tool", env("DISPLAY=:0"), have(), "", true},
		{"over ssh with a forwarded display", env("DISPLAY=localhost:10", "SSH_CONNECTION=1 2 3 4"), have("xclip"), "xclip", true},
		{"over ssh", env("SSH_TTY=/dev/pts/3"), have("xclip"), "", true},
	} {
		w := Choose(c.env, c.have)
		if runtime.GOOS == "darwin" {
			continue // pbcopy serves every session there
		}
		if w.Name() != c.tool || w.OSC52 != c.osc52 {
			t.Errorf("%s: %v osc52=%v, want %q osc52=%v", c.name, w.Tool, w.OSC52, c.tool, c.osc52)
		}
	}
}

// A tool gets the text on its standard input; one that fails says why; one that hangs is
// given up on.
func TestRunGivesTheToolTheText(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "got")
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := Way{Tool: []string{script("copy", "cat > "+out)}}
	if err := ok.Run(context.Background(), "List<String>\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "List<String>\n" {
		t.Fatalf("the tool got %q", b)
	}
	bad := Way{Tool: []string{script("bad", "echo 'Error: Can'\\''t open display' >&2; exit 1")}}
	if err := bad.Run(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), "open display") {
		t.Fatalf("a failing tool: %v", err)
	}
	// A tool that leaves a process holding its output (as xclip serves its selection) is done
	// when it exits.
	forks := Way{Tool: []string{script("forks", "cat >/dev/null; sleep 5 &")}}
	if err := forks.Run(context.Background(), "x"); err != nil {
		t.Fatalf("a tool that forks: %v", err)
	}
}
