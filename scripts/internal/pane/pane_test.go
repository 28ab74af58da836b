package pane

import "testing"

// Lines as tmux's capture-pane -e wrote them for the chat screen's header, a message heading
// and the input: 256 colours, bold, a reset, and a style that runs on into the next line.
const captured = "\x1b[1m\x1b[38;5;255m\x1b[48;5;60m parley \x1b[38;5;234m\x1b[48;5;221m demo \x1b[0m\x1b[39m\x1b[48;5;60m  idle\n" +
	"\x1b[39m\x1b[49m  \x1b[1m\x1b[38;5;81mYou\x1b[0m\x1b[38;5;245m\x1b[49m · #1\n" +
	"hi \x1b[38;2;18;52;86;7mrev\x1b[27;3m─界\n"

func TestParse(t *testing.T) {
	lines := Parse(captured)
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3", len(lines))
	}
	at := func(row, col int) Cell { return lines[row][col] }
	for _, c := range []struct {
		row, col int
		r        rune
		want     Style
	}{
		{0, 1, 'p', Style{FG: "#eeeeee", BG: "#5f5f87", Bold: true}},
		{0, 9, 'd', Style{FG: "#1c1c1c", BG: "#ffd75f", Bold: true}},
		{0, 14, ' ', Style{BG: "#5f5f87"}},
		{1, 2, 'Y', Style{FG: "#5fd7ff", Bold: true}},
		{1, 6, '·', Style{FG: "#8a8a8a"}},
		// No SGR starts the third line: it goes on in the second's last style.
		{2, 0, 'h', Style{FG: "#8a8a8a"}},
		{2, 3, 'r', Style{FG: "#123456", Reverse: true}},
		{2, 6, '─', Style{FG: "#123456", Italic: true}},
	} {
		got := at(c.row, c.col)
		if got.Rune != c.r || got.Style != c.want {
			t.Errorf("line %d cell %d: %q %+v, want %q %+v", c.row, c.col, got.Rune, got.Style, c.r, c.want)
		}
	}
	if last := lines[2][len(lines[2])-1]; last.Rune != '界' || last.Width != 2 {
		t.Errorf("a wide glyph: %q width %d, want 界 width 2", last.Rune, last.Width)
	}
}

func TestIndexed(t *testing.T) {
	for i, want := range map[int]string{1: "#cd0000", 15: "#ffffff", 16: "#000000", 60: "#5f5f87", 221: "#ffd75f", 231: "#ffffff", 232: "#080808", 255: "#eeeeee"} {
		if got := Indexed(i); got != want {
			t.Errorf("Indexed(%d) = %s, want %s", i, got, want)
		}
	}
}
