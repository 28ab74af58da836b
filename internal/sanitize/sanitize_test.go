package sanitize

import (
	"bytes"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain text, newlines and tabs kept", "a\tb\nc — é 漢字 🙂", "a\tb\nc — é 漢字 🙂"},
		{"SGR color", "\x1b[31mred\x1b[0m", "red"},
		{"cursor movement and erase", "x\x1b[2J\x1b[H\x1b[10;20Hy\x1b[K", "xy"},
		{"private mode", "a\x1b[?1049hb\x1b[?25l", "ab"},
		{"OSC title with BEL", "\x1b]0;pwned\x07after", "after"},
		{"OSC 52 clipboard with ST", "\x1b]52;c;ZWNobyBoaQ==\x1b\\text", "text"},
		{"OSC 8 hyperlink", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"DCS", "\x1bPq#0;2;0;0;0\x1b\\ok", "ok"},
		{"APC and PM and SOS", "\x1b_Gf=1\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\done", "done"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"C1 OSC ended by C1 ST", "a\u009d0;t\u009cb", "ab"},
		{"other C1", "a\u0085\u0084b", "ab"},
		{"two-byte escapes", "\x1bc\x1b7a\x1b8\x1b(Bb\x1b=", "ab"},
		{"lone ESC at end", "abc\x1b", "abc"},
		{"ESC before a non-ASCII rune", "a\x1bé", "aé"},
		{"C0 controls", "a\x00\x07\x08\r\x0b\x0c\x7fb", "ab"},
		{"invalid UTF-8", "a\xffb\xc2", "ab"},
		{"unterminated OSC swallows the rest of its line", "a\x1b]0;title", "a"},
		{"an OSC left open ends at the line's end", "a\x1b]0;title\nnext\x1bP1;2\nlast", "a\nnext\nlast"},
		{"ESC inside OSC starts a new sequence", "\x1b]0;t\x1b[31mx", "x"},
		{"brackets alone are text", "[31m] and ]0;", "[31m] and ]0;"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := String(c.in); got != c.want {
				t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// A sequence or a rune split across streamed deltas is removed or kept exactly as when the
// text arrives whole, at every split point.
func TestSanitizerStreamedSplits(t *testing.T) {
	in := "héllo \x1b]52;c;aGk=\x07wörld \x1b[1;31mred\x1b[0m 漢\u009b2Jz\x1b\\"
	want := String(in)
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			var sn sanitizer
			var b strings.Builder
			sn.write(&b, in[:i])
			sn.write(&b, in[i:j])
			sn.write(&b, in[j:])
			if b.String() != want {
				t.Fatalf("split at %d,%d: got %q, want %q", i, j, b.String(), want)
			}
		}
	}
	if strings.ContainsAny(want, "\x1b\x07") || !strings.Contains(want, "wörld") || !strings.Contains(want, "漢") {
		t.Fatalf("unexpected result %q", want)
	}
}

// A Writer neutralises what is written to it as String does, a sequence or a rune split across
// writes included, and Raw reaches the stream under it.
func TestWriter(t *testing.T) {
	in := "héllo \x1b]52;c;aGk=\x07wörld \x1b[1;31mred\x1b[0m 漢\u009b2Jz\x1b\\"
	for i := 0; i <= len(in); i++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		if n, err := w.Write([]byte(in[:i])); n != i || err != nil {
			t.Fatalf("Write = %d, %v; want %d, nil", n, err, i)
		}
		w.Write([]byte(in[i:]))
		if out.String() != String(in) {
			t.Fatalf("split at %d: got %q, want %q", i, out.String(), String(in))
		}
	}
	var out bytes.Buffer
	w := NewWriter(&out)
	if NewWriter(w) != w {
		t.Error("NewWriter put a second neutraliser on a Writer")
	}
	Raw(w).Write([]byte("\x1b[1m"))
	if out.String() != "\x1b[1m" || Raw(&out) != &out {
		t.Errorf("Raw: %q", out.String())
	}
}

// A name that would move the terminal is written quoted, its controls escaped, so that the
// line still says what it was; a plain one, in any script, as it is.
func TestName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"notes.txt", "notes.txt"},
		{"été 漢字 🙂.md", "été 漢字 🙂.md"},
		{"my file", "my file"},
		{"\x1b]0;pwned\x07x", `"\x1b]0;pwned\ax"`},
		{"a\u009b2Jb", `"a\u009b2Jb"`},
		{"a\x9bb", `"a\x9bb"`},
		{"two\nlines\tand tab", `"two\nlines\tand tab"`},
	}
	for _, c := range cases {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %s, want %s", c.in, got, c.want)
		}
		if got := Name(c.in); String(got) != got {
			t.Errorf("Name(%q) = %q holds a control", c.in, got)
		}
	}
}
