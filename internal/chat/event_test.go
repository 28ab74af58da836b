package chat

import "testing"

func TestFinishNote(t *testing.T) {
	for _, c := range []struct{ reason, answer, want string }{
		{"stop", "All done.", ""},
		{"", "", ""},
		{"length", "Half an ans", "stopped at the token limit"},
		{"length", " \n", "stopped at the token limit while thinking — no answer"},
	} {
		if got := FinishNote(c.reason, c.answer); got != c.want {
			t.Errorf("FinishNote(%q, %q) = %q, want %q", c.reason, c.answer, got, c.want)
		}
	}
}
