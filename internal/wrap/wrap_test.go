package wrap

import (
	"slices"
	"testing"
)

func TestLinesKeepTheirIndentation(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int
		want  []string
	}{
		{"short\n  also short", 20, []string{"short", "  also short"}},
		{"    one two three four", 12, []string{"    one two", "    three", "    four"}},
		{"\tone two three", 10, []string{"    one", "    two", "    three"}},
		// An indent of more than half the width is not repeated.
		{"        one two", 12, []string{"        one", "two"}},
	} {
		if got := Lines(c.text, c.width); !slices.Equal(got, c.want) {
			t.Errorf("Lines(%q, %d) = %q, want %q", c.text, c.width, got, c.want)
		}
	}
}
